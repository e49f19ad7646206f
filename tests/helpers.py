"""Helpers shared by several test modules: the command as a subprocess, search
job files and archive probes, the well-known deals and the shipped data."""

import json
import os
import random
import sqlite3
import shutil
import subprocess
import sys
import sysconfig
import time
from contextlib import closing
from importlib import resources
from pathlib import Path

import pytest

from beggar.archive import Archive

CASELLA = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"
MANN_WU = "K-KK----K-A-----JAA--Q--J-/---Q---Q-J-----J------AQ--"
SCRIPT = Path(sys.executable).with_name("beggar")
#: The deck of the census job conftest.py's census_run runs once: 47,520 deals, 84 loop deals, into 5 loops.
CENSUS_DECK = "7 2J 1Q 1K 1A"

# Small chunks, so that a job of a few seconds has many of them.
JOB = """
name = "{name}"
driver = "{driver}"
seed = {seed}
workers = 2
min_cards = {min_cards}
deals = {deals}
chunk = {chunk}
"""


def c_compiler():
    """The C compiler Python's own build names (or cc), for the tests that
    build kernel.cu for the host themselves; a skip where there is none."""
    compiler = shutil.which((sysconfig.get_config_var("CC") or "cc").split()[0]) or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler to build kernel.cu with")
    return compiler


def known_loops(deck):
    """The two-player loops of `deck` known before any search (published and
    shipped with beggar, at any table), by their canonical states: those a
    perturb or hunt job of the deck starts from in an empty archive."""
    from beggar import finds
    from beggar.cycle import key_hands
    return sorted(key for key in finds.known_loops(deck) if len(key_hands(key)) == 2)


def load_data(name):
    """A JSON file shipped in beggar/data."""
    return json.loads(resources.files("beggar").joinpath("data", name).read_text())


def _command(args):
    """The installed `beggar` script (python -m beggar where it is not installed) with `args`."""
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "beggar"]
    return command + [str(a) for a in args]


def beggar(*args, stdin=None, env=None, cwd=None, merged=False, timeout=120):
    """Run the `beggar` command to its end (in folder `cwd`): the CompletedProcess,
    output as text. `env`: variables to set for it, on top of this process's
    environment. `merged`: standard error into the output, in the order written.
    `timeout`: seconds before it is killed and the test fails."""
    environ = None if env is None else {**os.environ, **env}
    if merged:
        environ = {**(environ or os.environ), "PYTHONUNBUFFERED": "1"}
    return subprocess.run(_command(args), input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if merged else subprocess.PIPE, text=True, timeout=timeout,
                          env=environ, cwd=cwd)


def in_process(*args, cwd=None):
    """The `beggar` command run in this process (quicker than a subprocess where
    nothing of it needs one: no interpreter to start, beggar imported once), in
    folder `cwd`: a CompletedProcess, output as text. Anything it raises (a
    traceback) fails the test that ran it."""
    import contextlib
    import io
    from beggar.cli import main
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main([str(word) for word in args])
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


def start(*args):
    """Start the `beggar` command without waiting: the Popen, output piped as text."""
    return subprocess.Popen(_command(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def one_line(result, status, *fragments):
    """Exit `status`, one line on standard error holding every fragment, no
    traceback; returns the line."""
    assert result.returncode == status, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def bad_input(result, *fragments):
    """Exit status 2 (bad input) and one clear line (one_line)."""
    return one_line(result, 2, *fragments)


def fault(result, *fragments):
    """Exit status 3 (a fault of the machine or its files) and one clear line."""
    return one_line(result, 3, *fragments)


def job_file(tmp_path, name="t", driver="sample", seed=3, min_cards=1500, deals=600_000, chunk=20_000,
             extra=""):
    """A search job file `name`.toml in tmp_path, from JOB and the given fields, `extra` appended."""
    path = tmp_path / f"{name}.toml"
    path.write_text(JOB.format(name=name, driver=driver, seed=seed, min_cards=min_cards, deals=deals,
                               chunk=chunk) + extra)
    return path


def job_id(text):
    """The id of the job a search names in its output (the first line that starts with `job`)."""
    return next(line.split()[1].rstrip(":") for line in text.splitlines() if line.startswith("job "))


def wait_for_chunks(path, chunks, process=None, seconds=60):
    """The id of the job running on archive `path`, once it has kept `chunks` chunks;
    fails at once if `process` (the job's Popen) ends first. The archive is read
    through a read-only connection: opening it as an Archive takes the write lock,
    which a running job holds while it replays its hits."""
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.1)
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the job ended (exit {process.returncode}) before keeping "
                                 f"{chunks} chunks: {process.stderr.read()}")
        try:
            with closing(sqlite3.connect(uri, uri=True)) as db:
                ids = db.execute("SELECT id FROM jobs").fetchall()
                if ids and db.execute("SELECT count(*) FROM chunks WHERE job = ?",
                                      ids[0]).fetchone()[0] >= chunks:
                    return ids[0][0]
        except sqlite3.OperationalError:
            pass        # the job has yet to create the archive
    raise AssertionError(f"no job kept {chunks} chunks in {seconds} s")


def kept(path, job=None):
    """{deal: compiled outcome} of the games an archive holds (for one job)."""
    with Archive(path) as archive:
        return {game["deal"]: game["compiled"] for game in archive.games(job=job)}


def long_deal(tricks=30_000):
    """A four-player deal of 1,000 cards whose game lasts at least `tricks`
    tricks (the first such of a seeded stream): far longer than any deck of 52."""
    from beggar import Deal, play
    rng = random.Random(1)
    while True:
        deck = [0] * 692 + [1, 2, 3, 4] * 77
        rng.shuffle(deck)
        deal = Deal.from_codes([deck[250 * k:250 * (k + 1)] for k in range(4)])
        if play(deal).tricks >= tricks:
            return deal


def done_chunks(archive, job_id):
    """The numbers of the chunks of job `job_id` that are done."""
    return {chunk for chunk, _ in archive.chunks_kept(job_id)}
