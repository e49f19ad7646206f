"""The results archive: the games searches keep, and the jobs that found them, in SQLite.

One file (results/archive.sqlite by default) that several jobs may write at
once: WAL journal, a generous busy timeout, and short transactions. A game is
kept once per deal and rules, with who found it (job, driver, seed, walk or
chunk), when, and its outcome from both engines; a game on which the engines
disagree is kept marked disputed. Jobs record the chunks they have finished,
which is what `beggar search --resume` continues from.
"""

import json
import os
import sqlite3
import time
from contextlib import contextmanager
from datetime import datetime, timezone

from .deal import Deal
from .decks import Deck

DEFAULT_PATH = os.path.join("results", "archive.sqlite")

APPLICATION_ID = 0x42474752     # "BGGR": marks the file as a beggar archive
SCHEMA_VERSION = 3

#: How long to wait for another process's write lock.
LOCK_SECONDS = 60

_SCHEMA = """
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
    walk INTEGER,
    parent INTEGER REFERENCES games(id),
    found_at TEXT NOT NULL,
    deck TEXT NOT NULL,             -- decks.Deck as written: a name, or counts
    players INTEGER NOT NULL,
    split INTEGER NOT NULL,         -- cards in the first hand
    rank TEXT,                      -- census: the deal's arrangement number, in decimal
    loop TEXT,                      -- a loop: its canonical state (census.state_key, hex)
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
"""

#: The shortest published record (Paulhus 1999): `list --records` shows longer games.
RECORD_CARDS = 4791


class ArchiveError(Exception):
    """An archive that cannot be used; the message names the file."""


def now():
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def table_of(deal):
    """(deck, players, split) of a deal as the archive keeps them."""
    return deal.deck_written(), deal.players, len(deal.hands[0])


def rules_key(rules):
    """The rules as the canonical JSON text the archive keys games by."""
    return json.dumps(rules.as_dict(), sort_keys=True)


class Archive:
    """An open archive. Use as a context manager, or call close()."""

    def __init__(self, path=DEFAULT_PATH):
        self.path = path
        folder = os.path.dirname(path)
        if folder and not os.path.isdir(folder):
            try:
                os.makedirs(folder, exist_ok=True)
            except OSError as error:
                raise ArchiveError(f"{path}: cannot create its folder ({error.strerror})") from None
        if os.path.isdir(path):
            raise ArchiveError(f"{path}: is a directory, not an archive file")
        try:
            self.db = sqlite3.connect(path, timeout=LOCK_SECONDS, isolation_level=None)
            self._check_or_create()
        except sqlite3.DatabaseError as error:
            raise ArchiveError(f"{path}: not a beggar archive ({error})") from None

    def _check_or_create(self):
        db = self.db
        # One read transaction: both looks see the same moment of the file,
        # and an existing archive is opened without waiting for a writer.
        db.execute("BEGIN")
        try:
            application = db.execute("PRAGMA application_id").fetchone()[0]
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        finally:
            db.execute("COMMIT")
        if application == 0 and tables == 0:
            self._switch_to_wal()       # a new archive (never someone else's file)
            # Look again under the write lock: another job may be creating the
            # same archive at this very moment.
            with self.transaction():
                application = db.execute("PRAGMA application_id").fetchone()[0]
                tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if application == 0 and tables == 0:
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            db.execute(statement)
                    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                    application = APPLICATION_ID
        if application != APPLICATION_ID:
            raise ArchiveError(f"{self.path}: not a beggar archive (an SQLite file of something else)")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version < SCHEMA_VERSION:
            self._migrate()
        elif version > SCHEMA_VERSION:
            raise ArchiveError(f"{self.path}: archive format {version}; this beggar reads {SCHEMA_VERSION} "
                               "and older: update beggar")
        db.execute("PRAGMA synchronous = FULL")     # a commit survives a crash of the machine
        db.execute("PRAGMA foreign_keys = ON")

    def _migrate(self):
        """Bring an archive of an older format up to this one, in one transaction.

        1 -> 2: games gain their deck, players and split, read from the deal
        (format 1 held only what `beggar search` dealt then: 26/26 standard
        deals and their families). 2 -> 3: games gain a census rank and a
        loop's canonical state, chunks their statistics (all empty before)."""
        with self.transaction():
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version == 1:
                for column in ("deck TEXT NOT NULL DEFAULT ''", "players INTEGER NOT NULL DEFAULT 0",
                               "split INTEGER NOT NULL DEFAULT 0"):
                    self.db.execute(f"ALTER TABLE games ADD COLUMN {column}")
                self.db.execute("CREATE INDEX games_by_table ON games (deck, players)")
                rows = self.db.execute("SELECT id, deal FROM games").fetchall()
                for game_id, deal in rows:
                    self.db.execute("UPDATE games SET deck = ?, players = ?, split = ? WHERE id = ?",
                                    (*table_of(Deal.parse(deal)), game_id))
                self.db.execute("PRAGMA user_version = 2")
                version = 2
            if version == 2:
                self.db.execute("ALTER TABLE games ADD COLUMN rank TEXT")
                self.db.execute("ALTER TABLE games ADD COLUMN loop TEXT")
                self.db.execute("ALTER TABLE chunks ADD COLUMN stats TEXT")
                self.db.execute("PRAGMA user_version = 3")

    def _switch_to_wal(self):
        """WAL lets readers and one writer work at once. Switching needs a moment
        alone with the file, and SQLite does not wait for it: retry a while."""
        deadline = time.monotonic() + LOCK_SECONDS
        while True:
            try:
                self.db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def close(self):
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @contextmanager
    def transaction(self):
        """One write transaction: all of it is kept, or none."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ------------------------------------------------------------ games

    def add_game(self, deal, rules, compiled, reference, job=None, driver=None, seed=None,
                 walk=None, parent=None, rank=None, loop=None):
        """Keep a game (inside a transaction). Returns (id, new): a deal already
        kept under the same rules is not stored twice."""
        disputed = compiled != reference
        row = (str(deal), rules_key(rules), compiled.status, compiled.winner, compiled.cards,
               compiled.tricks, *(compiled.loop_entry or (None, None)),
               *(compiled.loop_period or (None, None)), json.dumps(compiled.as_dict()),
               json.dumps(reference.as_dict()), int(disputed), job, driver, seed, walk, parent, now(),
               *table_of(deal), None if rank is None else str(rank), None if loop is None else loop.hex())
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO games (deal, rules, status, winner, cards, tricks, entry_tricks, "
            "entry_cards, period_tricks, period_cards, compiled, reference, disputed, job, driver, "
            "seed, walk, parent, found_at, deck, players, split, rank, loop) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            row)
        if cursor.rowcount:
            return cursor.lastrowid, True
        found = self.db.execute("SELECT id FROM games WHERE deal = ? AND rules = ?", row[:2]).fetchone()
        return found[0], False

    def games(self, loops=False, records=False, min_cards=None, disputed=False, job=None, limit=None,
              deck=None, players=None):
        """Kept games as dicts, best first: loops, then the longest games.
        `deck` (a decks.Deck or its name or notation) and `players` narrow them."""
        where, args = [], []
        if deck is not None:
            where.append("deck = ?")
            args.append(str(Deck.parse(deck)))
        if players is not None:
            where.append("players = ?")
            args.append(players)
        if loops:
            where.append("status = 'loop'")
        if records:
            where.append("status = 'finished' AND cards >= ? AND deck = 'standard' AND players = 2")
            args.append(RECORD_CARDS)
        if min_cards is not None:
            where.append("cards >= ?")
            args.append(min_cards)
        if disputed:
            where.append("disputed = 1")
        if job is not None:
            where.append("job = ?")
            args.append(job)
        sql = "SELECT * FROM games" + (" WHERE " + " AND ".join(where) if where else "")
        sql += " ORDER BY status = 'loop' DESC, cards DESC, tricks DESC, id"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        cursor = self.db.execute(sql, args)
        names = [d[0] for d in cursor.description]
        return [self._game(names, row) for row in cursor]

    def game(self, game_id):
        cursor = self.db.execute("SELECT * FROM games WHERE id = ?", (game_id,))
        row = cursor.fetchone()
        if row is None:
            raise ArchiveError(f"{self.path}: no game with id {game_id}")
        return self._game([d[0] for d in cursor.description], row)

    @staticmethod
    def _game(names, row):
        game = dict(zip(names, row))
        for field in ("rules", "compiled", "reference"):
            game[field] = json.loads(game[field])
        game["disputed"] = bool(game["disputed"])
        return game

    # ------------------------------------------------------------ jobs

    def add_job(self, job_id, spec):
        with self.transaction():
            if self.db.execute("SELECT 1 FROM jobs WHERE id = ?", (job_id,)).fetchone():
                raise ArchiveError(f"{self.path}: a job named {job_id} is already there")
            self.db.execute("INSERT INTO jobs VALUES (?, ?, 'running', ?, ?)",
                            (job_id, json.dumps(spec), now(), now()))

    def job(self, job_id):
        row = self.db.execute("SELECT spec, state, created, updated FROM jobs WHERE id = ?",
                              (job_id,)).fetchone()
        if row is None:
            raise ArchiveError(f"{self.path}: no job {job_id!r} to resume")
        totals = self.db.execute("SELECT count(*), coalesce(sum(deals), 0), coalesce(sum(hits), 0), "
                                 "coalesce(max(best_cards), 0), coalesce(sum(seconds), 0) "
                                 "FROM chunks WHERE job = ?", (job_id,)).fetchone()
        return {"id": job_id, "spec": json.loads(row[0]), "state": row[1], "created": row[2],
                "updated": row[3], "chunks": totals[0], "deals": totals[1], "hits": totals[2],
                "best_cards": totals[3], "seconds": totals[4]}

    def set_job_state(self, job_id, state):
        with self.transaction():
            self.db.execute("UPDATE jobs SET state = ?, updated = ? WHERE id = ?", (state, now(), job_id))

    def chunks_done(self, job_id):
        return {row[0] for row in self.db.execute("SELECT chunk FROM chunks WHERE job = ?", (job_id,))}

    def add_chunk(self, job_id, chunk, deals, hits, best_cards, seconds, stats=None):
        """Record a finished chunk (inside the transaction that keeps its
        hits); `stats` a dict of its games' statistics, or None."""
        self.db.execute("INSERT OR REPLACE INTO chunks (job, chunk, deals, hits, best_cards, seconds, "
                        "done_at, stats) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (job_id, chunk, deals, hits, best_cards, seconds, now(),
                         None if stats is None else json.dumps(stats)))

    def chunk_stats(self, job_id):
        """The statistics of every finished chunk of a job that has them: [dict]."""
        return [json.loads(row[0]) for row in self.db.execute(
            "SELECT stats FROM chunks WHERE job = ? AND stats IS NOT NULL ORDER BY chunk", (job_id,))]

    def longest_cards(self, job_id, place):
        """The cards of the job's `place`-th longest finished game (1: the
        longest), or 0 when it has fewer."""
        row = self.db.execute("SELECT cards FROM games WHERE job = ? AND status = 'finished' "
                              "ORDER BY cards DESC LIMIT 1 OFFSET ?", (job_id, place - 1)).fetchone()
        return row[0] if row else 0
        self.db.execute("UPDATE jobs SET updated = ? WHERE id = ?", (now(), job_id))
