"""The archive's tables, written once as SQL (this format's: older ones
are brought to it by migrations.py).

The column sets an archive is checked against (TABLES) are read from the
SQL itself, as SQLite reads it."""

import sqlite3
from contextlib import closing

from .faults import ArchiveFault

APPLICATION_ID = 0x42474752     # "BGGR": marks the file as a beggar archive
SCHEMA_VERSION = 7

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
CREATE TABLE driver_rows (
    job TEXT NOT NULL REFERENCES jobs(id),
    kind TEXT NOT NULL,             -- what the row is, in its driver's words (a hunt's: seat)
    key TEXT NOT NULL,              -- which of that kind, of its job
    value TEXT NOT NULL,            -- JSON: an object its driver writes, and checks by its shape when read back
    done_at TEXT NOT NULL,
    PRIMARY KEY (job, kind, key)
);
"""

#: The older formats that a read-only open reads as they stand (it never
#: migrates), with what columns of this format were named then:
#: {format: {table: {name now: name then}}}.
NAMED_THEN = {4: {"games": {"chunk": "walk"}}, 5: {}, 6: {}}

#: The tables each format added ({format: [table]}): an older one read as it
#: stands has none of them (its readers find them empty, but for what
#: migrations.old_driver_rows reads of format 6's seats).
ADDED = {7: ["driver_rows"]}


def create(db):
    for statement in SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _tables_of():
    with closing(sqlite3.connect(":memory:")) as db:
        create(db)
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: {row[1] for row in db.execute(f"PRAGMA table_info({table})")} for table in tables}


#: The tables and columns every archive of this format has.
TABLES = _tables_of()


def check_tables(db, path, version=SCHEMA_VERSION):
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
    return [table for added, tables in ADDED.items() if added > version for table in tables]


def table_of(deal):
    return deal.deck_written(), deal.players, len(deal.hands[0])


