"""Shared fixtures: every engine test runs once per engine."""

import pytest

from beggar.engine import ENGINES


@pytest.fixture(params=ENGINES)
def engine(request):
    """The name of each engine in turn."""
    return request.param

