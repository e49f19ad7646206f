"""The archive's tables, written once as SQL, and the migrations that bring
an archive of an older format to this one.

The column sets an archive is checked against (TABLES) are read from the
SQL itself, as SQLite reads it. A migration runs in one transaction, all of
it or none. The archive plays no game: the migrations that need a game
played (3 -> 4 links every loop game to its loop, 5 -> 6 names every loop by
its players) are handed the function that plays it by whoever opens the
archive to write it (Archive's `link_loop`)."""

import json
import sqlite3
from contextlib import closing

from ..checks import cut
from ..deal import Deal
from ..errors import BadInput
from .faults import ArchiveFault
from .readback import key_problem, read_loop, stats_problem, stored_deal, stored_json

APPLICATION_ID = 0x42474752     # "BGGR": marks the file as a beggar archive
SCHEMA_VERSION = 6

SCHEMA = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    deal TEXT NOT NULL,
    rules TEXT NOT NULL,
    status TEXT NOT NULL,
    winner INTEGER,
    cards INTEGER NOT NULL,
    tricks INTEGER NOT NULL,
    entry_tricks INTEGER,
    entry_cards INTEGER,
    period_tricks INTEGER,
    period_cards INTEGER,
    compiled TEXT NOT NULL,
    reference TEXT NOT NULL,
    disputed INTEGER NOT NULL,
    job TEXT,
    driver TEXT,
    seed INTEGER,
    chunk INTEGER,                  -- the chunk of its job that found it (named walk before format 5)
    parent INTEGER REFERENCES games(id),
    found_at TEXT NOT NULL,
    deck TEXT NOT NULL,             -- decks.Deck as written: a name, or counts
    players INTEGER NOT NULL,
    split INTEGER NOT NULL,         -- cards in the first hand
    rank TEXT,                      -- census: the deal's arrangement number, in decimal
    loop TEXT,                      -- a loop: its canonical state (cycle.state_key, hex), its players'
    UNIQUE (deal, rules)
);
CREATE INDEX games_by_length ON games (cards DESC);
CREATE INDEX games_by_table ON games (deck, players);
CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    state TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE TABLE chunks (
    job TEXT NOT NULL REFERENCES jobs(id),
    chunk INTEGER NOT NULL,
    deals INTEGER NOT NULL,
    hits INTEGER NOT NULL,
    best_cards INTEGER NOT NULL,
    seconds REAL NOT NULL,
    done_at TEXT NOT NULL,
    stats TEXT,                     -- JSON: games by status, lengths in cards and tricks
    PRIMARY KEY (job, chunk)
);
""" + """
CREATE TABLE loops (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL,              -- the canonical state (loops.py, cycle.state_key), hex
    deck TEXT NOT NULL,
    players INTEGER NOT NULL,       -- the players on its cycle (those still in: its key's hands)
    period_tricks INTEGER NOT NULL,
    period_cards INTEGER NOT NULL,
    states INTEGER NOT NULL,        -- states on the cycle
    balanced INTEGER NOT NULL,      -- 1: a state on the cycle is a balanced deal
    job TEXT,                       -- who found it first
    driver TEXT,
    chunk INTEGER,
    found_at TEXT NOT NULL,
    basin_states INTEGER,           -- its basin search (NULL when there was none)
    basin_deals INTEGER,            -- balanced deals found (kept as games of status loop)
    basin_stopped_by TEXT,          -- NULL: complete, else "states" or "time", the bound that stopped it
    UNIQUE (deck, key)
);
""" + """
CREATE TABLE seats (
    job TEXT NOT NULL REFERENCES jobs(id),
    loop TEXT NOT NULL,             -- the loop seated: its canonical state (hex), of the job's deck
    players INTEGER NOT NULL,       -- the table: 2 (its basin), 3 or 4 (backward play with elimination)
    states INTEGER NOT NULL,        -- states the search visited
    deals INTEGER NOT NULL,         -- balanced deals it found (kept as games of status loop)
    stopped_by TEXT,                -- NULL: complete, else "states": its bound stopped it
    smallest INTEGER,               -- the largest smallest hand of a state it reached with every player in
    best TEXT,                      -- that state, as a deal (the leader's hand first)
    seconds REAL NOT NULL,
    done_at TEXT NOT NULL,
    PRIMARY KEY (job, loop, players)
);
"""

#: The older formats that a read-only open reads as they stand (it never
#: migrates), with what columns of this format were named then:
#: {format: {table: {name now: name then}}}.
NAMED_THEN = {4: {"games": {"chunk": "walk"}}, 5: {}}

#: The tables each format added ({format: [table]}): an older one read as it
#: stands has none of them (its readers find them empty).
ADDED = {6: ["seats"]}

#: ALTER TABLE ... RENAME COLUMN (the 4 -> 5 migration) came with SQLite 3.25.
RENAME_SQLITE = (3, 25, 0)


def create(db):
    """Write this format's tables into the empty database `db` (inside a
    transaction where others may open the file) and mark it."""
    for statement in SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _tables_of():
    """{table: {column}} of the schema, as SQLite reads it."""
    with closing(sqlite3.connect(":memory:")) as db:
        create(db)
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: {row[1] for row in db.execute(f"PRAGMA table_info({table})")} for table in tables}


#: The tables and columns every archive of this format has.
TABLES = _tables_of()


def check_tables(db, path, version=SCHEMA_VERSION):
    """ArchiveFault unless every table of format `version` (this one, or one
    of NAMED_THEN) is in `db`, whole."""
    named = NAMED_THEN.get(version, {})
    for table, columns in TABLES.items():
        if table in tables_after(version):
            continue
        columns = {named.get(table, {}).get(column, column) for column in columns}
        found = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if not found:
            raise ArchiveFault(f"{path}: damaged: a beggar archive without its table '{table}'")
        missing = sorted(columns - found)
        if missing:
            raise ArchiveFault(f"{path}: damaged: its table '{table}' has no column '{missing[0]}'")


def tables_after(version):
    """The tables that formats after `version` added."""
    return [table for added, tables in ADDED.items() if added > version for table in tables]


def table_of(deal):
    """(deck, players, split) of a deal as the archive keeps them."""
    return deal.deck_written(), deal.players, len(deal.hands[0])


def migrate(archive, link_loop):
    """Bring the open archive (a store.Archive) of an older format up to this
    one, in one transaction; what a migration keeps goes in through the
    store's own writes (add_loop).

    1 -> 2: games gain their deck, players and split, read from the deal
    (format 1 held only what `beggar search` dealt then: 26/26 standard
    deals and their families). 2 -> 3: games gain a census rank and a
    loop's canonical state, chunks their statistics (all empty before).
    3 -> 4: the loops table; every game of status loop gets its loop's
    canonical state (`link_loop(deal)` plays it when it had none) and its
    loop a row, found by the first such game's job (no basin search yet).
    4 -> 5: games' column walk, which always held the chunk, is named chunk.
    5 -> 6 (_to_format_6): a loop is its players' (cycle.py), one row a
    cycle; the seats table (a hunt's searches from a loop at each table)."""
    db, path = archive.db, archive.path
    with archive.transaction():
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version <= 3 and link_loop is None:
            raise _unlinked(path, version)
        if version <= 4 and sqlite3.sqlite_version_info < RENAME_SQLITE:
            raise ArchiveFault(f"{path}: archive format {version}, to be brought to format {SCHEMA_VERSION}: that "
                               f"needs SQLite 3.25 or newer, and this Python has {sqlite3.sqlite_version}")
        if version == 1:
            for column in ("deck TEXT NOT NULL DEFAULT ''", "players INTEGER NOT NULL DEFAULT 0",
                           "split INTEGER NOT NULL DEFAULT 0"):
                db.execute(f"ALTER TABLE games ADD COLUMN {column}")
            db.execute("CREATE INDEX games_by_table ON games (deck, players)")
            rows = db.execute("SELECT id, deal FROM games").fetchall()
            for game_id, deal in rows:
                db.execute("UPDATE games SET deck = ?, players = ?, split = ? WHERE id = ?",
                           (*table_of(stored_deal(path, game_id, deal)), game_id))
            db.execute("PRAGMA user_version = 2")
            version = 2
        if version == 2:
            db.execute("ALTER TABLE games ADD COLUMN rank TEXT")
            db.execute("ALTER TABLE games ADD COLUMN loop TEXT")
            db.execute("ALTER TABLE chunks ADD COLUMN stats TEXT")
            db.execute("PRAGMA user_version = 3")
            version = 3
        if version == 3:
            _add_loops_table(archive, link_loop)
            db.execute("PRAGMA user_version = 4")
            version = 4
        if version == 4:
            db.execute("ALTER TABLE games RENAME COLUMN walk TO chunk")
            db.execute("PRAGMA user_version = 5")
            version = 5
        if version == 5:
            _to_format_6(archive, link_loop)
            db.execute("PRAGMA user_version = 6")


def _unlinked(path, version):
    """The ArchiveFault of an archive whose migration plays games, opened to
    be written without the function that plays them (Archive's link_loop)."""
    return ArchiveFault(f"{path}: archive format {version}, to be brought to format {SCHEMA_VERSION}: "
                        "open it once with a search (beggar search), which links its loop games "
                        "to their loops")


def _add_loops_table(archive, link_loop):
    """Format 3 -> 4 (inside the migration's transaction). The loops table
    is written as this format has it: no format since has changed it."""
    db, path = archive.db, archive.path
    db.execute(SCHEMA[SCHEMA.index("CREATE TABLE loops"):SCHEMA.index("CREATE TABLE seats")])
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


def _to_format_6(archive, link_loop):
    """Format 5 -> 6 (inside the migration's transaction), one step after
    the other."""
    _loops_of_their_players(archive, link_loop)
    archive.db.execute(SCHEMA[SCHEMA.index("CREATE TABLE seats"):])


def _hands(key):
    """The hands of a loop key as read back and checked (key_problem)."""
    data, hands, i = bytes.fromhex(key), [], 0
    while i < len(data):
        hands.append(data[i + 1:i + 1 + data[i]])
        i += 1 + data[i]
    return hands


def _basin_searched(row):
    """How far a loop row's basin was searched, to be compared: searched, then
    to its end, then the most states."""
    return row["basin_states"] is not None, row["basin_stopped_by"] is None, row["basin_states"] or 0


def _loops_of_their_players(archive, link_loop):
    """A loop is its players' (cycle.py; docs/rules.md: a repeat of every
    hand, who is still in and who leads): up to format 5 a game of 3 or 4
    players that put players out was linked to a loop whose key held their
    empty hands, so that one cycle stood in as many rows as tables and seats
    it was reached from. Every key
    that holds an empty hand (a loop row's, a game's, a census chunk's) is
    named again by the loop of the players still in, played once by
    `link_loop`; a loop row so named is merged into the row of its cycle where
    there is one, keeping that row's id, the earliest finder and the basin
    searched furthest. A job's start keys stay as the job was given them:
    its drivers play a start key to the loop of its players."""
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

    cursor = db.execute("SELECT * FROM loops ORDER BY id")
    names = [d[0] for d in cursor.description]
    rows = [read_loop(path, dict(zip(names, row)), empty_hands=True) for row in cursor.fetchall()]
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
        basin = max(both, key=_basin_searched)
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
