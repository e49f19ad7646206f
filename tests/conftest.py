"""Shared fixtures: every engine test runs once per engine that plays every
table (tests/engines.py, the one list of engines); a small census job that
several modules read."""

import pytest

from engines import EVERY_TABLE
from helpers import CENSUS_DECK, beggar, job_id


@pytest.fixture(params=EVERY_TABLE)
def engine(request):
    """The name of each engine in turn."""
    return request.param


@pytest.fixture(scope="session")
def census_run(tmp_path_factory):
    """A census job of CENSUS_DECK run once through the command, which the
    tests of its views read (test_census.py, test_odds.py, test_jobs.py,
    test_report.py): (its archive, the run, its job id)."""
    archive = tmp_path_factory.mktemp("census") / "a.sqlite"
    run = beggar("census", CENSUS_DECK, "--workers", 2, "--archive", archive, "--quiet")
    assert run.returncode == 0, run.stderr
    return archive, run, job_id(run.stdout)
