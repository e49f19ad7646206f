"""Shared fixtures: every engine test runs once per engine."""

import json
from importlib import resources

import pytest

from beggar.engine import ENGINES


@pytest.fixture(params=ENGINES)
def engine(request):
    """The name of each engine in turn."""
    return request.param


def load_data(name):
    """A JSON file shipped in beggar/data."""
    return json.loads(resources.files("beggar").joinpath("data", name).read_text())
