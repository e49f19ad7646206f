"""The migrations that bring an archive of an older format to this one
(schema.py): one function a step, STEPS[n] bringing format n + 1 to n + 2,
all in one transaction or none. The steps that need a game played (3 -> 4
links every loop game to its loop, 5 -> 6 names every loop by its players)
are handed what plays it (Archive's `link_loop`: the archive plays no game);
what a step keeps goes in through the store's own writes (add_loop)."""

import json
import sqlite3

from ..checks import cut
from ..deal import Deal
from ..errors import BadInput
from .faults import ArchiveFault
from .readback import key_problem, read_loop, stats_problem, stored_deal, stored_json
from .schema import SCHEMA, SCHEMA_VERSION, table_of
from .sql import dicts

#: ALTER TABLE ... RENAME COLUMN (the 4 -> 5 migration) came with SQLite 3.25.
RENAME_SQLITE = (3, 25, 0)


def migrate(archive, link_loop):
    db, path = archive.db, archive.path
    with archive.transaction():
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version < 1:     # no beggar wrote it: no step may touch it
            raise ArchiveFault(f"{path}: damaged: archive format {version}, which no beggar writes")
        if version <= 3 and link_loop is None:
            raise _unlinked(path, version)
        if version <= 4 and sqlite3.sqlite_version_info < RENAME_SQLITE:
            raise ArchiveFault(f"{path}: archive format {version}, to be brought to format {SCHEMA_VERSION}: that "
                               f"needs SQLite 3.25 or newer, and this Python has {sqlite3.sqlite_version}")
        for step in STEPS[version - 1:]:
            step(archive, link_loop)
            version += 1
            db.execute(f"PRAGMA user_version = {version}")


def _unlinked(path, version):
    return ArchiveFault(f"{path}: archive format {version}, to be brought to format {SCHEMA_VERSION}: "
                        "open it once with a search (beggar search), which links its loop games "
                        "to their loops")


def _to_2(archive, link_loop):
    """Games gain their deck, players and split, read from the deal (format
    1 held only what `beggar search` dealt then: 26/26 standard deals and
    their families)."""
    db, path = archive.db, archive.path
    for column in ("deck TEXT NOT NULL DEFAULT ''", "players INTEGER NOT NULL DEFAULT 0",
                   "split INTEGER NOT NULL DEFAULT 0"):
        db.execute(f"ALTER TABLE games ADD COLUMN {column}")
    db.execute("CREATE INDEX games_by_table ON games (deck, players)")
    for game_id, deal in db.execute("SELECT id, deal FROM games").fetchall():
        db.execute("UPDATE games SET deck = ?, players = ?, split = ? WHERE id = ?",
                   (*table_of(stored_deal(path, game_id, deal)), game_id))


def _to_3(archive, link_loop):
    """Games gain a census rank and a loop's canonical state, chunks their
    statistics (all empty before)."""
    for table, column in (("games", "rank"), ("games", "loop"), ("chunks", "stats")):
        archive.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")


def _to_4(archive, link_loop):
    """The loops table, written as this format has it (no format since has
    changed it): every game of status loop gets its loop's canonical state
    (`link_loop(deal)` plays it when it had none) and its loop a row, found
    by the first such game's job (no basin search yet)."""
    db, path = archive.db, archive.path
    db.execute(SCHEMA[SCHEMA.index("CREATE TABLE loops"):SCHEMA.index("CREATE TABLE driver_rows")])
    rows = db.execute("SELECT id, deal, loop, job, driver, walk FROM games WHERE status = 'loop' "
                      "ORDER BY id").fetchall()
    described = {}
    for game_id, deal, key, job, driver, chunk in rows:
        deal = stored_deal(path, game_id, deal)
        if key is None or (deal.deck_written(), key) not in described:
            try:
                loop = link_loop(deal)
            except BadInput as error:
                raise ArchiveFault(f"{path}: cannot link loop game {game_id} to its loop: {error}") from None
            described[(loop.deck, loop.hex)] = loop
            if key is None:
                db.execute("UPDATE games SET loop = ? WHERE id = ?", (loop.hex, game_id))
            archive.add_loop(loop, job, driver, chunk)


def _to_5(archive, link_loop):
    """Games' column walk, which always held the chunk, is named chunk."""
    archive.db.execute("ALTER TABLE games RENAME COLUMN walk TO chunk")


def _hands(key):
    data, hands, i = bytes.fromhex(key), [], 0
    while i < len(data):
        hands.append(data[i + 1:i + 1 + data[i]])
        i += 1 + data[i]
    return hands


def _to_6(archive, link_loop):
    """A loop is its players' (docs/archive.md, Loops, tells the step): every
    key that holds an empty hand (a loop row's, a game's, a census chunk's)
    is named again by the loop of the players still in, and a loop row so
    named merged into the row of its cycle, keeping that row's id. A job's
    start keys stay: its drivers play a start key to the loop of its players."""
    db, path = archive.db, archive.path
    renamed = {}        # old key -> loops.Loop of its players

    def players_loop(key, where):
        problem = key_problem(key, empty_hands=True)
        if problem is not None:
            raise ArchiveFault(f"{path}: damaged: {where}: its loop key {problem}")
        if all(_hands(key)):
            return None
        if key not in renamed:
            if link_loop is None:
                raise _unlinked(path, 5)
            try:
                renamed[key] = link_loop(Deal.from_codes([hand for hand in _hands(key) if hand]))
            except BadInput as error:
                raise ArchiveFault(f"{path}: damaged: {where}: its loop key {cut(key)} is no state of a loop "
                                   f"({error})") from None
        return renamed[key]

    rows = [read_loop(path, row, empty_hands=True) for row in dicts(db.execute("SELECT * FROM loops ORDER BY id"))]
    by_key = {(row["deck"], row["key"]): row for row in rows}
    cycles = {}         # (deck, players' key) -> the rows named again to it
    for row in rows:
        loop = players_loop(row["key"], f"loop {row['id']}")
        if loop is None:
            continue
        if loop.period != (row["period_tricks"], row["period_cards"]):
            raise ArchiveFault(f"{path}: damaged: loop {row['id']}: its row says period {row['period_tricks']} "
                               f"tricks / {row['period_cards']} cards, and its key's players loop with period "
                               f"{loop.period[0]} tricks / {loop.period[1]} cards")
        cycles.setdefault((row["deck"], loop.hex), (loop, []))[1].append(row)
    for (deck, key), (loop, named) in cycles.items():
        target = by_key.get((deck, key), named[0])
        both = named if target is named[0] else [target] + named
        first = min(both, key=lambda row: (row["found_at"], row["id"]))
        # The basin search kept: one searched over none, complete over stopped, then the most states.
        basin = max(both, key=lambda row: (row["basin_states"] is not None, row["basin_stopped_by"] is None,
                                           row["basin_states"] or 0))
        db.executemany("DELETE FROM loops WHERE id = ?", [(row["id"],) for row in both if row is not target])
        db.execute("UPDATE loops SET key = ?, players = ?, states = ?, balanced = ?, job = ?, driver = ?, "
                   "chunk = ?, found_at = ?, basin_states = ?, basin_deals = ?, basin_stopped_by = ? WHERE id = ?",
                   (key, loop.players, len(loop.states), int(loop.balanced), first["job"], first["driver"],
                    first["chunk"], first["found_at"], basin["basin_states"], basin["basin_deals"],
                    basin["basin_stopped_by"], target["id"]))
    for key, game_id in db.execute("SELECT loop, min(id) FROM games WHERE loop IS NOT NULL GROUP BY loop").fetchall():
        loop = players_loop(key, f"game {game_id}")
        if loop is not None:
            db.execute("UPDATE games SET loop = ? WHERE loop = ?", (loop.hex, key))
    # A census chunk counts its loop deals by loop: two keys of one loop count as one.
    for job, chunk, text in db.execute("SELECT job, chunk, stats FROM chunks WHERE instr(stats, '\"loops\"') > 0 "
                                       "ORDER BY job, chunk").fetchall():
        where = f"the statistics of chunk {chunk} of job {job}"
        stats = stored_json(path, text, where)
        problem = stats_problem(stats, empty_hands=True)
        if problem is not None:
            raise ArchiveFault(f"{path}: damaged: {where}: {problem}")
        counted = stats["loops"]
        if not isinstance(counted, dict):
            continue            # a walk's: its loops are two players'
        merged = {}
        for key, entry in counted.items():
            loop = players_loop(key, where)
            named = key if loop is None else loop.hex
            if named in merged:
                merged[named][0] += entry[0]
            else:
                merged[named] = list(entry)
        if merged != counted:
            stats["loops"] = merged
            db.execute("UPDATE chunks SET stats = ? WHERE job = ? AND chunk = ?",
                       (json.dumps(stats, separators=(",", ":")), job, chunk))


def _to_7(archive, link_loop):
    """The archive names no driver: format 6's table of a hunt's seats (its
    searches from a loop at each table) becomes the hunt's driver rows of
    kind seat, every column kept (old_driver_rows), in the order kept."""
    db = archive.db
    db.execute(SCHEMA[SCHEMA.index("CREATE TABLE driver_rows"):])
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'seats'").fetchone():
        db.executemany("INSERT INTO driver_rows (job, kind, key, value, done_at) VALUES (?, ?, ?, ?, ?)",
                       old_driver_rows(db, archive.path))
        db.execute("DROP TABLE seats")


def old_driver_rows(db, path):
    """The rows of format 6's seats table as the hunt's driver rows (key
    'LOOP/PLAYERS', value every other column). A value JSON cannot hold (a
    BLOB) is damage: the migration stops, and leaves the archive as it was."""
    rows = []
    for seat in dicts(db.execute("SELECT * FROM seats ORDER BY rowid")):
        job, done_at = seat.pop("job"), seat.pop("done_at")
        try:
            value = json.dumps(seat, separators=(",", ":"))
        except (TypeError, ValueError):
            raise ArchiveFault(f"{path}: damaged: the seat of loop {cut(seat['loop'])} at {cut(seat['players'])} of "
                               f"job {cut(job)} holds a value that is no text nor number") from None
        rows.append((job, "seat", f"{seat['loop']}/{seat['players']}", value, done_at))
    return rows


STEPS = [_to_2, _to_3, _to_4, _to_5, _to_6, _to_7]
