"""A flood of hits (a threshold that keeps most games): the job is told so at
its start, its cross-check runs in the workers, and --time, Ctrl-C and
SIGTERM hold within a few seconds whatever the chunks in flight hold."""

import signal
import time

import pytest

from beggar.archive import Archive
from beggar.search import job as jobs
from beggar.search import pace

from helpers import beggar, job_file, job_id, start, wait_for_chunks


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
    # Once the job has started (its first line; a busy machine may take
    # seconds to measure it), the workers are deep in their chunks' cross-checks.
    first = job.stderr.readline()
    assert first.startswith("job "), first
    time.sleep(1.5)
    job.send_signal(signum)
    began = time.monotonic()
    out, err = job.communicate(timeout=60)
    assert time.monotonic() - began < 3 + 5, out
    assert job.returncode == 128 + signum and "Traceback" not in err, err
    assert f"stopped ({'Ctrl-C' if signum == signal.SIGINT else 'SIGTERM'};" in out
    assert "chunks in flight cut off, played again on resume" in out


def _summary_seconds(out):
    """The seconds a run's summary says it ran."""
    line = next(line for line in out.splitlines() if line.startswith("deals "))
    return float(line.split(" in ")[-1].split(" s")[0])


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_loop_flood_ends_within_three_seconds_of_a_stop(tmp_path, signum):
    # A deck of 18 cards whose deals loop by the thousand a second: keeping
    # a chunk's loops once took the job's own process seconds, deaf to the
    # clock and to a stop. Now they are described in the worker, kept in
    # bulk, and a keep past the stop's 3 s is rolled back.
    archive = tmp_path / "archive.sqlite"
    job = start("search", "--deck", "16 2J", "--seed", 5, "--workers", 1, "--archive", archive, "--quiet")
    wait_for_chunks(archive, 3, job)
    job.send_signal(signum)
    began = time.monotonic()
    out, err = job.communicate(timeout=60)
    took = time.monotonic() - began
    assert job.returncode == 128 + signum and "Traceback" not in err, err
    assert took < 3 + 1.5, (took, out)
    with Archive(archive) as opened:
        name = job_id(out)
        assert opened.job(name)["deals"] > 0 and opened.count_games(status="loop") > 0
    # The time limit holds too, and a resumed run goes on where it stopped.
    began = time.monotonic()
    resumed = beggar("search", "--resume", name, "--archive", archive, "--time", 4, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert _summary_seconds(resumed.stdout) < 4 + 1.5, resumed.stdout
    with Archive(archive) as opened:
        after = opened.job(name)
    assert after["deals"] > 0 and "in this run" in resumed.stdout


@pytest.mark.slow
def test_a_gpu_job_is_warned_of_a_flood_and_bounded_and_goes_on_under_a_time_limit(tmp_path):
    # gpu-host: the GPU's two stages, its kernels on a core. At 300 cards a
    # third of the deals are hits: once chunks of 1.7 M deals, none of which
    # finished within --time 30, so every resume played the same chunk again.
    archive = tmp_path / "archive.sqlite"
    first = beggar("search", "--engine", "gpu-host", "--min-cards", 300, "--workers", 2, "--time", 6,
                   "--archive", archive, "--quiet")
    assert first.returncode == 0, first.stderr
    warning = next(line for line in first.stderr.splitlines() if line.startswith("warning:"))
    assert "min_cards 300 keeps" in warning and "would keep up" in warning
    assert "chunks of about 3 s as it runs, in parts of " in first.stderr
    name = job_id(first.stdout)
    with Archive(archive) as opened:
        job = opened.job(name)
        spec = job["spec"]
        chunks = opened.chunks_kept(name)
        hits = [row[0] for row in opened.db.execute("SELECT hits FROM chunks WHERE job = ?", (name,))]
    # Its parts were sized by what the checkers follow (a quarter of a second
    # of a core each), and its chunks too: none brings more hits than a
    # checker replays in about 3 s (twice that allowed: processor seconds
    # measured here, on a machine others share).
    measured = pace.measure(jobs.stored(spec))     # as a resumed job reads its spec
    assert spec["chunk"] * measured.hit_share / measured.check_rate < 1 and spec["chunk_seconds"] == 3
    assert job["deals"] > 0 and max(hits) <= 2 * 3 * measured.check_rate
    resumed = beggar("search", "--resume", name, "--time", 3, "--archive", archive, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    with Archive(archive) as opened:
        assert opened.job(name)["deals"] > job["deals"] and len(opened.chunks_kept(name)) > len(chunks)


@pytest.mark.slow
def test_a_census_resumed_for_less_than_a_chunk_goes_on(tmp_path):
    # A census of the half deck, then resumed for a second: its chunks, sized
    # as it runs, are cut to the time left (it once said "deals 0 in this run").
    archive = tmp_path / "archive.sqlite"
    first = beggar("census", "half", "--time", 3, "--archive", archive, "--quiet")
    assert first.returncode == 0, first.stderr
    name = job_id(first.stdout)
    with Archive(archive) as opened:
        before = opened.job(name)["deals"]
    resumed = beggar("search", "--resume", name, "--time", 1, "--archive", archive, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    with Archive(archive) as opened:
        assert opened.job(name)["deals"] > before > 0
