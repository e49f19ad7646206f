"""Every command, given random junk arguments and files, ends with one of its
exit statuses (0, 1, 2 or 3) and never prints a traceback.

A property test with plain `random` and a fixed seed: the same cases every run,
each the real command in a subprocess."""

import json
import random
import sqlite3

import pytest

from helpers import CASELLA, MANN_WU, beggar

COMMANDS = (("play",), ("verify",), ("replay",), ("family",), ("basin",), ("search",), ("census",),
            ("archive", "list"), ("archive", "show"), ("archive", "export"), ("archive", "census"), ("stats",))

OPTIONS = ("--max-cards", "--max-tricks", "--seed", "--index", "--players", "--split", "--deck", "--engine",
           "--json", "--trace", "--time", "--workers", "--deals", "--min-cards", "--resume", "--limit",
           "--max-states", "--max-seconds", "--loops", "--records", "--disputed", "--job", "--text", "--quiet",
           "--archive", "--export", "--first", "--count", "--top", "--chunk", "--plot", "--tail-from", "--extend-cards", "--bogus", "-x",
           "--")

NUMBERS = ("0", "1", "2", "3", "5", "-1", "-0", "007", "2.5", "1e300", "inf", "-inf", "nan", "0x10", "1_000",
           str(2 ** 62), str(2 ** 63), str(2 ** 64), str(10 ** 30), "9" * 5000, "", " ", "١٢")

WORDS = ("standard", "camicia", "half", "18 2J 2Q 2K 2A", "999J", "even", "random", "compiled", "reference",
         "K-/-K", "///", "-", "J-/-J/--/-/-", CASELLA, MANN_WU, "A" * 300, "é\u202e", "--", "a b", "%s%n",
         "../" * 20)


def junk_files(folder):
    """Files of every odd kind, by name."""
    rng = random.Random(7)
    files = {
        "bytes.bin": bytes(rng.randrange(256) for _ in range(4000)),
        "bom.txt": b"\xef\xbb\xbf" + MANN_WU.encode(),
        "empty.txt": b"",
        "deep.json": b"[" * 50_000 + b"]" * 50_000,
        "bigint.json": b'{"deal": "J-/-J", "expected": {"status": "loop", "cards": ' + b"7" * 5001 + b', "tricks": 1}}',
        "list.json": json.dumps([{"deal": CASELLA}, {"deal": 3}, None]).encode(),
        "game.json": json.dumps({"deal": MANN_WU, "rules": {"max_cards": 10 ** 19}}).encode(),
        "hands.txt": (CASELLA.replace("/", "\n") + "\n").encode(),
        "job.toml": b"deals = 20000\nchunk = 1000000000\nworkers = 1000\nmin_cards = 1\n",
        "bad.toml": b"\xff\xfe[climb\n",
        "corrupt.sqlite": b"SQLite format 3\x00" + bytes(rng.randrange(256) for _ in range(8000)),
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    foreign = folder / "foreign.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("PRAGMA application_id = 1111971666")
        db.execute("CREATE TABLE games (x)")
    (folder / "dir").mkdir()
    return [str(folder / name) for name in [*files, "foreign.sqlite", "dir", "missing.txt"]]


def junk_arguments(rng, commands, files):
    command = list(rng.choice(commands))
    args = []
    for _ in range(rng.randrange(5)):
        kind = rng.random()
        if kind < 0.45:
            args.append(rng.choice(OPTIONS))
            args.append(rng.choice(NUMBERS + WORDS + tuple(files)))
        elif kind < 0.65:
            args.append(rng.choice(files))
        elif kind < 0.8:
            args.append(rng.choice(NUMBERS))
        else:
            args.append(rng.choice(WORDS))
    return command + args


def _junk_runs(tmp_path, monkeypatch, cases, commands):
    """`cases` seeded junk runs of `commands`: each ends with 0-3, never a traceback."""
    monkeypatch.chdir(tmp_path)         # a command that names no archive makes its default one here
    files = junk_files(tmp_path)
    archive = str(tmp_path / "archive.sqlite")
    rng = random.Random(2024)
    for _ in range(cases):
        args = junk_arguments(rng, commands, files)
        # Bounds last (argparse keeps the last of an option): every case ends soon.
        if args[0] in ("search", "census"):
            args += ["--time", "1", "--archive", archive]
        elif args[0] in ("archive", "stats"):
            args += ["--archive", rng.choice([archive, *files])]
        elif args[0] in ("family", "basin"):
            args += ["--max-seconds", "2", "--max-states", "200000"]
        stdin = rng.choice([None, "", MANN_WU, "\x00\x01\xff junk", "[" * 1000])
        result = beggar(*args, stdin=stdin, env={"BEGGAR_LOCK_SECONDS": "1"})
        assert result.returncode in (0, 1, 2, 3), (args, result)
        assert "Traceback" not in result.stderr, (args, result.stderr)


@pytest.mark.slow
def test_junk_never_makes_a_traceback_of_a_command_that_plays_no_job(tmp_path, monkeypatch):
    _junk_runs(tmp_path, monkeypatch, 10, [command for command in COMMANDS
                                           if command[0] not in ("search", "census", "family", "basin")])


@pytest.mark.slow
def test_junk_never_makes_a_traceback(tmp_path, monkeypatch):
    # A fixed number of cases, however fast the machine: a search case takes
    # 2 s or more (its --time 1, then its chunks cut off a second later).
    _junk_runs(tmp_path, monkeypatch, 50, COMMANDS)
