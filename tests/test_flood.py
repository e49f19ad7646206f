"""A flood of hits (a threshold that keeps most games): the job is told so at
its start, its cross-check runs in the workers, and --time, Ctrl-C and
SIGTERM hold within a few seconds whatever the chunks in flight hold."""

import signal
import time

import pytest

from beggar.archive import Archive
from beggar.search import job as jobs
from beggar.search import pace

from helpers import beggar, job_file, job_id, start


@pytest.mark.slow
def test_a_flood_is_told_at_the_start_with_both_rates_and_a_threshold_that_keeps_up(tmp_path):
    archive = tmp_path / "archive.sqlite"
    began = time.monotonic()
    result = beggar("search", "--min-cards", 0, "--deals", 20_000, "--workers", 2, "--seed", 4,
                    "--archive", archive, "--quiet")
    assert result.returncode == 0, result.stderr
    warning = next(line for line in result.stderr.splitlines() if line.startswith("warning:"))
    assert "min_cards 0 keeps 100 % of deals" in warning and "games a second on a core" in warning
    assert "cross-checks" in warning and "would keep up (a job file may insist on 0)" in warning
    # Its chunks were made small enough to be cross-checked in a few seconds each.
    with Archive(archive) as opened:
        name = job_id(result.stdout)
        spec = opened.job(name)["spec"]
        assert spec["chunk"] < jobs.DEFAULTS["chunk"] and opened.job(name)["hits"] == 20_000
        assert all(not game["disputed"] for game in opened.games(limit=100))
    assert time.monotonic() - began < 60


def test_no_warning_where_the_cross_check_keeps_up():
    spec = jobs.check({"seed": 1, "min_cards": 2800})
    measured = pace.measure(spec)
    assert pace.warning(spec, measured) is None and pace.chunk_for(measured, spec["chunk"]) == spec["chunk"]


@pytest.mark.slow
def test_the_time_limit_holds_under_a_flood_in_chunks_that_insist(tmp_path):
    # Chunks of 100,000 deals that keep every game: some ten seconds of
    # cross-checking each, far past the time limit.
    archive = tmp_path / "archive.sqlite"
    spec = job_file(tmp_path, min_cards=0, deals=0, chunk=100_000)
    began = time.monotonic()
    result = beggar("search", spec, "--archive", archive, "--time", 2, "--quiet")
    took = time.monotonic() - began
    assert result.returncode == 0, result.stderr
    assert took < 12, (took, result.stdout)
    assert "stopped (time limit of 2 s;" in result.stdout and "played again on resume" in result.stdout
    assert "warning: min_cards 0 keeps" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_first_stop_signal_holds_under_a_flood(tmp_path, signum):
    archive = tmp_path / "archive.sqlite"
    job = start("search", job_file(tmp_path, min_cards=0, deals=0, chunk=100_000), "--archive", archive,
                "--quiet", "--workers", 2)
    time.sleep(2.5)         # the workers are started and deep in their chunks' cross-checks
    job.send_signal(signum)
    began = time.monotonic()
    out, err = job.communicate(timeout=60)
    assert time.monotonic() - began < 3 + 5, out
    assert job.returncode == 128 + signum and "Traceback" not in err, err
    assert f"stopped ({'Ctrl-C' if signum == signal.SIGINT else 'SIGTERM'};" in out
    assert "chunks in flight cut off, played again on resume" in out
