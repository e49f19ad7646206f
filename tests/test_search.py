"""Search jobs and the archive, with real worker processes, real SQLite files and
the real command: the drivers --help names, and a job refused in one line
that leaves no archive behind."""

import json
import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from dataclasses import replace

import pytest

from beggar import Deal, play
from beggar.archive import Archive, ArchiveError
from beggar.backward import family
from beggar.climbing import ClimbRules
from beggar.engine import climb
from beggar.savefile import load
from beggar.search import job as jobs
from beggar.search import SearchError
from beggar.search.drivers import ChunkResult, keep
from beggar.search.runner import Summary
from helpers import (CASELLA, _command, bad_input, beggar, done_chunks, fault, in_process, job_file, job_id, kept,
                     start, wait_for_chunks)


@pytest.mark.slow
def test_a_short_job_keeps_its_hits_checked_by_both_engines(tmp_path):
    archive = tmp_path / "archive.sqlite"
    result = beggar("search", job_file(tmp_path), "--archive", archive, "--quiet")
    assert result.returncode == 0, result.stderr
    assert "done (budget spent)" in result.stdout and "600,000" in result.stdout
    with Archive(archive) as opened:
        games = opened.games()
        job = opened.job(job_id(result.stdout))
    assert job["state"] == "done" and job["chunks"] == 30 and job["deals"] == 600_000
    # Games of 2800+ cards (the default extend_cards) bring their family's longest member too.
    assert len([game for game in games if game["driver"] != "extension"]) == job["hits"] > 0
    for game in games:
        assert game["cards"] >= 1500 and not game["disputed"]
        compiled, reference = dict(game["compiled"]), dict(game["reference"])
        assert (compiled.pop("engine"), reference.pop("engine")) == ("compiled", "reference")
        assert compiled == reference
        fresh = play(Deal.parse(game["deal"]), engine="reference")
        assert (fresh.cards, fresh.tricks, fresh.status) == (game["cards"], game["tricks"], game["status"])
    # The same job again, with one worker, keeps the same games.
    again = tmp_path / "again.sqlite"
    assert beggar("search", job_file(tmp_path), "--archive", again, "--workers", 1, "--quiet").returncode == 0
    assert kept(again) == kept(archive)


@pytest.mark.slow
def test_killed_job_keeps_committed_hits_and_resumes(tmp_path):
    spec = job_file(tmp_path, deals=8_000_000, chunk=100_000, min_cards=2500)
    archive = tmp_path / "archive.sqlite"
    job = start("search", spec, "--archive", archive, "--quiet")
    name = wait_for_chunks(archive, 10, job)
    job.send_signal(signal.SIGKILL)
    job.communicate(timeout=30)
    with Archive(archive) as opened:
        progress = opened.job(name)
        done = done_chunks(opened, name)
        chunks = {game["chunk"] for game in opened.games(job=name)}
    assert 10 <= progress["chunks"] < 80 and progress["state"] == "running"
    assert chunks <= done           # every kept hit belongs to a chunk recorded as done
    resumed = beggar("search", "--resume", name, "--archive", archive, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert "done (budget spent)" in resumed.stdout
    with Archive(archive) as opened:
        assert opened.job(name)["chunks"] == 80 and opened.job(name)["deals"] == 8_000_000
    whole = tmp_path / "whole.sqlite"
    assert beggar("search", spec, "--archive", whole, "--quiet").returncode == 0
    assert kept(archive) == kept(whole) and kept(whole)


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_finishes_calmly_and_resume_goes_on(tmp_path, signum):
    archive = tmp_path / "archive.sqlite"
    # Chunks sized as the job runs (units.py), to a second on the machine as it is.
    job = start("search", job_file(tmp_path, deals=0, chunk=20_000, extra="chunk_seconds = 1\n"),
                "--archive", archive, "--quiet")
    wait_for_chunks(archive, 1, job)    # running, with a chunk kept, before the signal
    job.send_signal(signum)
    out, err = job.communicate(timeout=60)
    assert job.returncode == (130 if signum == signal.SIGINT else 143), err
    name = job_id(out)
    assert f"stopped ({'Ctrl-C' if signum == signal.SIGINT else 'SIGTERM'})" in out
    assert f"resume   beggar search --resume {name}" in out
    with Archive(archive) as opened:
        before = opened.job(name)
        assert before["state"] == "stopped" and before["chunks"] > 0
    # A resumed run plays on, however long the chunks took before: the
    # chunks near its time limit are cut to the time left.
    resumed = beggar("search", "--resume", name, "--archive", archive, "--time", 2, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert "stopped (time limit of 2 s" in resumed.stdout
    with Archive(archive) as opened:
        after = opened.job(name)
        assert after["chunks"] > before["chunks"] and after["deals"] > before["deals"]
        # No part played twice: the chunks kept hold disjoint runs of parts.
        parts = [range(first, first + -(-deals // 20_000)) for first, deals in opened.chunks_kept(name)]
        assert sum(map(len, parts)) == len(set().union(*parts)) == after["deals"] // 20_000


@pytest.mark.slow
def test_two_jobs_on_one_archive_keep_both(tmp_path):
    archive = tmp_path / "archive.sqlite"
    first = start("search", job_file(tmp_path, "a", seed=5), "--archive", archive, "--quiet")
    second = start("search", job_file(tmp_path, "b", seed=6), "--archive", archive, "--quiet")
    outs = [job.communicate(timeout=120) for job in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, outs
    alone = tmp_path / "alone.sqlite"
    for name, seed in (("a", 5), ("b", 6)):
        assert beggar("search", job_file(tmp_path, name, seed=seed), "--archive", alone,
                      "--quiet").returncode == 0
    assert kept(archive) == kept(alone)
    with Archive(archive) as opened:
        jobs = [row[0] for row in opened.db.execute("SELECT id FROM jobs")]
        assert all(opened.job(j)["chunks"] == 30 for j in jobs) and len(jobs) == 2


@pytest.mark.slow
def test_corrupt_or_foreign_archive(tmp_path):
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"this is not a database at all" * 100)
    bad_input(beggar("archive", "list", "--archive", corrupt), "corrupt.sqlite: not a beggar archive")
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE photos (id INTEGER, path TEXT)")
    bad_input(beggar("search", "--archive", foreign, "--deals", 1000), "foreign.sqlite: not a beggar archive")
    with sqlite3.connect(foreign) as db:
        assert db.execute("SELECT count(*) FROM photos").fetchone() == (0,)
    # A missing archive is the one line every command gives; an empty one has no game 7 nor job 'nothing'.
    bad_input(beggar("archive", "show", 7, "--archive", tmp_path / "new.sqlite"), "new.sqlite: no such archive")
    bad_input(beggar("search", "--resume", "nothing", "--archive", tmp_path / "new.sqlite"),
              "new.sqlite: no such archive")
    assert not (tmp_path / "new.sqlite").exists()
    Archive(tmp_path / "new.sqlite").close()
    bad_input(beggar("archive", "show", 7, "--archive", tmp_path / "new.sqlite"), "no game with id 7")
    bad_input(beggar("search", "--archive", "", "--deals", 10), "the archive's path is empty")
    bad_input(beggar("search", "--archive", "/dev/null", "--deals", 10), "/dev/null: not a file")
    bad_input(beggar("archive", "list", "--archive", "/dev/null"), "/dev/null: not a file")
    bad_input(beggar("search", "--resume", "nothing", "--archive", tmp_path / "new.sqlite"),
              "no job 'nothing' to resume")


@pytest.mark.slow
def test_bad_job_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)     # the last command names no archive: keep the default one here
    path = tmp_path / "bad.toml"
    for text, message in [
        ("driver = 'anneal'", "'driver' must be one of sample, climb"),
        ("drivr = 'climb'", "unknown key 'drivr'"),
        ("driver = 'climb'\n[climb]\naccept = 'greedy'", "[climb]: accept must be one of"),
        ("deals = -5", "'deals' must be a whole number from 0 to 10**18"),
        ("deals = 100000000000000000000000000\nchunk = 100000000000000000000000",
         "'deals' must be a whole number from 0 to 10**18"),
        ("deals = 1000\nchunk = 1000000000000", "'chunk' must be a whole number from 1 to 1000000000"),
        ("min_cards = 1000000000000000000000000000000", "'min_cards' must be a whole number from 0 to 10**18"),
        ("workers = 100000", "'workers' must be a whole number from 0 to 1024"),
        ("seed = " + "9" * 5001, "bad.toml: not a job file"),
        ("name = '" + "x" * 101 + "'", "'name' must be 1 to 100 letters"),
        ("seed = [1", "bad.toml: not valid TOML"),
        ("[climb]\npatience = 10", "[climb] is given but the driver is 'sample'"),
    ]:
        path.write_text(text)
        bad_input(beggar("search", path, "--archive", tmp_path / "a.sqlite"), message)
        assert not (tmp_path / "a.sqlite").exists()       # refused before the archive is opened
    path.write_bytes(b"\xff\xfe")
    bad_input(beggar("search", path, "--archive", tmp_path / "a.sqlite"), "bad.toml: not a text file")
    bad_input(beggar("search", tmp_path / "none.toml"), "none.toml: no such job file")


@pytest.mark.slow
def test_climb_job_and_archive_commands(tmp_path):
    archive = tmp_path / "archive.sqlite"
    spec = job_file(tmp_path, "walks", driver="climb", deals=200_000, chunk=50_000, min_cards=1800,
                    extra="[climb]\naccept = 'late'\npatience = 3000\n")
    result = beggar("search", spec, "--archive", archive, "--quiet")
    assert result.returncode == 0, result.stderr
    # Walk 2 of the job, played again here: the same hits.
    walk = climb(3, 2, 50_000, 1800, ClimbRules(accept="late", patience=3000))
    with Archive(archive) as opened:
        games = opened.games(limit=1000)
        walk_two = {g["deal"] for g in games if g["chunk"] == 2}
    assert walk_two == {str(deal) for deal, _ in walk.hits}
    listing = beggar("archive", "list", "--archive", archive, "--limit", 3).stdout.splitlines()
    assert listing[0].split()[:4] == ["id", "status", "cards", "tricks"] and len(listing) == 5
    best = games[0]
    assert listing[1].split()[:3] == [str(best["id"]), "finished", str(best["cards"])]
    shown = beggar("archive", "show", best["id"], "--archive", archive).stdout
    assert f"cards    {best['cards']}" in shown and "reference engine: agrees" in shown
    saved = tmp_path / "best.json"
    assert beggar("archive", "export", best["id"], saved, "--archive", archive).returncode == 0
    assert json.loads(saved.read_text())["expected"]["cards"] == best["cards"]
    replayed = beggar("replay", saved)
    assert replayed.returncode == 0 and "expected OK, as saved" in replayed.stdout
    text = beggar("archive", "export", best["id"], "--text", "--archive", archive).stdout
    assert str(load_text(tmp_path, text).deal) == best["deal"]


def load_text(tmp_path, text):
    path = tmp_path / "best.txt"
    path.write_text(text)
    return load(path)[0]


def test_a_disputed_hit_is_kept_marked_and_stops_the_job(tmp_path):
    deal = Deal.parse(CASELLA)
    wrong = replace(play(deal), cards=475)      # what a broken engine would report
    spec = jobs.check({})
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.add_job("j", spec)
        with pytest.raises(SearchError, match="the engines disagree on game 1"):
            keep(archive, "j", spec, ChunkResult(0, 1000, [(deal, wrong)], (deal, wrong), seconds=0.1),
                  Summary("j", "running", 1))
        game = archive.games(disputed=True)[0]
        assert (game["deal"], game["cards"], game["reference"]["cards"]) == (str(deal), 475, 474)
        assert done_chunks(archive, "j") == {0}
    with pytest.raises(ArchiveError, match="no game with id 99"):
        Archive(tmp_path / "a.sqlite").game(99)


@pytest.mark.slow
def test_extension_keeps_the_longest_member_of_each_long_game_family(tmp_path):
    archive = tmp_path / "archive.sqlite"
    spec = job_file(tmp_path, deals=400_000, min_cards=2200, extra="extend_cards = 2200\n")
    result = beggar("search", spec, "--archive", archive, "--quiet")
    assert result.returncode == 0, result.stderr
    with Archive(archive) as opened:
        games = opened.games(limit=10000)
    by_id = {g["id"]: g for g in games}
    extended = [g for g in games if g["driver"] == "extension"]
    parents = [g for g in games if g["driver"] == "sample"]
    assert parents and extended and f"({len(extended)} by family extension)" in result.stdout
    for game in extended:
        parent = by_id[game["parent"]]
        longest = family(Deal.parse(parent["deal"])).longest
        assert (str(longest[0]), longest[1]) == (game["deal"], game["cards"])
        assert game["cards"] >= parent["cards"] and not game["disputed"]


@pytest.mark.slow
def test_a_resumed_job_refuses_options_that_would_change_it(tmp_path):
    archive = tmp_path / "archive.sqlite"
    first = beggar("search", job_file(tmp_path, deals=200_000), "--archive", archive, "--quiet", "--time", 0.001)
    name = job_id(first.stdout)
    line = bad_input(beggar("search", "--resume", name, "--deals", 5, "--seed", 99, "--min-cards", 3000,
                            "--archive", archive),
                     f"--resume goes on with job {name} as it was started; --seed, --deals, --min-cards "
                     "would change it")
    assert "--deck" not in line
    bad_input(beggar("search", "--resume", name, "--players", 3, "--archive", archive), "--players would change it")
    with Archive(archive) as opened:
        assert opened.job(name)["spec"]["deals"] == 200_000 and opened.job(name)["state"] == "stopped"
    # What only says how to run it applies.
    resumed = beggar("search", "--resume", name, "--workers", 1, "--time", 30, "--archive", archive, "--quiet")
    assert resumed.returncode == 0 and "done (budget spent)" in resumed.stdout, resumed


def last_line(result, *fragments):
    """Exit status 3, no traceback, the reason as the last line of standard error
    (the job's own line comes first)."""
    assert result.returncode == 3 and "Traceback" not in result.stderr, result
    line = result.stderr.strip().splitlines()[-1]
    for fragment in fragments:
        assert fragment in line, line
    return line


def workers_of(pid):
    """The pids of the worker processes a job's process started."""
    children = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children += (task / "children").read_text().split()
    return [int(child) for child in children
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes()]


@pytest.mark.slow
@pytest.mark.parametrize("killed, told", [
    (signal.SIGKILL, "(killed by signal 9 (SIGKILL), perhaps by the system for want of memory)"),
    # A worker that crashes: the job says how, on every resume.
    pytest.param(signal.SIGSEGV, "(killed by signal 11 (SIGSEGV))", marks=pytest.mark.slow)])
def test_a_worker_killed_by_the_system_ends_the_job_with_a_summary(tmp_path, killed, told):
    archive = tmp_path / "archive.sqlite"
    job = start("search", job_file(tmp_path, deals=0, chunk=100_000), "--archive", archive, "--quiet")
    name = wait_for_chunks(archive, 2, job)
    os.kill(workers_of(job.pid)[0], killed)
    out, err = job.communicate(timeout=60)
    last_line(subprocess.CompletedProcess(job.args, job.returncode, out, err),
              "beggar search: a worker process died " + told)
    assert f"job      {name}: failed" in out and f"resume   beggar search --resume {name}" in out
    with Archive(archive) as opened:
        assert opened.job(name)["state"] == "failed" and opened.job(name)["chunks"] >= 2
    # Three seconds: a chunk that cannot finish in the time left is not started,
    # and on a loaded machine one chunk can take more than one.
    resumed = beggar("search", "--resume", name, "--archive", archive, "--time", 3, "--quiet")
    assert resumed.returncode == 0, resumed.stderr


@pytest.mark.slow
@pytest.mark.parametrize("driver", ["sample", "climb"])
def test_the_time_limit_holds_whatever_the_chunk_size(tmp_path, driver):
    archive = tmp_path / "archive.sqlite"
    spec = job_file(tmp_path, driver=driver, deals=0, chunk=jobs.MAX_CHUNK)
    started = time.monotonic()
    result = beggar("search", spec, "--archive", archive, "--time", 1, "--quiet")
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert re.search(r"stopped \(time limit of 1 s; \d chunks in flight cut off, played again on resume\)",
                     result.stdout), result.stdout
    assert elapsed < 10, elapsed        # the limit, a second's grace, and starting up
    with Archive(archive) as opened:
        assert opened.job(job_id(result.stdout))["chunks"] == 0


@pytest.mark.slow
def test_workers_are_at_most_four_per_core(tmp_path):
    most = 4 * os.cpu_count()
    spec = tmp_path / "many.toml"
    spec.write_text("workers = 1000\ndeals = 20000\nchunk = 1000\n")
    result = beggar("search", spec, "--archive", tmp_path / "a.sqlite", "--quiet")
    assert result.returncode == 0, result.stderr
    assert f"on {most} workers" in result.stdout
    assert f"note     1000 workers asked for; this machine runs at most {most} (4 per core)" in result.stdout


@pytest.mark.slow
def test_a_second_runner_of_a_running_job_is_refused(tmp_path):
    archive = tmp_path / "archive.sqlite"
    job = start("search", job_file(tmp_path, deals=0, chunk=100_000), "--archive", archive, "--quiet")
    name = wait_for_chunks(archive, 1, job)
    try:
        second = beggar("search", "--resume", name, "--archive", archive, "--quiet", "--time", 5)
        fault(second, f"beggar search: {archive}: job {name} is running in another process")
    finally:
        job.send_signal(signal.SIGINT)
        job.communicate(timeout=60)
    assert job.returncode == 130
    # Once it has stopped, the job is free to resume.
    resumed = beggar("search", "--resume", name, "--archive", archive, "--quiet", "--time", 1)
    assert resumed.returncode == 0, resumed.stderr


def test_a_rolled_back_chunk_is_not_counted(tmp_path):
    deal = Deal.parse(CASELLA)
    spec = jobs.check({})
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.add_job("j", spec)
        # The disk fills as the second chunk is kept: its transaction rolls back.
        archive.db.execute("CREATE TRIGGER full BEFORE INSERT ON chunks WHEN (SELECT count(*) FROM chunks) >= 1 "
                           "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
        summary = Summary("j", "running", 1)
        keep(archive, "j", spec, ChunkResult(0, 1000, [(deal, play(deal))], None, seconds=0.1), summary)
        other = Deal.shuffled(2, 1, 5)
        with pytest.raises(SearchError, match="cannot keep chunk 1: .*the disk is full"):
            keep(archive, "j", spec, ChunkResult(1, 1000, [(other, play(other))], None, seconds=0.1), summary)
        assert (summary.kept, summary.loops, summary.deals) == (1, 1, 1000) == \
            (len(archive.games()), len(archive.games(status="loop")), archive.job("j")["deals"])


FULL_DISK = """
mount -t tmpfs -o size=256k none "$1" || exit 99
shift
"$@"
echo "exit $?"
"""


@pytest.mark.slow
def test_after_a_full_disk_the_summary_counts_what_the_archive_holds(tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["unshare", "-m", "sh", "-c", 'mount -t tmpfs none "$1"', "sh", str(disk)],
                      capture_output=True).returncode != 0:
        pytest.skip("no mount namespace here to make a small disk")
    archive = disk / "archive.sqlite"
    count = (f"import sqlite3; db = sqlite3.connect('{archive}'); "
             "print('held', db.execute('SELECT count(*) FROM games').fetchone()[0])")
    script = FULL_DISK + f'{sys.executable} -c "{count}"\n'
    spec = job_file(tmp_path, deals=2_000_000, chunk=5_000, min_cards=1000)
    result = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(disk),
                             *_command(["search", spec, "--archive", archive, "--quiet"])],
                            capture_output=True, text=True, timeout=300)
    assert "exit 3\n" in result.stdout, result
    last_line(subprocess.CompletedProcess([], 3, "", result.stderr), "the disk is full")
    kept_line = next(line for line in result.stdout.splitlines() if line.startswith("hits"))
    held = int(result.stdout.split("held ")[1])
    assert held > 0 and kept_line.startswith(f"hits     {held} kept in "), result.stdout


def test_a_census_budget_is_bounded_by_its_deck_not_by_10_18():
    spec = jobs.check({"driver": "census"})            # every arrangement of the standard deck
    assert spec["deals"] > 10 ** 18
    with pytest.raises(jobs.JobError, match="'deals' must be a whole number from 0 to 10\\*\\*18"):
        jobs.check({"deals": spec["deals"]})


def test_keeping_a_chunk_marks_the_job_updated(tmp_path):
    spec = jobs.check({})
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.add_job("j", spec)
        archive.db.execute("UPDATE jobs SET updated = 'long ago'")
        keep(archive, "j", spec, ChunkResult(0, 1000, [], None, seconds=0.1), Summary("j", "running", 1))
        assert archive.job("j")["updated"] != "long ago"


def test_search_help_names_every_driver_and_its_options_table():
    from beggar.search import drivers
    text = " ".join(beggar("search", "--help").stdout.split())
    for driver in drivers.ALL:
        assert re.search(rf"\b{driver.name}\b", text.split("driver (")[1].split(")")[0]), driver.name
        if driver.options:
            assert f"[{driver.options}]" in text


#: Jobs refused once the archive is open (what they start from is read from it).
REFUSED = {
    "hunt": ('driver = "hunt"\ndeck = "6 2J 2Q 1K"\n', "no full loop of the 6 2J 2Q 1K deck to hunt from"),
    "perturb": ('driver = "perturb"\ndeck = "6 2J 2Q 1K"\n', "no full loop of the 6 2J 2Q 1K deck to perturb"),
    "eliminate": ('driver = "eliminate"\ndeck = "6 2J 2Q 1K"\nplayers = 3\n',
                  "no loop of the 6 2J 2Q 1K deck to search back from"),
    "bad file": ('driver = "hunt"\ndeck = "6 2J 2Q 1K"\nchunk = -1\n', "chunk"),
}


@pytest.mark.parametrize("kind", REFUSED)
def test_a_refused_job_leaves_no_archive_behind(tmp_path, kind):
    """A hunt on a deck with no loop was refused in one line, and left a new,
    empty archive (and the folders made for it) behind."""
    from beggar.archive import Archive
    text, told = REFUSED[kind]
    job = tmp_path / "job.toml"
    job.write_text(text)
    bad_input(in_process("search", job, "--archive", tmp_path / "new" / "deeper" / "a.sqlite"), told)
    assert sorted(os.listdir(tmp_path)) == ["job.toml"]
    # An archive that was there, empty, stays as it was: only one the refused job created goes.
    Archive(tmp_path / "there.sqlite").close()
    bad_input(in_process("search", job, "--archive", tmp_path / "there.sqlite"), told)
    assert sorted(os.listdir(tmp_path)) == ["job.toml", "there.sqlite"]


def test_a_relative_archive_is_named_with_the_folder_it_lies_in(tmp_path, monkeypatch):
    """Paths were printed relative (results/archive.sqlite) with no hint of the folder."""
    from beggar.archive import Archive
    from beggar.cli.search import located
    monkeypatch.chdir(tmp_path)
    # The job's first line names its archive so.
    assert located("results/a.sqlite") == f"results/a.sqlite (in {tmp_path})"
    assert located(tmp_path / "b.sqlite") == str(tmp_path / "b.sqlite")
    with Archive(tmp_path / "a.sqlite"):
        pass
    made = in_process("archive", "report", "r.html", "--archive", "a.sqlite", cwd=tmp_path)
    assert made.stdout.startswith("report written to r.html (") and \
        made.stdout.endswith(f"one page: open {(tmp_path / 'r.html').as_uri()} in a browser)\n"), made.stdout


def test_the_engine_is_chosen_once_and_stored_as_its_name(monkeypatch):
    # The spec carries the engine resolved (engine.Choice), an older name as
    # its own; the archive keeps the name, and a stored spec is resolved again.
    from beggar.engine import Choice
    monkeypatch.delenv("BEGGAR_ENGINE", raising=False)
    spec = jobs.check({"driver": "sample", "engine": "gpu", "deals": 1000})
    assert isinstance(spec["engine"], Choice) and spec["engine"] == "cuda"
    assert (spec["engine"].gpu, spec["engine"].on_device, spec["engine"].cpu) == (True, True, "compiled")
    assert json.loads(json.dumps(spec))["engine"] == "cuda"
    again = jobs.stored(json.loads(json.dumps({**spec, "engine": "gpu"})))
    assert isinstance(again["engine"], Choice) and again["engine"] == "cuda" and again["engine"].kind.name == "cuda"
    host = jobs.check({"driver": "sample", "engine": "gpu-host", "deals": 1000})["engine"]
    assert (host.gpu, host.on_device, host.cpu) == (True, False, "compiled")
    assert jobs.check({"driver": "sample", "deals": 1000})["engine"].cpu == "compiled"


def test_the_resume_command_runs_as_printed_for_an_archive_whose_path_has_a_space(tmp_path):
    archive = tmp_path / "my results" / "a.sqlite"
    stopped = beggar("search", job_file(tmp_path, deals=0), "--archive", archive, "--time", 1, "--workers", 1)
    assert stopped.returncode == 0, stopped.stderr
    command = next(line.split(None, 1)[1] for line in stopped.stdout.splitlines() if line.startswith("resume "))
    words = shlex.split(command)
    assert words[:2] == ["beggar", "search"] and str(archive) in words
    resumed = beggar(*words[1:], "--time", 1, "--workers", 1, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert f"job      {job_id(stopped.stdout)}: stopped (time limit of 1 s)" in resumed.stdout
    assert "deals in this run" not in stopped.stdout and " in this run " in resumed.stdout
