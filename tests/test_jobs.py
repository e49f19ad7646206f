"""Jobs at a glance (beggar archive jobs within 80 columns, --wide, --resume
last, a resumed run's summary) and a stop that answers (Ctrl-C, chunks sized by time, --time with
units, the exit status), through the command."""

import json
import re
import signal
import time

import pytest

from beggar.archive import Archive

from helpers import bad_input, beggar, job_file, job_id, start, wait_for_chunks


@pytest.mark.slow
def test_archive_jobs_lists_each_job_and_how_to_resume_it(tmp_path):
    archive = tmp_path / "a.sqlite"
    done = beggar("search", job_file(tmp_path, "whole", deals=100_000), "--archive", archive, "--quiet")
    assert done.returncode == 0, done.stderr
    job = start("search", job_file(tmp_path, "open", deals=0, chunk=50_000), "--archive", archive, "--quiet")
    try:
        # The second job is running while it is listed.
        for _ in range(100):
            listed = json.loads(beggar("archive", "jobs", "--json", "--archive", archive).stdout)
            if len(listed) == 2 and listed[1]["played"] > 0:
                break
            time.sleep(0.1)
        assert [row["state"] for row in listed] == ["done", "running"]
    finally:
        job.send_signal(signal.SIGINT)
        out, err = job.communicate(timeout=60)
    name = job_id(out)
    rows = json.loads(beggar("archive", "jobs", "--json", "--archive", archive).stdout)
    first, second = rows
    assert first["state"] == "done" and first["played"] == first["budget"] == 100_000 and first["resume"] is None
    assert first["table"] == "standard deck, 2 players, 26/26" and first["driver"] == "sample"
    assert first["best"]["cards"] >= 1500 and first["games"] > 0 and first["loops"] == 0
    assert second["id"] == name and second["state"] == "stopped" and second["budget"] is None
    assert second["resume"] == f"beggar search --resume {name} --archive {archive}"
    narrow = beggar("archive", "jobs", "--archive", archive)
    assert narrow.returncode == 0
    assert f"  resume  {second['resume']}" in narrow.stdout.splitlines()
    text = beggar("archive", "jobs", "--wide", "--archive", archive)
    assert text.returncode == 0
    lines = text.stdout.splitlines()
    assert lines[0].split()[:4] == ["job", "driver", "table", "state"]
    assert "100.0K of 100.0K deals" in lines[1] and " done " in lines[1]
    assert lines[2].startswith(name) and lines[2].endswith(second["resume"])
    # A missing archive is not an empty one (it is the one line every command gives).
    bad_input(beggar("archive", "jobs", "--archive", tmp_path / "none.sqlite"), "none.sqlite: no such archive")
    Archive(tmp_path / "empty.sqlite").close()
    assert beggar("archive", "jobs", "--archive", tmp_path / "empty.sqlite").stdout == "no jobs\n"


@pytest.mark.slow
def test_resume_last_goes_on_with_the_job_run_last_and_labels_the_figures(tmp_path):
    archive = tmp_path / "a.sqlite"
    bad_input(beggar("search", "--resume", "last", "--archive", archive), "no such archive")
    assert not archive.exists()
    Archive(archive).close()
    bad_input(beggar("search", "--resume", "last", "--archive", archive), "no job to resume: the archive holds none")
    first = beggar("search", job_file(tmp_path, deals=3_000_000, chunk=100_000), "--archive", archive,
                   "--quiet", "--time", 0.5, "--workers", 1)
    name = job_id(first.stdout)
    assert "in this run" not in first.stdout and "job all" not in first.stdout
    with Archive(archive, readonly=True) as opened:
        played = opened.job(name)["deals"]
    resumed = beggar("search", "--resume", "last", "--archive", archive, env={"BEGGAR_PROGRESS_SECONDS": "100000"})
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming job {name}, the last one run" in resumed.stderr
    # Its progress line tells the job's figures from this run's, as the summary does.
    with Archive(archive, readonly=True) as opened:
        best = opened.job(name)["best_cards"]
    progress = resumed.stderr.strip().splitlines()[-1]
    assert re.search(fr"{name}: job 3,000,000 of 3,000,000 deals \(100\.0 %\), best {best}; this run "
                     fr"{3_000_000 - played:,} deals, [\d,]+ deals/s, kept [\d,]+, loop_deals 0; workers 2$", progress), \
        progress
    lines = {line[:8].strip(): line[9:] for line in resumed.stdout.splitlines()}
    assert lines["job"].startswith(f"{name}: done")
    assert " in this run in " in lines["deals"] and "kept in this run in" in lines["hits"]
    assert lines["job all"].startswith("3,000,000 of 3,000,000 deals in 30 chunks, best ")
    assert lines["job all"].endswith("kept (every run of the job)")
    again = beggar("search", "--resume", "last", "--archive", archive, "--quiet")
    assert again.returncode == 0 and f"job {name} is done: 3,000,000 deals, best " in again.stdout


def test_time_takes_units():
    from beggar.cli.options import seconds
    assert [seconds(text) for text in ("90", "90s", "90m", "8h", "1.5h", "2d")] == \
        [90, 90, 5400, 28800, 5400, 172800]
    assert "must be" in bad_input(beggar("search", "--time", "8x"), "--time")
    bad_input(beggar("search", "--time", "0m"), "--time")


@pytest.mark.slow
@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stop_says_at_once_what_it_does_and_exits_as_the_signal(tmp_path, signum, status):
    archive = tmp_path / "a.sqlite"
    # Chunks sized as the job runs to take half a second, on the machine as
    # it is (units.py): the chunks in flight finish within the promise,
    # however busy the machine (a chunk of a fixed size took over 3 s of a
    # loaded one, and the job then said it would cut them off).
    job = start("search", job_file(tmp_path, deals=0, chunk=20_000, extra="chunk_seconds = 0.5\n"),
                "--archive", archive, "--quiet")
    wait_for_chunks(archive, 1, job)
    job.send_signal(signum)
    out, err = job.communicate(timeout=60)
    assert job.returncode == status, err
    told = [line for line in err.splitlines() if line.startswith("stopping")]
    assert len(told) == 1, err
    assert " in flight finish in about " in told[0] and ("Ctrl-C again stops now" in told[0]) == (signum == signal.SIGINT)
    assert "resume   beggar search --resume" in out


@pytest.mark.slow
@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_second_stop_signal_stops_at_once_and_exits_as_that_signal(tmp_path, signum, status):
    """A second SIGTERM exited 130, as a Ctrl-C does."""
    archive = tmp_path / "a.sqlite"
    job = start("search", job_file(tmp_path, deals=0, chunk=400_000), "--archive", archive, "--quiet")
    wait_for_chunks(archive, 1, job)
    job.send_signal(signum)
    deadline = time.monotonic() + 30
    # The second once the first is taken (the job says so), while chunks are in flight.
    while "stopping" not in (line := job.stderr.readline()) and time.monotonic() < deadline:
        assert line, "the job ended before it said it was stopping"
    job.send_signal(signum)
    out, err = job.communicate(timeout=60)
    assert job.returncode == status, (out, err)
    assert "stopped at once" in out and "Traceback" not in err


@pytest.mark.slow
def test_a_job_without_a_chunk_gets_one_sized_by_time_fixed_in_its_spec(tmp_path):
    archive = tmp_path / "a.sqlite"
    result = beggar("search", "--deals", 1_000, "--players", 3, "--archive", archive, "--quiet")
    assert result.returncode == 0, result.stderr
    started = result.stderr.splitlines()[0]
    rows = json.loads(beggar("archive", "jobs", "--json", "--archive", archive).stdout)
    chunk = rows[0]["chunk"]
    # Its deals are numbered in parts of about a quarter of a second of a core
    # (processor time: a busy machine measures the same), fixed in its spec;
    # its chunks are runs of parts sized as it runs (units.py).
    assert (f", chunks of about 3 s as it runs, in parts of {chunk:,} deals (about 0.25 s of a core here, "
            "measured)") in started
    # Three players play about a third as fast as two: a part far below the two-player default.
    assert 5_000 <= chunk < 1_000_000
    with Archive(archive) as opened:
        assert opened.job(rows[0]["id"])["spec"]["chunk_seconds"] == 3
    # A job file's own chunk stands.
    given = beggar("search", job_file(tmp_path, deals=1_000, chunk=7_000), "--archive", archive, "--quiet")
    assert "measured" not in given.stderr
    assert json.loads(beggar("archive", "jobs", "--json", "--archive", archive).stdout)[1]["chunk"] == 7_000


@pytest.mark.slow
def test_a_shipped_job_runs_by_name_from_any_folder(tmp_path, monkeypatch):
    from beggar.search import job
    from test_readme import ROOT
    # The job files shipped are the repository's search/*.toml, every one.
    assert job.shipped() == sorted(path.stem for path in (ROOT / "search").glob("*.toml"))
    monkeypatch.chdir(tmp_path)         # no search/ folder here
    result = beggar("search", "sample", "--deals", 20_000, "--archive", "a.sqlite", "--quiet")
    assert result.returncode == 0, result.stderr
    assert json.loads(beggar("archive", "jobs", "--json", "--archive", "a.sqlite").stdout)[0]["driver"] == "sample"
    line = bad_input(beggar("search", "nonesuch", "--archive", "a.sqlite"), "nonesuch: no such job file")
    assert "shipped: aces-plain, camicia, census-half" in line


@pytest.mark.slow
def test_archive_jobs_fits_an_80_column_terminal_and_wide_keeps_the_table(census_run):
    archive, run, job = census_run
    listed = beggar("archive", "jobs", "--archive", archive)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == f"{job}  done" and all(len(line) <= 80 for line in lines), lines
    assert lines[2].startswith("  played 47.5K of 47.5K deals; best ") and re.fullmatch(r"  [\d,]+ games and 5 loops kept", lines[3])
    assert re.fullmatch(r"  started \d{4}-\d\d-\d\d \d\d:\d\d, last ran \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\)", lines[4])
    wide = beggar("archive", "jobs", "--wide", "--archive", archive).stdout.splitlines()
    assert wide[0].split()[:4] == ["job", "driver", "table", "state"] and wide[1].startswith(job)
    # One form of a time in every text view: no ISO 'T' between date and time.
    game = json.loads(beggar("archive", "list", "--json", "--archive", archive).stdout)["games"][0]["id"]
    shown = beggar("archive", "show", game, "--archive", archive).stdout
    assert re.search(r"^found    \d{4}-\d\d-\d\d \d\d:\d\d UTC by job ", shown, re.M), shown


def test_archive_jobs_cells_are_narrow():
    from beggar.cli import format
    row = {"id": "sample-20261201-114623-2c7b", "driver": "sample", "table": "standard deck, 2 players, 26/26",
           "state": "stopped", "unit": "deals", "played": 9_200_000, "budget": None,
           "best": {"cards": 4537, "tricks": 617, "game": 2, "deal": "", "driver": "sample"},
           "games": 8, "loops": 0, "started": "2026-12-01T11:46:42+00:00", "last_ran": "2026-12-01T11:47:03+00:00",
           "resume": "beggar search --resume sample-20261201-114623-2c7b"}
    assert format.job_played(row) == "9.2M deals" and format.job_best(row) == "4537 (game 2)"
