"""The smaller ones of the third hardening round, each through the real command."""

import json
import math
import shutil
from pathlib import Path

import pytest

from helpers import beggar, job_id


@pytest.mark.slow
def test_stats_counts_a_job_started_with_split_26_as_26_26(tmp_path):
    archive = tmp_path / "a.sqlite"
    run = beggar("search", "--deals", 20_000, "--split", 26, "--min-cards", 5000, "--seed", 1, "--workers", 1,
                 "--archive", archive, "--quiet")
    assert run.returncode == 0, run.stderr
    stats = beggar("stats", "--tail-from", 1000, "--archive", archive)
    assert stats.returncode == 0, stats.stderr
    assert job_id(run.stdout) in stats.stdout and "deals    20,000" in stats.stdout


@pytest.mark.slow
def test_stats_json_is_json(tmp_path):
    archive = tmp_path / "a.sqlite"
    run = beggar("census", "6 2J 1Q 1K", "--chunk", 1000, "--workers", 1, "--archive", archive, "--quiet")
    stats = beggar("stats", job_id(run.stdout), "--json", "--tail-from", 20, "--archive", archive)
    assert stats.returncode == 0, stats.stderr

    def refuse(word):
        raise AssertionError(f"{word} is not JSON")
    json.loads(stats.stdout, parse_constant=refuse)
    from beggar.cli.stats import _finite
    assert _finite({"rate": math.inf, "rows": [{"p": math.nan, "cards": 5}]}) == {"rate": None,
                                                                                "rows": [{"p": None, "cards": 5}]}


@pytest.mark.slow
def test_the_job_of_the_format_3_test_archive_resumes(tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copy(Path(__file__).with_name("data") / "archive-v3.sqlite", path)
    resumed = beggar("search", "--resume", "sample-old", "--time", 1, "--workers", 1, "--archive", path, "--quiet")
    assert resumed.returncode == 0 and "Traceback" not in resumed.stderr, resumed.stderr
    assert "job      sample-old:" in resumed.stdout


def test_words_left_over_are_refused_by_the_command_they_follow():
    result = beggar("stats", "some-job", "another")
    assert result.returncode == 2
    assert result.stderr.startswith("beggar stats: unrecognized arguments: another"), result.stderr
