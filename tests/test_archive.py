"""The archive (src/beggar/archive/) as several processes see it at once:
the formats it migrates (and the old jobs that resume), its faults, the
claim of a running job (the archive file's, whatever name it is reached by,
never through a link planted in its place), and `beggar archive list` (the
deck and hands of each game, how many are shown, --status and --json, the
long games first)."""

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from beggar import Deal, Rules, loops, play
from beggar.archive import APPLICATION_ID, SCHEMA_VERSION, Archive, ArchiveFault
from beggar.cycle import key_hands
from helpers import (_command, bad_input, beggar, done_chunks, fault, in_process, job_file, job_id, start,
                     wait_for_chunks)

# Each process waits for the same moment, then opens the archive: whoever comes
# first creates it, the others must find it whole.
OPEN_AT = """
import sys, time
from beggar.archive import Archive
at = float(sys.argv[2])
time.sleep(max(0.0, at - time.time()))
Archive(sys.argv[1]).close()
"""


@pytest.mark.slow
def test_processes_creating_one_archive_at_once_all_succeed(tmp_path):
    for attempt in range(5):
        path = tmp_path / f"archive{attempt}.sqlite"
        at = time.time() + 1.5      # after every interpreter has started
        jobs = [subprocess.Popen([sys.executable, "-c", OPEN_AT, str(path), str(at)],
                                 stderr=subprocess.PIPE, text=True) for _ in range(6)]
        errors = [job.communicate(timeout=60)[1] for job in jobs]
        assert all(job.returncode == 0 for job in jobs), errors
        with Archive(str(path)) as archive:
            assert archive.db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
            assert archive.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def _copy_of(fixture, tmp_path, version, *queries):
    """A copy of the test archive `fixture` (of format `version`) to open, and
    what each of `queries` reads from it before any open, as lists of dicts."""
    path = tmp_path / "old.sqlite"
    shutil.copy(fixture, path)
    with closing(sqlite3.connect(path)) as old:
        assert old.execute("PRAGMA user_version").fetchone()[0] == version
        old.row_factory = sqlite3.Row
        return (path, *([dict(row) for row in old.execute(query)] for query in queries))


V1_ARCHIVE = Path(__file__).with_name("data") / "archive-v1.sqlite"


def test_an_archive_of_format_1_is_migrated_and_keeps_working(tmp_path):
    """tests/data/archive-v1.sqlite was written by beggar 0.1.0 (format 1): a
    sample job of 40,000 26/26 deals, seed 4, with family extension."""
    path = tmp_path / "old.sqlite"
    shutil.copy(V1_ARCHIVE, path)
    with sqlite3.connect(path) as old:
        before = old.execute("SELECT id, deal, cards, job FROM games ORDER BY id").fetchall()
        jobs = old.execute("SELECT id, spec FROM jobs").fetchall()
    assert before and len(jobs) == 1
    with Archive(str(path), link_loop=loops.of_deal) as archive:
        assert archive.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        games = archive.games()
        assert sorted((g["id"], g["deal"], g["cards"], g["job"]) for g in games) == before
        assert {(g["deck"], g["players"], g["split"]) for g in games} == {("standard", 2, 26)}
        assert len(archive.games(deck="standard", players=2)) == len(before)
        assert archive.games(deck="camicia") == [] and archive.games(players=3) == []
        job = archive.job(jobs[0][0])
        assert job["spec"] == json.loads(jobs[0][1]) and job["chunks"] == 2
        # The old job resumes (it is done) and new games go in beside the old ones.
        deal = Deal.shuffled(3, 1, 0)
        outcome = play(deal)
        with archive.transaction():
            game_id, new = archive.add_game(deal, Rules(), outcome, outcome)
        assert new and archive.game(game_id)["players"] == 3
    with Archive(str(path)) as again:        # a second open migrates nothing more
        assert len(again.games()) == len(before) + 1
        assert again.loops() == []


V3_ARCHIVE = Path(__file__).with_name("data") / "archive-v3.sqlite"


def test_an_archive_of_format_3_gains_its_loops(tmp_path):
    """tests/data/archive-v3.sqlite was written by the format-3 archive code:
    job sample-old kept Casella's loop as a sample hit (no canonical state, as
    samples kept loops then), the Carmicia loop as a census does (with its
    canonical state) and the 2007 record."""
    path = tmp_path / "old.sqlite"
    shutil.copy(V3_ARCHIVE, path)
    with sqlite3.connect(path) as old:
        before = old.execute("SELECT id, deal, status, cards, job FROM games ORDER BY id").fetchall()
        assert old.execute("PRAGMA user_version").fetchone()[0] == 3
    with Archive(str(path), link_loop=loops.of_deal) as archive:
        assert archive.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        games = archive.games()
        assert sorted((g["id"], g["deal"], g["status"], g["cards"], g["job"]) for g in games) == before
        kept = {row["deck"]: row for row in archive.loops()}
        assert sorted(kept) == ["camicia", "standard"]
        for game in archive.games(status="loop"):
            loop = loops.of_deal(Deal.parse(game["deal"]))
            row = kept[loop.deck]
            assert (game["loop"], row["key"]) == (loop.hex, loop.hex)
            assert (row["period_tricks"], row["period_cards"], row["states"]) == (*loop.period, len(loop.states))
            assert (row["job"], row["driver"], row["games"], row["basin_states"]) == \
                ("sample-old", game["driver"], 1, None)
        assert archive.game(3)["loop"] is None          # a finished game has no loop
    with Archive(str(path)) as again:
        assert len(again.loops()) == 2 and len(again.games()) == len(before)


V4_ARCHIVE = Path(__file__).with_name("data") / "archive-v4.sqlite"


@pytest.mark.parametrize("old", ["archive-v3.sqlite", "archive-v4.sqlite"])
def test_an_sqlite_too_old_to_rename_a_column_leaves_an_old_archive_as_it_was(tmp_path, monkeypatch, old):
    """Format 5 renames a column, which SQLite does from 3.25 on: under an
    older one, every older archive is refused in one line, untouched (this
    machine's SQLite is newer: the version the migration reads is set back)."""
    from beggar.archive import schema
    path = tmp_path / old
    shutil.copy(V1_ARCHIVE.with_name(old), path)
    before = path.read_bytes()
    monkeypatch.setattr(schema.sqlite3, "sqlite_version_info", (3, 24, 0))
    version = old[len("archive-v")]
    with pytest.raises(ArchiveFault, match=f"archive format {version}, to be brought to format {SCHEMA_VERSION}: "
                                           "that needs SQLite 3.25 or newer"):
        Archive(str(path), link_loop=loops.of_deal)
    assert path.read_bytes() == before


def _everything(archive):
    """What an open archive holds, as its methods give it."""
    jobs = [job for job, _ in archive.jobs()]
    return (archive.games(), archive.jobs(), archive.job_figures(), archive.loops(),
            [archive.loop(row["id"]) for row in archive.loops()], [archive.chunk_stats(job) for job in jobs],
            [sorted(done_chunks(archive, job)) for job in jobs])


@pytest.mark.slow
def test_an_archive_of_format_4_reads_the_same_read_only_and_migrated(tmp_path):
    """tests/data/archive-v4.sqlite was written by the format-4 archive code
    (beggar 0.1 of 2026-12-01): a sample job of 40,000 26/26 deals in chunks
    of 10,000 with family extension, a census of '6 2J 1Q 1K' with its loop
    deals, and a grow job of '10 2J' with its loops and their basins. Format 5
    names the games' column walk, which held the chunk, chunk."""
    path, games = _copy_of(V4_ARCHIVE, tmp_path, 4, "SELECT id, walk FROM games")
    walks = {row["id"]: row["walk"] for row in games}
    assert len(walks) == 41 and set(walks.values()) == {0, 1, 2}
    # Read only, it is read as it stands, under this format's names; nothing is written.
    listed = beggar("archive", "list", "--json", "--archive", path)
    listed_jobs = beggar("archive", "jobs", "--json", "--archive", path)
    assert listed.returncode == listed_jobs.returncode == 0, (listed.stderr, listed_jobs.stderr)
    with Archive(str(path), readonly=True) as archive:
        seen = _everything(archive)
    assert {game["id"]: game["chunk"] for game in seen[0]} == walks and "walk" not in seen[0][0]
    assert len(seen[1]) == 3 and len(seen[3]) == 3
    assert path.read_bytes() == V4_ARCHIVE.read_bytes()
    # Opened to be written, it is brought to this format and reads the same.
    with Archive(str(path)) as archive:
        assert archive.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
        assert _everything(archive) == seen
    assert beggar("archive", "list", "--json", "--archive", path).stdout == listed.stdout
    assert beggar("archive", "jobs", "--json", "--archive", path).stdout == listed_jobs.stdout
    assert '"walk": 2,' in listed.stdout        # the name `archive list --json` has always printed
    with Archive(str(path), readonly=True) as archive:
        assert _everything(archive) == seen


def test_an_old_archive_is_linked_to_its_loops_by_the_opener_or_not_migrated(tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copy(V3_ARCHIVE, path)
    with pytest.raises(ArchiveFault, match=f"archive format 3, to be brought to format {SCHEMA_VERSION}: open it "
                                           "once with a search"):
        Archive(str(path))
    with pytest.raises(ArchiveFault, match=f"archive format 3, to be brought to format {SCHEMA_VERSION}: open it "
                                           "once where it can be written"):
        Archive(str(path), readonly=True)
    with closing(sqlite3.connect(path)) as old:
        assert old.execute("PRAGMA user_version").fetchone()[0] == 3


V5_ARCHIVE = Path(__file__).with_name("data") / "archive-v5.sqlite"

#: The census jobs of archive-v5.sqlite and the loops each met: one of '6 2J 1Q 1A' at a table of 4, whose
#: 14 loop deals fall into one loop of two players (kept under three keys then, one for each pair of seats
#: left empty), and one of '7 3J 1Q' at 4, whose 7 fall into a loop of 3 players and one of 2.
V5_CENSUSES = {"census-6-2J-1Q-1A-20261203-161916-2ef8": {"loops": 1, "deals": 14},
               "census-7-3J-1Q-20261203-161921-b104": {"loops": 2, "deals": 7}}


def _players_loop(key):
    """The Loop of a key of format 5 or older: that of its players' hands."""
    return loops.of_deal(Deal.from_codes([hand for hand in key_hands(key) if hand]))


def test_an_archive_of_format_5_keeps_each_loop_once_named_by_its_players(tmp_path):
    """tests/data/archive-v5.sqlite was written by the format-5 archive code
    (beggar of 2026-12-03): the censuses of V5_CENSUSES, a grow job of '6 2J
    1Q 1A' that found the census's loop after it (its basin searched), a
    hunt of '16 2J' from one loop (kept by hand) that seated two new loops,
    whose deals of 3 and 4 players were kept under loops of their tables,
    and an eliminate job of '7 3J 1Q' at 4 that started from the census's
    loops under their keys then: 15 loop rows where there are 6 loops.
    Format 6 names a loop by its players, one row a loop: the earliest finder
    kept, and the basin searched."""
    from beggar.reports import tally
    from beggar.search import drivers
    from beggar.search.job import stored
    path, rows, games = _copy_of(V5_ARCHIVE, tmp_path, 5, "SELECT * FROM loops ORDER BY id", "SELECT * FROM games")
    games = {row["id"]: row for row in games}
    assert len(rows) == 15 and sum(not all(key_hands(row["key"])) for row in rows) == 11
    # Read only, it reads as it stands; nothing is written.
    with Archive(str(path), readonly=True) as archive:
        assert sorted(row["key"] for row in archive.loops()) == sorted(row["key"] for row in rows)
        assert len(archive.games()) == len(games)
        assert len(tally.tally(archive, "census-6-2J-1Q-1A-20261203-161916-2ef8").loops) == 3
    # An open to write that is not handed what plays its loops leaves it as it was.
    with pytest.raises(ArchiveFault, match=f"archive format 5, to be brought to format {SCHEMA_VERSION}: open it "
                                           "once with a search"):
        Archive(str(path))
    assert path.read_bytes() == V5_ARCHIVE.read_bytes()
    # The rows of each loop, by its players' key, and the row each becomes.
    by_loop = {}
    for row in rows:
        by_loop.setdefault((row["deck"], _players_loop(row["key"]).hex), []).append(row)
    assert len(by_loop) == 6 and max(len(named) for named in by_loop.values()) == 4
    with Archive(str(path), link_loop=loops.of_deal) as archive:
        assert archive.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
        now = {(row["deck"], row["key"]): row for row in archive.loops()}
        assert set(now) == set(by_loop)
        for (deck, key), named in by_loop.items():
            row, loop = now[(deck, key)], _players_loop(key)
            # The row of its players' key where there was one, else the first.
            assert row["id"] == next((r["id"] for r in named if r["key"] == key), named[0]["id"])
            assert (row["players"], row["states"], row["balanced"], row["period_tricks"], row["period_cards"]) == \
                (loop.players, len(loop.states), loop.balanced, *loop.period)
            first = min(named, key=lambda r: (r["found_at"], r["id"]))
            assert (row["job"], row["driver"], row["chunk"], row["found_at"]) == \
                (first["job"], first["driver"], first["chunk"], first["found_at"])
            searched = [r for r in named if r["basin_states"] is not None]
            assert len(searched) <= 1 and (row["basin_states"], row["basin_deals"], row["basin_stopped_by"]) == (
                (searched[0]["basin_states"], searched[0]["basin_deals"], searched[0]["basin_stopped_by"])
                if searched else (None, None, None))
            assert row["games"] == sum(1 for game in games.values() if game["loop"] in {r["key"] for r in named})
        # The grow job found the census's loop after it, with its basin: both are kept.
        merged = now[("6 2J 1Q 1A", _players_loop(rows[0]["key"]).hex)]
        assert merged["job"].startswith("census-6-2J") and merged["basin_deals"] == 14 and merged["games"] == 28
        assert {row["players"] for row in now.values()} == {2, 3}
        # Every game as it was, linked to its players' loop, which has a row.
        for game in archive.games():
            was = games[game["id"]]
            assert (game["deal"], game["status"], game["cards"], game["job"]) == \
                (was["deal"], was["status"], was["cards"], was["job"])
            if was["loop"] is None:
                assert game["loop"] is None
                continue
            assert game["loop"] == loops.of_deal(Deal.parse(game["deal"])).hex == _players_loop(was["loop"]).hex
            assert (game["deck"], game["loop"]) in now
        # A census counts its loops by their players too.
        for job, counted in V5_CENSUSES.items():
            result = tally.tally(archive, job)
            assert (len(result.loops), sum(deals for deals, _, _ in result.loops.values())) == \
                (counted["loops"], counted["deals"])
            assert all(all(key_hands(key)) for key in result.loops)
        hunt = "hunt-tiny-20261203-161927-c3ac"
        assert archive.job(hunt)["state"] == "done" and archive.chunk_records(hunt)
        # A job's start stays as it was given, and its searches find what they found.
        eliminate = "eliminate-7-20261203-163228-ce56"
        spec = stored(archive.job(eliminate)["spec"])
        assert all(not all(key_hands(key)) for key in spec["start"])
        driver = drivers.of(spec)
        found = {str(deal) for chunk in range(len(spec["start"])) for deal, _ in driver.play(spec, chunk).hits}
        assert found == {game["deal"] for game in archive.games(status="loop", deck="7 3J 1Q", players=4)}
        before = _everything(archive)
    with Archive(str(path), link_loop=loops.of_deal) as again:     # a second open migrates nothing more
        assert _everything(again) == before


V6_ARCHIVE = Path(__file__).with_name("data") / "archive-v6.sqlite"
V6_HUNT = "search-20261206-200923-0cb1"


def test_an_archive_of_format_6_keeps_every_seat_as_a_driver_row(tmp_path):
    """tests/data/archive-v6.sqlite was written by the format-6 archive code
    (2026-12-06): a hunt of '16 2J' (test_report.hunted) with six seats in
    the table seats. Format 7 names no driver: each seat is a driver row of
    the hunt, every column kept, and reads back the same, read only as it
    stands or migrated (which needs no game played)."""
    from beggar.archive import schema
    from beggar.search.drivers.hunt import seats
    path, kept = _copy_of(V6_ARCHIVE, tmp_path, 6, "SELECT * FROM seats ORDER BY rowid")
    assert len(kept) == 6 and {row["job"] for row in kept} == {V6_HUNT}
    assert {row["stopped_by"] for row in kept} == {None, "states"}
    with Archive(str(path), readonly=True) as archive:
        assert seats(archive, "16 2J", V6_HUNT) == kept
        seen = _everything(archive)
    assert path.read_bytes() == V6_ARCHIVE.read_bytes()
    with Archive(str(path)) as archive:
        assert archive.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
        assert sorted(schema.TABLES) == sorted(row[0] for row in archive.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"))
        assert seats(archive, "16 2J", V6_HUNT) == kept
        assert seats(archive, "16 2J", loop=kept[0]["loop"]) == [row for row in kept if row["loop"] == kept[0]["loop"]]
        assert _everything(archive) == seen
    # The hunt goes on from its seats as it would have: done, nothing searched again.
    again = beggar("search", "--resume", V6_HUNT, "--archive", path)
    assert again.returncode == 0 and "done (budget spent, every seat searched)" in again.stdout, again
    assert "walks    0 perturbations in this run" in again.stdout, again.stdout
    jobs_run = beggar("archive", "jobs", "--archive", path)
    assert jobs_run.returncode == 0 and "6 seats searched, 0 to search" in jobs_run.stdout, jobs_run.stdout


def test_a_format_6_seat_that_json_cannot_hold_leaves_the_archive_as_it_was(tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copy(V6_ARCHIVE, path)
    with closing(sqlite3.connect(path)) as db:
        with db:
            assert db.execute("UPDATE seats SET best = x'00' WHERE players = 3").rowcount == 2
    damaged = path.read_bytes()
    with pytest.raises(ArchiveFault, match=f"damaged: the seat of loop '.*' at 3 of job '{V6_HUNT}' holds a value"):
        Archive(str(path))
    assert path.read_bytes() == damaged


@pytest.mark.parametrize("damage, told", [
    ("UPDATE loops SET period_tricks = 7, states = 7 WHERE id = 10", "damaged: loop 10: its row says period 7 tricks"),
    ("UPDATE games SET loop = '0400000000' WHERE id = 60", "damaged: game 60: its loop key"),
    ("UPDATE chunks SET stats = replace(stats, '\"loops\":{\"04', '\"loops\":{\"05') WHERE job LIKE 'census-6%'",
     "damaged: the statistics of chunk 0 of job census-6-2J-1Q-1A-20261203-161916-2ef8: its loop key "
     "'0500000100000602000400010000' is no state of a loop (the game of --J--/Q-A-J- does not loop"),
])
def test_a_damaged_format_5_archive_is_left_as_it_was(tmp_path, damage, told):
    path = tmp_path / "old.sqlite"
    shutil.copy(V5_ARCHIVE, path)
    with closing(sqlite3.connect(path)) as db:
        with db:
            assert db.execute(damage).rowcount == 1
    damaged = path.read_bytes()
    with pytest.raises(ArchiveFault, match=re.escape(told)):
        Archive(str(path), link_loop=loops.of_deal)
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 5
    assert path.read_bytes() == damaged


def test_the_archive_stores_and_plays_no_game():
    """Of the package, the archive imports only cards, deal, decks, checks, errors,
    and the rules, outcomes and chunk records it checks what it reads
    against (and itself); its schema is written once."""
    import ast

    import beggar.archive
    from beggar.archive import schema
    folder = Path(beggar.archive.__file__).parent
    for file in folder.glob("*.py"):
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 2:
                modules = [node.module] if node.module else [alias.name for alias in node.names]
                assert set(modules) <= {"cards", "deal", "decks", "checks", "errors", "rules", "outcome", "records"}, \
                    (file.name, modules)
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 1 or not (node.module or "").startswith("beggar"), (file.name, node.module)
            elif isinstance(node, ast.Import):
                assert not any(alias.name.startswith("beggar") for alias in node.names), file.name
    assert schema.TABLES["games"] >= {"id", "deal", "chunk", "loop"} and "walk" not in schema.TABLES["games"]
    assert sorted(schema.TABLES) == ["chunks", "driver_rows", "games", "jobs", "loops"]
    # Nothing else of the package speaks SQLite: what it raises is an ArchiveFault.
    speaking = [str(file.relative_to(folder.parent)) for file in folder.parent.rglob("*.py")
                if folder not in file.parents and re.search(r"^\s*(import|from) sqlite3\b", file.read_text(), re.M)]
    assert not speaking, speaking


# ---------------------------------------------------------------- faults
# Each through the real command, on real files: one line naming the file and
# what is wrong, exit status 3, nothing written.

def archive_with_games(path, n=300):
    """An archive of n games (compiled outcomes), closed: no WAL file beside it."""
    with Archive(str(path)) as archive, archive.transaction():
        for index in range(n):
            deal = Deal.shuffled(2, 9, index)
            outcome = play(deal)
            archive.add_game(deal, Rules(), outcome, outcome)
    assert not Path(f"{path}-wal").exists()
    return path


def contents(path):
    with sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True) as db:
        return (db.execute("SELECT count(*) FROM games").fetchone(), db.execute("SELECT * FROM jobs").fetchall())


HOLD_LOCK = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("held", flush=True)
sys.stdin.read()
"""


@pytest.mark.slow
def test_a_write_lock_held_too_long_is_one_line(tmp_path):
    path = archive_with_games(tmp_path / "a.sqlite", 10)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        result = beggar("search", "--deals", 1000, "--archive", path, env={"BEGGAR_LOCK_SECONDS": "1"})
        fault(result, f"beggar search: {path}: locked: another process has held its write lock for over 1 s")
        # Readers do not wait for a writer.
        assert beggar("archive", "list", "--archive", path, env={"BEGGAR_LOCK_SECONDS": "1"}).returncode == 0
    finally:
        holder.communicate("")
    assert contents(path) == ((10,), [])
    bad_input(beggar("archive", "list", "--archive", path, env={"BEGGAR_LOCK_SECONDS": "soon"}),
              "BEGGAR_LOCK_SECONDS must be a number of seconds")


@contextmanager
def immutable(path):
    """`path` made immutable (chattr +i): not even root may write it."""
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.mark.slow
def test_a_read_only_archive_is_read_but_not_searched(tmp_path):
    path = archive_with_games(tmp_path / "a.sqlite")
    before = path.read_bytes()
    with immutable(path):
        fault(beggar("search", "--deals", 1000, "--archive", path),
              f"beggar search: {path}: read-only: this archive cannot be written")
        listing = beggar("archive", "list", "--archive", path, "--limit", 5)
        assert listing.returncode == 0 and len(listing.stdout.splitlines()) == 7, listing
        assert beggar("archive", "show", 1, "--archive", path).returncode == 0
    assert path.read_bytes() == before
    with immutable(tmp_path):           # a folder that cannot be written: no room for the WAL's files
        fault(beggar("search", "--deals", 1000, "--archive", path), "its folder is read-only")
        assert beggar("archive", "list", "--archive", path, "--limit", 5).returncode == 0


def test_an_archive_on_a_read_only_filesystem_can_be_listed(tmp_path):
    archive_with_games(tmp_path / "a.sqlite")
    mount = tmp_path / "ro"
    mount.mkdir()
    if subprocess.run(["unshare", "-m", "sh", "-c", 'mount -t tmpfs none "$1"', "sh", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("no mount namespace here to make a read-only filesystem")

    def on_read_only_filesystem(*args):
        """The command, in a mount namespace where `mount` holds a copy of the
        archive on a read-only filesystem."""
        script = 'mount -t tmpfs none "$1" && cp "$2" "$1/" && mount -o remount,ro "$1" && shift 2 && exec "$@"'
        return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(mount), str(tmp_path / "a.sqlite"),
                               *_command([*args, "--archive", mount / "a.sqlite"])],
                              capture_output=True, text=True, timeout=60)

    listing = on_read_only_filesystem("archive", "list", "--limit", 3)
    assert listing.returncode == 0 and len(listing.stdout.splitlines()) == 5, listing
    fault(on_read_only_filesystem("search", "--deals", 1000), "read-only")


def test_a_damaged_archive_is_one_line(tmp_path):
    path = archive_with_games(tmp_path / "a.sqlite")
    data = bytearray(path.read_bytes())
    assert len(data) > 40 * 4096
    data[8 * 4096:len(data) - 8 * 4096] = b"\xa5" * (len(data) - 16 * 4096)
    path.write_bytes(bytes(data))
    fault(beggar("archive", "list", "--archive", path), f"beggar archive: {path}: damaged",
          "database disk image is malformed")


@pytest.mark.slow
def test_a_beggar_archive_without_its_tables_is_one_line(tmp_path):
    path = tmp_path / "a.sqlite"
    with closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, deal TEXT)")
        db.commit()
    fault(beggar("archive", "list", "--archive", path), "damaged: its table 'games' has no column 'cards'")
    fault(beggar("search", "--deals", 1000, "--archive", path), "damaged: its table 'games' has no column")
    with closing(sqlite3.connect(path)) as db:
        db.execute("DROP TABLE games")
        db.commit()
    fault(beggar("archive", "show", 1, "--archive", path), "damaged: a beggar archive without its table 'games'")
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == []     # nothing written


def test_a_beggar_archive_of_format_0_is_one_line_and_left_as_it_was(tmp_path):
    path = archive_with_games(tmp_path / "a.sqlite")
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA user_version = 0")
        db.commit()
    before = path.read_bytes()
    fault(beggar("search", "--deals", 1000, "--archive", path), "damaged: archive format 0, which no beggar writes")
    assert path.read_bytes() == before


def test_reading_never_creates_an_archive(tmp_path):
    path = tmp_path / "none" / "a.sqlite"
    bad_input(beggar("archive", "list", "--archive", path), f"{path}: no such archive")
    bad_input(beggar("archive", "list", "--loops", "--archive", path), f"{path}: no such archive")
    assert not path.parent.exists()


@pytest.mark.parametrize("args", [
    ("archive", "list"), ("archive", "list", "--loops", "--json"), ("archive", "jobs"), ("archive", "jobs", "--json"),
    ("archive", "show", "3"), ("archive", "show", "--loop", "1"), ("archive", "export", "3"),
    ("archive", "export", "--loop", "1"), ("archive", "report", "{folder}/r.html"), ("archive", "census", "j"),
    ("stats", "j"), ("search", "--resume", "last"), ("search", "--resume", "j")])
def test_a_missing_archive_is_the_same_line_everywhere_and_nothing_is_created(tmp_path, args):
    """A resume, a report and the jobs listing refused a missing archive only
    after creating it, or read it as empty (exit 0): every command that reads
    one now says it is not there, and creates nothing."""
    folder = tmp_path / "none"
    path = folder / "a.sqlite"
    args = [word.format(folder=tmp_path) for word in args]
    bad_input(beggar(*args, "--archive", path), f"{path}: no such archive (a search creates it)")
    assert not folder.exists() and sorted(tmp_path.iterdir()) == []


# What is read back from an archive is checked as a user's input is: a value
# that makes no sense is one line naming the file, exit 3, never a traceback
# nor a wrong figure.

@pytest.fixture(scope="module")
def jobs_archive(tmp_path_factory):
    """An archive with a sample job (two chunks) and a census job, and their ids."""
    folder = tmp_path_factory.mktemp("kept")
    path = folder / "a.sqlite"
    sample = beggar("search", "--deals", 40_000, "--min-cards", 900, "--seed", 2, "--workers", 1, "--archive",
                    path, "--quiet")
    census = beggar("census", "6 2J 1Q 1K", "--chunk", 1000, "--workers", 1, "--archive", path, "--quiet")
    assert sample.returncode == census.returncode == 0, (sample.stderr, census.stderr)
    return path, job_id(sample.stdout), job_id(census.stdout)


def damaged(jobs_archive, tmp_path, sql, *args):
    """A copy of the archive with `sql` (given the two job ids) run on it."""
    path = tmp_path / "damaged.sqlite"
    shutil.copy(jobs_archive[0], path)
    with closing(sqlite3.connect(path)) as db:
        db.execute(sql, args)
        db.commit()
    return path


@pytest.mark.parametrize("sql, commands, what", [
    ("UPDATE chunks SET stats = '{\"statuses\": [' WHERE job = ?", [("stats", "{0}")],
     "the statistics of chunk 0 of job {0} is not JSON"),
    ("UPDATE chunks SET stats = json_set(stats, '$.workers', 1e308) WHERE job = ?", [("stats", "{0}")],
     "'workers' holds 1e+308, not a count"),
    ("UPDATE chunks SET stats = json_set(stats, '$.statuses.finished', -3) WHERE job = ?", [("stats", "{0}")],
     "'statuses' holds -3, not a count"),
    ("UPDATE chunks SET deals = -40000 WHERE job = ?", [("stats", "{0}"), ("search", "--resume", "{0}")],
     "chunk 0 of job {0} holds numbers that make no sense"),
    ("UPDATE chunks SET stats = '[1]' WHERE job = ?", [("archive", "census", "{1}")],
     "the statistics of chunk 0 of job {1} is not a JSON object"),
    ("UPDATE jobs SET spec = '{\"driver\": ' WHERE id = ?", [("stats", "{0}"), ("search", "--resume", "{0}"),
                                                             ("archive", "jobs")],
     "the spec of job {0} is not JSON"),
    ("UPDATE jobs SET spec = json_set(spec, '$.workers', 1e308) WHERE id = ?", [("search", "--resume", "{0}")],
     "job {0}: damaged: 'workers' must be a whole number"),
    ("UPDATE games SET compiled = 'nonsense' WHERE id = (SELECT min(id) FROM games WHERE job = ?)",
     [("archive", "list", "--limit", "100000"), ("archive", "show", "1"), ("archive", "export", "1")],
     "the compiled outcome of game 1 is not JSON"),
])
@pytest.mark.slow
def test_what_an_archive_holds_is_checked_when_read(jobs_archive, tmp_path, sql, commands, what):
    ids = jobs_archive[1:]
    path = damaged(jobs_archive, tmp_path, sql, ids[1] if "{1}" in what else ids[0])
    for command in commands:
        args = [word.format(*ids) for word in command]
        if args[:2] == ["archive", "export"]:
            args.append(tmp_path / "out.json")
        fault(beggar(*args, "--archive", path), str(path), "damaged", what.format(*ids))


@pytest.mark.slow
def test_an_archive_cut_short_is_damaged_not_foreign(jobs_archive, tmp_path):
    path = tmp_path / "short.sqlite"
    data = jobs_archive[0].read_bytes()
    for size in (len(data) // 3, 50):
        path.write_bytes(data[:size])
        for args in (("archive", "list"), ("search", "--deals", 1000)):
            fault(beggar(*args, "--archive", path), f"{path}: damaged")


def test_a_bad_deal_met_in_a_migration_names_the_file_and_the_game(tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copy(Path(__file__).with_name("data") / "archive-v1.sqlite", path)
    with closing(sqlite3.connect(path)) as db:
        game = db.execute("SELECT min(id) FROM games").fetchone()[0]
        db.execute("UPDATE games SET deal = 'K-Z/--' WHERE id = ?", (game,))
        db.commit()
    fault(beggar("search", "--deals", 1000, "--archive", path), str(path), f"damaged: game {game} holds no deal")


def test_a_rollback_that_sqlite_refuses_is_an_archive_fault(tmp_path):
    with Archive(str(tmp_path / "a.sqlite")) as archive:
        real = archive.db

        class Refusing:
            """The connection, but refusing to roll back (as a disk gone away would)."""
            in_transaction = True

            def execute(self, sql, *args):
                if sql == "ROLLBACK":
                    raise sqlite3.OperationalError("disk I/O error")
                return real.execute(sql, *args)

        archive.db = Refusing()
        with pytest.raises(ArchiveFault, match="cannot be used .disk I/O error"):
            with archive.transaction():
                raise KeyboardInterrupt
        archive.db = real


def test_a_command_that_reads_leaves_no_side_files_beside_the_archive(tmp_path):
    # A read-only connection leaves SQLite's -wal and -shm behind; a reading command does not.
    path = archive_with_games(tmp_path / "a.sqlite", n=3)
    before = path.read_bytes()
    for command in (["archive", "list"], ["archive", "jobs"], ["archive", "show", "1"], ["stats"]):
        beggar(*command, "--archive", path)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["a.sqlite"], command
    assert path.read_bytes() == before


@pytest.mark.slow
def test_the_job_of_the_format_3_test_archive_resumes(tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copy(Path(__file__).with_name("data") / "archive-v3.sqlite", path)
    resumed = beggar("search", "--resume", "sample-old", "--time", 1, "--workers", 1, "--archive", path, "--quiet")
    assert resumed.returncode == 0 and "Traceback" not in resumed.stderr, resumed.stderr
    assert "job      sample-old:" in resumed.stdout


@pytest.mark.slow
def test_the_claim_is_the_files_not_the_names(tmp_path):
    archive = tmp_path / "archive.sqlite"
    link = tmp_path / "link.sqlite"
    link.symlink_to(archive)
    job = start("search", job_file(tmp_path, deals=0, chunk=200_000), "--archive", archive, "--quiet")
    try:
        name = wait_for_chunks(archive, 1, job)
        fault(beggar("search", "--resume", name, "--archive", link, "--quiet"),
              f"job {name} is running in another process")
    finally:
        job.terminate()
        job.communicate(timeout=60)


def test_a_link_planted_as_the_running_file_is_not_followed(tmp_path):
    archive = tmp_path / "archive.sqlite"
    target = tmp_path / "elsewhere"
    os.symlink(target, f"{archive}-running")
    fault(beggar("search", "--deals", 1000, "--archive", archive, "--quiet"),
          "a link stands where the file that marks running jobs goes")
    assert not target.exists() and not os.path.lexists(tmp_path / "elsewhere")


@pytest.mark.slow
def test_archive_list_shows_long_games_first_with_their_table_and_the_total(tmp_path):
    archive = tmp_path / "a.sqlite"
    # A few long 26/26 games, and a small census's loops, which would fill the old loops-first list.
    assert beggar("search", job_file(tmp_path, deals=100_000), "--archive", archive, "--quiet").returncode == 0
    census = beggar("census", "half-camicia", "--archive", archive, "--quiet")     # 16 loop deals, 1 s
    assert census.returncode == 0, census.stderr
    assert "loops    1 loop, reached from 16 loop deals\n" in census.stdout       # not "1 loops"
    every = json.loads(beggar("archive", "list", "--json", "--limit", 10 ** 6, "--archive", archive).stdout)
    statuses = {game["status"] for game in every["games"]}
    assert every["shown"] == every["total"] == len(every["games"]) and statuses == {"finished", "loop"}
    listed = beggar("archive", "list", "--limit", 3, "--archive", archive)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["id", "status", "cards", "tricks", "loop", "deck", "hands", "found", "by", "deal"]
    assert all(" finished " in line and " standard  26/26 " in line for line in lines[1:4])
    assert lines[4] == f"3 of {every['total']:,} games shown, longest first (--limit N shows more)"
    loops = json.loads(beggar("archive", "list", "--status", "loop", "--json", "--archive", archive).stdout)
    assert loops["total"] == sum(game["status"] == "loop" for game in every["games"]) > 0
    assert {(game["deck"], game["players"], game["split"]) for game in loops["games"]} == {("half-camicia", 2, 10)}
    text = beggar("archive", "list", "--status", "loop", "--limit", 2, "--archive", archive).stdout.splitlines()
    assert " loop " in text[1] and "half-camicia  10/10" in text[1]
    assert text[-1].endswith("; loop: entry+period in tricks (--loops lists the loops)")
    assert json.loads(beggar("archive", "list", "--status", "disputed", "--json", "--archive", archive).stdout) \
        == {"shown": 0, "total": 0, "games": []}


def test_a_hunt_s_finds_read_without_a_chunk_none_a_best_length_or_a_bad_plural(tmp_path):
    """`archive show` and a --text export said "chunk None" for a deal a seat
    found; `archive jobs` and a resume of a done hunt gave it a "best 52"
    (its walks' largest looping state, no game's length); the report said
    "1 kept games"."""
    from test_report import hunted
    path = tmp_path / "a.sqlite"
    job = hunted(path)
    with Archive(path) as archive:
        game = archive.games(job=job, limit=1)[0]
    assert game["chunk"] is None
    shown = in_process("archive", "show", game["id"], "--archive", path)
    assert shown.returncode == 0 and "None" not in shown.stdout
    assert re.search(rf"^found    .* by job {job} \((basin|elimination), seed 5\)$", shown.stdout, re.M), shown.stdout
    text = in_process("archive", "export", game["id"], "--text", "--archive", path)
    assert text.returncode == 0 and "None" not in text.stdout and "# job: " + job in text.stdout
    jobs = in_process("archive", "jobs", "--archive", path)
    assert re.search(r"^  played [\d.]+K of [\d.]+K perturbations; best -$", jobs.stdout, re.M), jobs.stdout
    again = in_process("search", "--resume", job, "--archive", path, "--quiet")
    assert again.returncode == 0 and "best " not in again.stdout + again.stderr, again
    assert re.search(r"^job all  49,152 of 49,152 perturbations in 4 chunks, \d+ games and \d+ loops kept",
                     again.stdout, re.M), again.stdout
    done = in_process("search", "--resume", job, "--archive", path)
    assert done.returncode == 0 and "best" not in done.stdout + done.stderr, done
    assert f"job {job} is done: 49,152 perturbations, " in done.stdout + done.stderr
    with Archive(path) as archive:
        # One game left, alone in its loop (the hunt's records, which hold it to its deals, gone too).
        archive.db.execute("DELETE FROM games WHERE id != ?", (game["id"],))
        for table in ("driver_rows", "chunks", "jobs"):
            archive.db.execute(f"DELETE FROM {table}")
        archive.db.commit()
    in_process("archive", "report", tmp_path / "r.html", "--archive", path)
    assert "1 kept game falls into it" in (tmp_path / "r.html").read_text()


def test_a_count_of_searches_is_not_of_searchs():
    from beggar.search.drivers.base import plural
    assert [plural(n, word) for n, word in ((1, "search"), (52, "search"), (2, "box"), (3, "loop"))] == \
        ["1 search", "52 searches", "2 boxes", "3 loops"]


@pytest.mark.parametrize("change", ["UPDATE loops SET key = 'zz' WHERE id = 8",
                                    "UPDATE loops SET key = '0c00000000000000000000010006000000010000' WHERE id = 8",
                                    "DELETE FROM loops WHERE id = 8"])
def test_a_report_of_format_5_read_as_it_stands_says_a_loop_damaged_out_of_sight(tmp_path, change):
    """A loop whose key was damaged dropped out of the ten a report shows, exit 0."""
    path = tmp_path / "old.sqlite"
    shutil.copy(V5_ARCHIVE, path)
    with closing(sqlite3.connect(path)) as db:
        key = db.execute("SELECT key FROM loops WHERE id = 8").fetchone()[0]
        first = db.execute("SELECT min(id) FROM games WHERE loop = ?", (key,)).fetchone()[0]
        db.execute(change)
        db.commit()
    before = path.read_bytes()
    told = f"damaged: game {first} falls into the loop of key '{key}', and the archive holds no loop of that key"
    fault(in_process("archive", "report", tmp_path / "r.html", "--archive", path), told)
    fault(in_process("archive", "show", first, "--archive", path), told)
    assert path.read_bytes() == before and not (tmp_path / "r.html").exists()
