"""Shared fixtures: every engine test runs once per engine that plays every
table (tests/engines.py, the one list of engines)."""

import pytest

from engines import EVERY_TABLE


@pytest.fixture(params=EVERY_TABLE)
def engine(request):
    """The name of each engine in turn."""
    return request.param
