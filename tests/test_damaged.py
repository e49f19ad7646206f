"""The damaged-archive battery: every column of every table set to a value of
the wrong type, one out of range and an empty one (and the JSON fields the
readers read edited the same ways), then every command that reads an
archive run on it. Each ends with exit 0 (what it read was not damaged) or
3 with one line naming the archive: never a traceback, a hang or a signal;
and every damage that makes no sense is told by one command at least.

The default run takes a seeded sample of the cases, run in this process
(helpers.in_process), and a few as subprocesses; `-m slow` sweeps them all."""

import random
import shutil
import sqlite3
from contextlib import closing

import pytest

from helpers import beggar, in_process, job_id

# The archive's columns, and what each is damaged to: (type, range, empty).
# A value None is a column's NULL, which is valid where the column may be
# NULL; a TEXT column takes a number as text, so its wrong type is a blob.
BLOB = "X'0102'"
LONG = "'" + "x" * 2000 + "'"
COLUMNS = {
    "games": {
        "deal": ("X'0102'", "'KKKKK/Q'", "''"),
        "rules": ("'[1]'", """'{"max_cards": "x"}'""", "''"),
        "status": (BLOB, "'won'", "''"),
        "winner": ("'x'", "-1", "NULL"),
        "cards": ("'x'", "-1", "''"),
        "tricks": ("'x'", "-1", "''"),
        "entry_tricks": ("'x'", "-1", "NULL"),
        "entry_cards": ("'x'", "-1", "NULL"),
        "period_tricks": ("'x'", "-1", "NULL"),
        "period_cards": ("'x'", "0", "NULL"),
        "compiled": ("'[]'", "'{}'", "''"),
        "reference": ("'[]'", "'{}'", "''"),
        "disputed": ("'x'", "2", "''"),
        "job": (BLOB, LONG, "''"),
        "driver": (BLOB, LONG, "''"),
        "seed": ("'x'", "-1", "NULL"),
        "chunk": ("'x'", "-1", "NULL"),
        "parent": ("'x'", "-1", "NULL"),
        "found_at": (BLOB, "'yesterday'", "''"),
        "deck": (BLOB, "'999 9J'", "''"),
        "players": ("'x'", "9", "''"),
        "split": ("'x'", "-1", "''"),
        "rank": (BLOB, "'-5'", "''"),
        "loop": (BLOB, "'zz'", "''"),
    },
    "loops": {
        "key": (BLOB, "'00'", "''"),
        "deck": (BLOB, "'999 9J'", "''"),
        "players": ("'x'", "1", "''"),
        "period_tricks": ("'x'", "-1", "''"),
        "period_cards": ("'x'", "-1", "''"),
        "states": ("'x'", "0", "''"),
        "balanced": ("'x'", "-1", "''"),
        "job": (BLOB, LONG, "''"),
        "driver": (BLOB, LONG, "''"),
        "chunk": ("'x'", "-1", "NULL"),
        "found_at": (BLOB, "'yesterday'", "''"),
        "basin_states": ("'x'", "-1", "NULL"),
        "basin_deals": ("'x'", "-1", "NULL"),
        "basin_stopped_by": (BLOB, "'luck'", "''"),
    },
    "jobs": {
        "spec": ("'[]'", "'{}'", "''"),
        "state": (BLOB, "'won'", "''"),
        "created": (BLOB, "'yesterday'", "''"),
        "updated": (BLOB, "'yesterday'", "''"),
    },
    "chunks": {
        "chunk": ("'x'", "-1", "''"),
        "deals": ("'x'", "-1", "''"),
        "hits": ("'x'", "-1", "''"),
        "best_cards": ("'x'", "-1", "''"),
        "seconds": ("'x'", "-1", "''"),
        "done_at": (BLOB, "'yesterday'", "''"),
        "stats": ("'[]'", "'{}'", "''"),
    },
}

# JSON fields within columns, edited in place (json_set), as the probes of
# the issue did: (table, column, path, values).
FIELDS = [
    ("games", "rules", "$.max_cards", ("'x'", "-1", "''")),
    ("games", "compiled", "$.cards", ("'x'", "-1", "json('null')")),
    ("games", "compiled", "$.counts", ("'x'", "json('[-1, 3]')", "json('[]')")),
    ("games", "compiled", "$.loop_period", ("'x'", """json('{"tricks": -1, "cards": 3}')""", "json('{}')")),
    ("jobs", "spec", "$.chunk", ("'x'", "-1", "json('null')")),
    ("jobs", "spec", "$.deck", ("1", "'999 9J'", "''")),
    ("jobs", "spec", "$.start", ("'abc'", "json('[\"zz\"]')", "json('[]')")),
    ("chunks", "stats", "$.lengths", ("'abc'", "json('[-1]')", "json('null')")),
    ("chunks", "stats", "$.statuses", ("'abc'", """json('{"finished": -3}')""", "json('null')")),
    ("chunks", "stats", "$.cards", ("'abc'", """json('{"x": 3}')""", "json('null')")),
    ("chunks", "stats", "$.loops", ("'abc'", """json('{"00": [1, 2, 3]}')""", "json('null')")),
    ("chunks", "stats", "$.longest", ("'abc'", "json('[1, 2, \"x\", \"1\"]')", "json('[]')")),
    ("chunks", "stats", "$.workers", ("'abc'", "0", "json('null')")),
    ("chunks", "stats", "$.hunt", ("'abc'", """json('{"from": -1}')""", "json('null')")),
]

#: Which rows a case damages: {table: [(name, WHERE clause)]}; {sample},
#: {census}, {eliminate}: the jobs' ids.
ROWS = {
    "games": [("the sample job's longest", "id = (SELECT id FROM games WHERE job = '{sample}' "
                                           "ORDER BY cards DESC LIMIT 1)"),
              ("a loop game", "id = (SELECT min(id) FROM games WHERE status = 'loop')")],
    "loops": [("loop 1", "id = 1")],
    "jobs": [(job, f"id = '{{{job}}}'") for job in ("sample", "census", "eliminate", "hunt")],
    "chunks": [(f"{job}'s chunk 0", f"job = '{{{job}}}' AND chunk = 0")
               for job in ("sample", "census", "eliminate", "hunt")],
}


def _cases():
    cases = []
    for table, columns in COLUMNS.items():
        for column, values in columns.items():
            for kind, value in zip(("type", "range", "empty"), values):
                for row, where in ROWS[table]:
                    cases.append((f"{table}.{column}={kind} ({row})", table, f"{column} = {value}", where))
    for table, column, path, values in FIELDS:
        for kind, value in zip(("type", "range", "empty"), values):
            for row, where in ROWS[table]:
                cases.append((f"{table}.{column}{path[1:]}={kind} ({row})", table,
                              f"{column} = json_set({column}, '{path}', {value})", where))
    cases.append(("jobs.spec.start removed (eliminate)", "jobs", "spec = json_remove(spec, '$.start')",
                  "id = '{eliminate}'"))
    return cases


CASES = _cases()
#: The sample the default run takes: the same every run.
SAMPLED = random.Random(27).sample(CASES, 3)

ELIMINATE = 'driver = "eliminate"\ndeck = "6 2J 2Q 1K"\nplayers = 3\nchunk = 20000\nworkers = 1\n'
HUNT = ('driver = "hunt"\ndeck = "6 2J 2Q 1K"\nseed = 1\ndeals = 20000\nchunk = 20000\nworkers = 1\n'
        'basin_states = 20000\n')


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """An archive with a census (games, loops, statistics with loops), a sample
    job (games, length histograms), an eliminate job (a start, deals of
    three players into its loops) and a hunt (a start, its records of loops
    added and seated): (path, {kind: job id})."""
    folder = tmp_path_factory.mktemp("whole")
    path = folder / "a.sqlite"
    job = folder / "eliminate.toml"
    job.write_text(ELIMINATE)
    hunt = folder / "hunt.toml"
    hunt.write_text(HUNT)
    ids = {}
    for kind, args in (("census", ("census", "6 2J 2Q 1K", "--workers", 1)),
                       ("sample", ("search", "--deals", 20_000, "--min-cards", 900, "--seed", 2, "--workers", 1)),
                       ("eliminate", ("search", job)), ("hunt", ("search", hunt))):
        result = beggar(*args, "--archive", path, "--quiet")
        assert result.returncode == 0, result.stderr
        ids[kind] = job_id(result.stdout + "\n" + result.stderr)
    return path, ids


def readers(path, ids, folder):
    """Every command that reads an archive, on the one at `path`."""
    out = folder / "out"
    return [("archive", "list", "--limit", "100000"), ("archive", "list", "--json", "--limit", "100000"),
            ("archive", "list", "--loops"), ("archive", "list", "--loops", "--json"),
            ("archive", "jobs"), ("archive", "jobs", "--json"),
            ("archive", "show", "1"), ("archive", "show", "--loop", "1"),
            ("archive", "export", "1", f"{out}.json"), ("archive", "export", "--loop", "1", f"{out}-loop.json"),
            ("archive", "report", f"{out}.html"), ("archive", "census", ids["census"]),
            ("stats", ids["sample"]), ("stats",),
            *(("search", "--resume", job) for job in ids.values()), ("search", "--resume", "last")]


def damage(whole, folder, table, change, where):
    """A copy of the archive with `change` made to the rows `where`; None when
    SQLite itself refuses the change (a NOT NULL or a primary key)."""
    path = folder / "damaged.sqlite"
    shutil.copy(whole[0], path)
    with closing(sqlite3.connect(path)) as db:
        try:
            cursor = db.execute(f"UPDATE {table} SET {change} WHERE {where.format(**whole[1])}")
        except sqlite3.Error:
            return None
        assert cursor.rowcount == 1, (change, where)
        db.commit()
    return path


#: What no command reads, so that no command can tell it is damaged: when
#: a chunk was kept, and what an eliminate chunk's search reached (its
#: record's figures, which are read, are checked).
UNREAD = ("chunks.done_at", "eliminate's chunk 0")


def valid(name, change):
    """Whether a change leaves a value the column may hold: NULL where it may be
    NULL (a game kept by hand has no job; a loop no basin search yet; a loop
    game has no winner, a finished one no loop entry or period); or one no
    command reads."""
    if any(part in name for part in UNREAD):
        return True
    if not change.endswith("= NULL"):
        return False
    if change.startswith("winner"):
        return "loop game" in name
    if change.startswith(("entry", "period")):
        return "longest" in name
    return True


def run_case(whole, folder, case):
    name, table, change, where = case
    path = damage(whole, folder, table, change, where)
    if path is None:
        return
    told = []
    for args in readers(path, whole[1], folder):
        done = in_process(*args, "--archive", path)
        status, err = done.returncode, done.stderr
        lines = err.strip().splitlines()
        if status == 3:
            # One line of error (a resume of the last job says which it is first).
            errors = [line for line in lines if line.startswith("beggar ")]
            assert errors == lines[-1:] and str(path) in errors[0] and "Traceback" not in err, (name, args, err)
            told.append(args)
        else:
            assert status == 0, (name, args, status, err)
    assert told or valid(name, change), f"{name}: no command noticed {change}"


@pytest.mark.parametrize("case", SAMPLED, ids=[case[0] for case in SAMPLED])
def test_a_sample_of_damaged_archives_is_one_line_or_read_whole(whole, tmp_path, case):
    run_case(whole, tmp_path, case)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_every_damaged_archive_is_one_line_or_read_whole(whole, tmp_path, case):
    run_case(whole, tmp_path, case)


@pytest.mark.parametrize("change, args, told", [
    # The probes of the issue, as the command runs them (the default run takes three).
    ("UPDATE loops SET key = '00' WHERE id = 1", ("archive", "export", "--loop", "1", "{folder}/x.json"),
     "loop 1: its key '00' holds 1 hand"),
    pytest.param("UPDATE loops SET key = 'zz' WHERE id = 1", ("archive", "show", "--loop", "1"),
                 "loop 1: its key is 'zz'", marks=pytest.mark.slow),
    # A key names the players still in: one with the empty hand of a player out is none (since format 6).
    pytest.param("UPDATE loops SET key = key || '00', players = 3 WHERE id = 1", ("archive", "show", "--loop", "1"),
                 "its hand 3 is empty, where a key holds the hands of the players still in", marks=pytest.mark.slow),
    pytest.param("UPDATE loops SET period_tricks = -1 WHERE id = 1", ("archive", "report", "{folder}/r.html"),
                 "loop 1: its period_tricks holds -1", marks=pytest.mark.slow),
    ("UPDATE games SET deal = 'KK/' WHERE id = 1", ("archive", "show", "1"), "game 1 holds no deal"),
    # A period that is not its key's (edited to 10^18, show --loop would trace it for ever).
    pytest.param("UPDATE loops SET period_cards = period_cards + 1 WHERE id = 1", ("archive", "show", "--loop", "1"),
                 "loop 1: its row says period", marks=pytest.mark.slow),
    ("UPDATE jobs SET spec = json_set(spec, '$.start', json('[\"zz\"]')) WHERE id = '{eliminate}'",
     ("search", "--resume", "{eliminate}"), "its start loop 0: the key is 'zz'"),
    pytest.param("UPDATE chunks SET stats = json_set(stats, '$.lengths', 'abc') WHERE job = '{sample}'",
                 ("stats", "{sample}"), "'lengths' holds 'abc'", marks=pytest.mark.slow),
    # A parent naming the game itself was shown and exported as its own (exit 0); one naming a
    # missing game was shown (exit 0) and made export say "no game with id 999999" (exit 2).
    ("UPDATE games SET parent = id WHERE id = 1", ("archive", "show", "1"),
     "game 1: its parent names the game itself"),
    pytest.param("UPDATE games SET parent = id WHERE id = 1", ("archive", "export", "1", "{folder}/x.json"),
                 "game 1: its parent names the game itself", marks=pytest.mark.slow),
    pytest.param("UPDATE games SET parent = 1 WHERE id = 2; DELETE FROM games WHERE id = 1", ("archive", "show", "2"),
                 "game 2: its parent names game 1, which the archive does not hold", marks=pytest.mark.slow),
    ("UPDATE games SET parent = 1 WHERE id = 2; DELETE FROM games WHERE id = 1",
     ("archive", "export", "2", "{folder}/x.json"), "game 2: its parent names game 1, which the archive does not hold"),
    # A parent the archive does not hold was printed by list --json, exit 0; a parent of a later id,
    # or two games each the other's, read as sound.
    ("UPDATE games SET parent = 1 WHERE id = 2; DELETE FROM games WHERE id = 1", ("archive", "list", "--json", "--limit", "1000"),
     "game 2: its parent names game 1, which the archive does not hold"),
    ("UPDATE games SET parent = 999999 WHERE id = 1", ("archive", "show", "1"),
     "game 1: its parent names game 999999, not one kept before it"),
    ("UPDATE games SET parent = CASE id WHEN 1 THEN 2 ELSE 1 END WHERE id IN (1, 2)", ("archive", "list", "--limit", "1000"),
     "game 1: its parent names game 2, not one kept before it"),
])
def test_the_issue_s_probes_are_one_line_as_a_command(whole, tmp_path, change, args, told):
    path = tmp_path / "damaged.sqlite"
    shutil.copy(whole[0], path)
    with closing(sqlite3.connect(path)) as db:
        db.executescript(change.format(**whole[1]))
    result = beggar(*(word.format(folder=tmp_path, **whole[1]) for word in args), "--archive", path)
    assert result.returncode == 3 and result.stderr.count("\n") == 1, result
    assert str(path) in result.stderr and told in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_a_new_eliminate_job_on_a_damaged_loop_is_refused_before_it_starts(whole, tmp_path):
    """Its worker used to crash on the key, and every resume again."""
    path = tmp_path / "damaged.sqlite"
    shutil.copy(whole[0], path)
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE loops SET key = '00' WHERE id = 1")
        db.commit()
        jobs = db.execute("SELECT count(*) FROM jobs").fetchone()[0]
    job = tmp_path / "eliminate.toml"
    job.write_text(ELIMINATE)
    result = beggar("search", job, "--archive", path)
    assert result.returncode == 3 and "loop 1: its key '00'" in result.stderr, result
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT count(*) FROM jobs").fetchone()[0] == jobs     # nothing stored


@pytest.mark.slow
def test_a_report_reads_only_the_games_it_shows(whole, tmp_path):
    """A report read every finished game (510,000 games: 120 s, 1.97 GB for a
    page of 30 KiB). The games it does not show are never read: a short game
    damaged leaves the page as it was, where a listing of every game tells."""
    path = tmp_path / "damaged.sqlite"
    shutil.copy(whole[0], path)
    before = tmp_path / "before.html"
    assert beggar("archive", "report", before, "--archive", path).returncode == 0
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE games SET compiled = 'nonsense' WHERE id = (SELECT id FROM games WHERE job = ? AND "
                   "status = 'finished' ORDER BY cards LIMIT 1)", (whole[1]["sample"],))
        db.commit()
    after = tmp_path / "after.html"
    result = beggar("archive", "report", after, "--archive", path)
    assert result.returncode == 0, result.stderr

    def page(file):
        return [line for line in file.read_text().splitlines() if "Written " not in line]
    assert page(after) == page(before)
    assert beggar("archive", "list", "--limit", 100_000, "--archive", path).returncode == 3


def test_the_longest_games_of_each_table_are_those_a_full_read_gives(whole):
    from beggar.archive import Archive
    with Archive(whole[0], readonly=True) as archive:
        chosen = archive.longest_by_table(per_table=3)
        tables = {}
        for game in archive.games(status="finished", loops_first=False):
            sizes = "/".join(str(len(hand)) for hand in game["deal"].split("/"))
            tables.setdefault((game["deck"], game["players"], sizes), [])
            if len(tables[(game["deck"], game["players"], sizes)]) < 3:
                tables[(game["deck"], game["players"], sizes)].append(game["id"])
    assert [game["id"] for game in chosen] == [i for _, ids in sorted(
        tables.items(), key=lambda item: -max(g["cards"] for g in chosen if g["id"] == item[1][0])) for i in ids]
    assert len(tables) >= 2


def test_archive_list_loops_json_prints_json(whole):
    import json
    result = beggar("archive", "list", "--loops", "--json", "--limit", 2, "--archive", whole[0])
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    assert listed["shown"] == 2 and listed["total"] > 2 and len(listed["loops"]) == 2
    assert {"id", "key", "deck", "players", "period_tricks", "period_cards", "games"} <= set(listed["loops"][0])


def test_an_export_whose_job_record_is_damaged_is_refused_not_written_without_it(whole, tmp_path):
    """The export said nothing and left chunk_size out of the provenance."""
    path = tmp_path / "damaged.sqlite"
    shutil.copy(whole[0], path)
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE jobs SET spec = json_set(spec, '$.chunk', 'x') WHERE id = ?", (whole[1]["census"],))
        db.commit()
    out = tmp_path / "game.json"
    result = beggar("archive", "export", 1, out, "--archive", path)
    assert result.returncode == 3 and "its chunk holds 'x'" in result.stderr and str(path) in result.stderr, result
    assert not out.exists()
