"""The store: an open archive, and what it keeps and reads back (games,
loops, jobs and the chunks they have finished).

An archive opened to be read (`readonly=True`) is never written, not even
created: a missing one is an ArchiveError (no_such_archive: the same line
for every command, and for a resume, which opens to write but must not
create what it then finds empty), one in a folder that cannot be
written (a read-only filesystem) is read as it stands, and one of an older
format that differs only in names (schema.NAMED_THEN) is read under the
names of this one. Whatever SQLite reports of an archive that cannot be
used now (locked for too long, read-only, damaged, a full disk) is an
ArchiveFault naming the file: no sqlite3.Error leaves the store.
"""

import functools
import json
import os
import shlex
import sqlite3
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from ..checks import MAX_COUNT, cut
from ..decks import Deck, hand_sizes
from . import migrations, readback, schema
from .faults import ArchiveError, ArchiveFault, in_words
from .schema import APPLICATION_ID, SCHEMA_VERSION, table_of

DEFAULT_PATH = os.path.join("results", "archive.sqlite")

#: Values one look-up of many rows names at most (SQLite before 3.32 takes 999).
_BATCH = 900

#: How long to wait for another process's write lock (BEGGAR_LOCK_SECONDS changes it).
LOCK_SECONDS = 60


def lock_seconds():
    """LOCK_SECONDS, or the seconds of BEGGAR_LOCK_SECONDS."""
    text = os.environ.get("BEGGAR_LOCK_SECONDS")
    if text is None:
        return LOCK_SECONDS
    try:
        # ASCII only: float() reads full-width and other scripts' digits too.
        value = float(text) if text.isascii() and len(text) <= 40 else -1.0
    except ValueError:
        value = -1.0
    if not 0 <= value <= 10 ** 6:
        raise ArchiveError(f"BEGGAR_LOCK_SECONDS must be a number of seconds from 0 to 1000000, not {cut(text)}")
    return value


def _guarded(method):
    """The method, with what SQLite raises turned into an ArchiveFault."""
    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as error:
            raise self.fault(error) from None
    return guarded


def _is_sqlite(path):
    """Whether the file at `path` begins as every SQLite database does."""
    try:
        with open(path, "rb") as file:
            return file.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def no_such_archive(path):
    """The one line for an archive that is not there, whoever looks for it."""
    return ArchiveError(f"{path}: no such archive (a search creates it)")


# What tells the hand sizes of a game's deal apart in SQL, as the archive
# writes a deal (str(Deal): one character a card, 2-4 hands split by '/'):
# where the first three hands end and the length of the whole. Computed in
# SQLite, not Python: a report groups every game by it.
_AFTER_1 = "substr(deal, instr(deal, '/') + 1)"
_AFTER_2 = f"substr({_AFTER_1}, instr({_AFTER_1}, '/') + 1)"
# Two hands are told by the first's size (split) alone, and most games have two.
_HAND_SIZES = (f"(CASE WHEN players = 2 THEN split ELSE instr(deal, '/') || '/' || instr({_AFTER_1}, '/') || '/' "
               f"|| instr({_AFTER_2}, '/') || '/' || length(deal) END)")


def now():
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def archive_option(path):
    """What a command printed for the archive at `path` adds to name it:
    ' --archive PATH' as a shell reads it, or nothing for the default one."""
    return "" if str(path) == DEFAULT_PATH else f" --archive {shlex.quote(str(path))}"


def rules_key(rules):
    """The rules as the canonical JSON text the archive keys games by."""
    return json.dumps(rules.as_dict(), sort_keys=True)


def _where(*conditions, **equal):
    """(' WHERE ...', its arguments) of the columns `equal` names that are
    given a value (None: not narrowed by it) and of `conditions`, each an
    (SQL, *arguments) tuple or a false value (left out); ('', []) for none.
    Every query that a listing narrows is narrowed here."""
    where, args = [], []
    for column, value in equal.items():
        if value is not None:
            where.append(f"{column} = ?")
            args.append(value)
    for sql, *values in filter(None, conditions):
        where.append(sql)
        args.extend(values)
    return (" WHERE " + " AND ".join(where) if where else ""), args


def _game_filter(loops, record_cards, min_cards, disputed, job, deck, players, status, split=None):
    """_where of the games a listing asks for (Archive.games)."""
    return _where(loops and ("status = 'loop'",),
                  record_cards is not None and ("status = 'finished' AND cards >= ? AND deck = 'standard' "
                                                "AND players = 2", record_cards),
                  min_cards is not None and ("cards >= ?", min_cards), disputed and ("disputed = 1",),
                  split=split, status=status, deck=None if deck is None else str(Deck.parse(deck)),
                  players=players, job=job)


class Archive:
    """An open archive. Use as a context manager, or call close().

    `link_loop`: what an open to write hands the migration of an archive of
    format 3 or older, which links every loop game to its loop, or of format
    5 or older whose loop keys hold players who are out, which names those
    loops by their players (migrations.py): a function from a Deal to the
    loops.Loop it falls into (deck, hex, players, period, states, balanced),
    raising a BadInput when its game ends (loops.of_deal is one). Without
    it, such an archive is refused (ArchiveFault) and left as it was. A
    read-only open never migrates.
    `create=False`: an open to write that finds no archive refuses as a
    read-only one does (a resume: there is nothing to go on with)."""

    def __init__(self, path=DEFAULT_PATH, readonly=False, link_loop=None, create=True):
        self.path = str(path)
        self.readonly = readonly
        self.link_loop = link_loop
        # A game's columns as this archive names them -> as this format does
        # (a read-only open of a format of schema.NAMED_THEN reads it as it stands).
        self._game_names = {}
        # Whether its loop keys may hold the empty hands of players who are out
        # (a read-only open of format readback.EMPTY_HANDS_UNTIL or older).
        self._empty_hands = False
        self.lock_seconds = lock_seconds()
        self.created = False            # whether this open created the archive (discard removes only such)
        self._folder_created = None     # the outermost folder this open created, if any
        path = self.path
        if not path:
            raise ArchiveError("the archive's path is empty: name a file")
        if os.path.isdir(path):
            raise ArchiveError(f"{path}: is a directory, not an archive file")
        if os.path.exists(path) and not os.path.isfile(path):
            raise ArchiveError(f"{path}: not a file, so not an archive (a device, a pipe?)")
        if (readonly or not create) and not os.path.exists(path):
            raise no_such_archive(path)
        folder = os.path.dirname(os.path.abspath(path))
        if readonly:
            self.db = self._connect_to_read()
        else:
            if not os.path.isdir(folder):
                above = folder
                while not os.path.lexists(above):
                    self._folder_created, above = above, os.path.dirname(above)
                try:
                    os.makedirs(folder, exist_ok=True)
                except OSError as error:
                    raise ArchiveError(f"{path}: cannot create its folder ({error.strerror})") from None
            # SQLite would open a file it cannot write read-only, and fail at
            # the first write: say so before anything is done.
            if os.path.exists(path) and not os.access(path, os.W_OK):
                raise ArchiveFault(f"{path}: read-only: this archive cannot be written (a search "
                                   "writes its games and progress into it)")
            if not os.access(folder, os.W_OK):
                raise ArchiveFault(f"{path}: its folder is read-only: the archive cannot be written there")
            try:
                self.db = sqlite3.connect(path, timeout=self.lock_seconds, isolation_level=None)
            except sqlite3.Error as error:
                raise self.fault(error) from None
        try:
            self._check_or_create()
        except sqlite3.OperationalError as error:
            self.db.close()
            raise self.fault(error) from None
        except sqlite3.DatabaseError as error:
            self.db.close()
            if _is_sqlite(path):        # an archive cut short, or written over in part
                raise ArchiveFault(f"{path}: damaged: restore it from a copy, or start a new archive "
                                   f"({error})") from None
            raise ArchiveError(f"{path}: not a beggar archive ({error})") from None
        except sqlite3.Error as error:
            self.db.close()
            raise self.fault(error) from None
        except BaseException:
            self.db.close()
            raise

    def _connect_to_read(self):
        """A connection that never writes the archive. Where the file and its
        folder can be written it is opened for writing with every write refused
        (query_only), so that the last connection to close removes SQLite's
        side files (-wal, -shm), which a read-only one would leave behind; a
        file that cannot be written is opened read-only, and one whose folder
        cannot be written (no room for the side files) as an immutable file."""
        folder_writable = os.access(os.path.dirname(os.path.abspath(self.path)), os.W_OK)
        writable = folder_writable and os.access(self.path, os.W_OK)
        uri = Path(self.path).resolve().as_uri() + ("?mode=rw" if writable else "?mode=ro")
        if not folder_writable:
            uri += "&immutable=1"
        try:
            db = sqlite3.connect(uri, uri=True, timeout=self.lock_seconds, isolation_level=None)
            db.execute("PRAGMA query_only = 1")
            return db
        except sqlite3.Error as error:
            raise self.fault(error) from None

    def fault(self, error):
        """The ArchiveFault that an sqlite3.Error stands for, in words."""
        return in_words(self.path, error, self.lock_seconds)

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
        if application == 0 and tables == 0 and not self.readonly:
            self._switch_to_wal()       # a new archive (never someone else's file)
            # Look again under the write lock: another job may be creating the
            # same archive at this very moment.
            with self.transaction():
                application = db.execute("PRAGMA application_id").fetchone()[0]
                tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if application == 0 and tables == 0:
                    schema.create(db)
                    application = APPLICATION_ID
                    self.created = True
        if application != APPLICATION_ID:
            raise ArchiveError(f"{self.path}: not a beggar archive (an SQLite file of something else)")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        self.version = version
        if version < SCHEMA_VERSION and self.readonly and version in schema.NAMED_THEN:
            named = schema.NAMED_THEN[version].get("games", {})
            self._game_names = {old: new for new, old in named.items()}
            self._empty_hands = version <= readback.EMPTY_HANDS_UNTIL
        elif version < SCHEMA_VERSION:
            if self.readonly:
                raise ArchiveFault(f"{self.path}: archive format {version}, to be brought to format "
                                   f"{SCHEMA_VERSION}: open it once where it can be written (a search does)")
            self._migrate()
            version = self.version = SCHEMA_VERSION
        elif version > SCHEMA_VERSION:
            raise ArchiveError(f"{self.path}: archive format {version}; this beggar reads {SCHEMA_VERSION} "
                               "and older: update beggar")
        schema.check_tables(db, self.path, version)
        if not self.readonly:
            db.execute("PRAGMA synchronous = FULL")     # a commit survives a crash of the machine
        db.execute("PRAGMA foreign_keys = ON")

    @_guarded
    def _migrate(self):
        migrations.migrate(self, self.link_loop)

    def _switch_to_wal(self):
        """WAL lets readers and one writer work at once. Switching needs a moment
        alone with the file, and SQLite does not wait for it: retry a while."""
        deadline = time.monotonic() + self.lock_seconds
        while True:
            try:
                self.db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    @_guarded
    def close(self):
        self.db.close()

    def discard(self):
        """Close the archive, and remove it where this open created it and
        it holds nothing yet (no job, chunk, game or loop): with its side
        files and the folders its open created, so that a job refused before
        it was stored leaves no archive behind. Looked at under the write
        lock: another job that created the same new archive at the same
        moment and stored anything in it keeps it."""
        empty = False
        if self.created and not self.readonly:
            try:
                with self.transaction():
                    empty = not any(self.db.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone()
                                    for table in ("jobs", "chunks", "games", "loops"))
            except ArchiveFault:
                empty = False       # it cannot be looked at now: it stays
        self.close()
        if not empty:
            return
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.remove(self.path + suffix)
            except FileNotFoundError:
                pass
            except OSError:
                return      # it stays, and so do its folders
        folder = os.path.dirname(os.path.abspath(self.path))
        while self._folder_created is not None:
            try:
                os.rmdir(folder)
            except OSError:
                return      # something else went into it
            if folder == self._folder_created:
                return
            folder = os.path.dirname(folder)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @contextmanager
    def transaction(self):
        """One write transaction: all of it is kept, or none."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise self.fault(error) from None
        try:
            yield
        except BaseException:
            self._roll_back()
            raise
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error as error:
            self._roll_back()
            raise self.fault(error) from None

    def _roll_back(self):
        """End the open transaction, keeping none of it. A rollback that SQLite
        refuses is an ArchiveFault too: no sqlite3.Error leaves the archive."""
        try:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
        except sqlite3.Error as error:
            raise self.fault(error) from None

    # ------------------------------------------------------------ games

    @_guarded
    def add_game(self, deal, rules, compiled, reference, job=None, driver=None, seed=None,
                 chunk=None, parent=None, rank=None, loop=None):
        """Keep a game (inside a transaction). Returns (id, new): a deal already
        kept under the same rules is not stored twice."""
        disputed = compiled != reference
        row = (str(deal), rules_key(rules), compiled.status, compiled.winner, compiled.cards,
               compiled.tricks, *(compiled.loop_entry or (None, None)),
               *(compiled.loop_period or (None, None)), json.dumps(compiled.as_dict()),
               json.dumps(reference.as_dict()), int(disputed), job, driver, seed, chunk, parent, now(),
               *table_of(deal), None if rank is None else str(rank), None if loop is None else loop.hex())
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO games (deal, rules, status, winner, cards, tricks, entry_tricks, "
            "entry_cards, period_tricks, period_cards, compiled, reference, disputed, job, driver, "
            "seed, chunk, parent, found_at, deck, players, split, rank, loop) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            row)
        if cursor.rowcount:
            return cursor.lastrowid, True
        found = self.db.execute("SELECT id FROM games WHERE deal = ? AND rules = ?", row[:2]).fetchone()
        return found[0], False

    @_guarded
    def add_games(self, rows):
        """Keep many games at once (inside a transaction), as add_game would
        one by one, in their order: `rows` are add_game's arguments (deal,
        rules, compiled, reference, job, driver, seed, chunk, parent, rank,
        loop) but for `parent`, which is the parent's deal (kept before it,
        by an earlier row or an earlier call), not its id. Returns [(id,
        new)], a deal kept before (or by an earlier row) not new."""
        rules_keys = {}         # id(rules) -> its key: a chunk's games share one Rules
        keyed = []
        for row in rows:
            rules = row[1]
            if id(rules) not in rules_keys:
                rules_keys[id(rules)] = rules_key(rules)
            keyed.append(((str(row[0]), rules_keys[id(rules)]), row))
        keys = {key for key, _ in keyed}
        before = self._game_ids(keys)
        values, seen = [], set()
        for key, (deal, rules, compiled, reference, job, driver, seed, chunk, parent, rank, loop) in keyed:
            if key in before or key in seen:
                continue        # INSERT OR IGNORE would ignore it: its row need not be written out
            seen.add(key)
            values.append((*key, compiled.status, compiled.winner, compiled.cards,
                           compiled.tricks, *(compiled.loop_entry or (None, None)),
                           *(compiled.loop_period or (None, None)), json.dumps(compiled.as_dict()),
                           json.dumps(reference.as_dict()), int(compiled != reference), job, driver, seed, chunk,
                           None if parent is None else str(parent), key[1], now(), *table_of(deal),
                           None if rank is None else str(rank), None if loop is None else loop.hex()))
        # One statement for every row; a parent is looked up as its row is
        # inserted, so it may be a row of the same call.
        self.db.executemany(
            "INSERT OR IGNORE INTO games (deal, rules, status, winner, cards, tricks, entry_tricks, "
            "entry_cards, period_tricks, period_cards, compiled, reference, disputed, job, driver, "
            "seed, chunk, parent, found_at, deck, players, split, rank, loop) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "(SELECT id FROM games WHERE deal = ? AND rules = ?), ?, ?, ?, ?, ?, ?)", values)
        ids = {**before, **self._game_ids(seen)}
        found, seen = [], set()
        for key, _ in keyed:
            found.append((ids[key], key not in before and key not in seen))
            seen.add(key)
        return found

    def _game_ids(self, keys):
        """{(deal text, rules key): id} of the games kept of `keys`."""
        found = {}
        by_rules = {}
        for deal, rules in keys:
            by_rules.setdefault(rules, []).append(deal)
        for rules, deals in by_rules.items():
            for at in range(0, len(deals), _BATCH):
                batch = deals[at:at + _BATCH]
                found.update(((deal, rules), game_id) for deal, game_id in self.db.execute(
                    f"SELECT deal, id FROM games WHERE rules = ? AND deal IN ({', '.join('?' * len(batch))})",
                    (rules, *batch)))
        return found

    @_guarded
    def games(self, loops=False, record_cards=None, min_cards=None, disputed=False, job=None, limit=None,
              deck=None, players=None, status=None, loops_first=True, split=None):
        """Kept games as dicts, best first: loops, then the longest games
        (`loops_first=False`: the longest first, whatever their status).
        `deck` (a decks.Deck or its name or notation), `players`, `split` (the
        first hand's size) and `status` narrow them; `record_cards` keeps the finished games of the
        published records' table (standard deck, two players) at least that
        long (published.RECORD_CARDS)."""
        where, args = _game_filter(loops, record_cards, min_cards, disputed, job, deck, players, status, split)
        sql = "SELECT * FROM games" + where
        sql += (" ORDER BY status = 'loop' DESC," if loops_first else " ORDER BY") + " cards DESC, tricks DESC, id"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        cursor = self.db.execute(sql, args)
        names = [d[0] for d in cursor.description]
        return [self._game(names, row) for row in cursor]

    @_guarded
    def count_games(self, loops=False, record_cards=None, min_cards=None, disputed=False, job=None, deck=None,
                    players=None, status=None):
        """How many kept games games() would give with no limit."""
        where, args = _game_filter(loops, record_cards, min_cards, disputed, job, deck, players, status)
        return self.db.execute("SELECT count(*) FROM games" + where, args).fetchone()[0]

    @_guarded
    def longest_by_table(self, job=None, per_table=5):
        """The `per_table` longest finished games (of job `job`, when given) of
        each table (deck, players, hand sizes), longest first, as games() gives
        them, with `hands` their hand sizes ('26/26'); the tables in the order
        of their longest game. Chosen in SQL, on a few columns: an archive of
        half a million games is never read whole for the few a report shows."""
        where, args = "status = 'finished'" + (" AND job = ?" if job is not None else ""), \
            [job] if job is not None else []
        chosen = self.db.execute(
            f"WITH sized AS (SELECT id, cards, tricks, deck, players, {_HAND_SIZES} AS hands FROM games "
            f"WHERE {where}), ranked AS (SELECT id, hands, row_number() OVER (PARTITION BY deck, players, hands "
            "ORDER BY cards DESC, tricks DESC, id) AS place, max(cards) OVER (PARTITION BY deck, players, hands) "
            "AS best, deck, players FROM sized) SELECT id FROM ranked WHERE place <= ? "
            "ORDER BY best DESC, deck, players, hands, place", (*args, per_table)).fetchall()
        found = []
        for (game_id,) in chosen:
            game = self.game(game_id)
            game["hands"] = "/".join(str(len(hand)) for hand in game["deal"].split("/"))
            found.append(game)
        return found

    @_guarded
    def balanced_by_table(self, job=None, per_table=5, loops_per_table=10, first=()):
        """The kept balanced deals that never end (of job `job`, when given),
        by table (deck, players), the tables in that order: dicts with `deck`,
        `players`, `hands` ('18/17/17'), `deals` and `loops` (how many, and
        into how many loops), `games` (the first `per_table` kept, as games()
        gives them, those whose deals are among `first` ahead) and `by_loop` (the loops
        holding the most of them, at most `loops_per_table`: (loop key, deals
        of this table in it)). Counted in SQL on a few columns."""
        job_where, job_args = (" AND job = ?", [job]) if job is not None else ("", [])
        found = []
        grouped = self.db.execute(
            f"SELECT deck, players, hands, count(*), count(DISTINCT loop), min(id) FROM (SELECT id, deck, players, "
            f"{_HAND_SIZES} AS hands, loop FROM games WHERE status = 'loop'{job_where}) "
            "GROUP BY deck, players, hands ORDER BY deck, players", job_args).fetchall()
        for deck, players, hands, deals, loops, first_id in grouped:
            # hands tells the sizes apart, and one game of them, read back and checked, says what they are.
            one = self.game(first_id)
            sizes = [len(hand) for hand in one["deal"].split("/")]
            if sizes != hand_sizes(Deck.parse(one["deck"]).total, one["players"]):
                continue
            where = f"status = 'loop' AND deck = ? AND players = ? AND {_HAND_SIZES} = ?{job_where}"
            args = [deck, players, hands, *job_args]
            chosen = [row[0] for row in self.db.execute(
                f"SELECT id FROM games WHERE {where} ORDER BY deal IN ({','.join('?' * len(first)) or 'NULL'}) DESC, "
                "id LIMIT ?", (*args, *map(str, first), per_table))]
            by_loop = self.db.execute(f"SELECT loop, count(*) FROM games WHERE {where} GROUP BY loop "
                                      "ORDER BY count(*) DESC, min(id) LIMIT ?", (*args, loops_per_table)).fetchall()
            found.append({"deck": deck, "players": players, "hands": "/".join(str(size) for size in sizes),
                          "deals": deals, "loops": loops, "games": [self.game(game_id) for game_id in chosen],
                          "by_loop": by_loop})
        return found

    @_guarded
    def kept_lengths(self, job_id, min_cards=0):
        """The games job `job_id` kept of `min_cards` cards or more, as plain
        (id, status, cards, driver, parent) tuples, by id: the games whose
        family searches the odds of a job count. Read by the index of lengths,
        so that a job that kept half a million short games costs only the
        long ones; their columns are checked in SQL, all at once; the first
        that makes no sense is an ArchiveFault naming it."""
        bad = self.db.execute(
            "SELECT id FROM games WHERE cards >= ? AND job = ? AND NOT (status IN ('finished', 'loop', 'stopped') "
            "AND typeof(cards) = 'integer' AND cards BETWEEN 0 AND ? AND (driver IS NULL OR (typeof(driver) = 'text' "
            "AND length(driver) BETWEEN 1 AND ?)) AND (parent IS NULL OR (typeof(parent) = 'integer' "
            "AND parent >= 1))) LIMIT 1", (min_cards, job_id, MAX_COUNT, readback.MOST_NAME)).fetchone()
        if bad is not None:
            # The reader says what is wrong with it, column by column.
            self.game(bad[0])
            raise ArchiveFault(f"{self.path}: damaged: game {bad[0]}: its status, cards, driver or parent "
                               "make no sense")
        # Ordered here, not by SQLite: ORDER BY id would have it scan every game by id instead.
        return sorted(self.db.execute("SELECT id, status, cards, driver, parent FROM games WHERE cards >= ? "
                                      "AND job = ?", (min_cards, job_id)))

    @_guarded
    def kept_length_counts(self, job_id):
        """The finished games job `job_id` kept, counted by length, as two
        dicts {cards: games}: those it played, and those family extension
        found. Counted by SQLite: a few thousand lengths, never every game."""
        played, extended = {}, {}
        for cards, by_extension, games in self.db.execute(
                "SELECT cards, driver IS 'extension', count(*) FROM games WHERE job = ? AND status = 'finished' "
                "GROUP BY 1, 2", (job_id,)):
            if isinstance(cards, bool) or not isinstance(cards, int) or not 0 <= cards <= MAX_COUNT:
                bad = self.db.execute("SELECT id FROM games WHERE job = ? AND status = 'finished' AND cards IS ? "
                                      "LIMIT 1", (job_id, cards)).fetchone()[0]
                self.game(bad)          # the reader says what is wrong with it
                raise ArchiveFault(f"{self.path}: damaged: game {bad}: its cards make no sense")
            (extended if by_extension else played)[cards] = games
        return played, extended

    @_guarded
    def game(self, game_id):
        cursor = self.db.execute("SELECT * FROM games WHERE id = ?", (game_id,))
        row = cursor.fetchone()
        if row is None:
            raise ArchiveError(f"{self.path}: no game with id {game_id}")
        return self._game([d[0] for d in cursor.description], row)

    def parent(self, game):
        """The game that `game` (a game read) names as its parent, the game
        whose family search found it, or None where it names none: an
        ArchiveFault where the archive holds no such game (no game a family
        search started from is ever removed: the row that names it is damaged)."""
        if game["parent"] is None:
            return None
        try:
            return self.game(game["parent"])
        except ArchiveError:
            raise ArchiveFault(f"{self.path}: damaged: game {game['id']}: its parent names game {game['parent']}, "
                               "which the archive does not hold") from None

    def _game(self, names, row):
        """A row of games as read, checked column by column (readback.read_game)."""
        return readback.read_game(self.path, {self._game_names.get(name, name): value
                                              for name, value in zip(names, row)}, self._empty_hands)

    # ------------------------------------------------------------ loops

    @_guarded
    def add_loop(self, loop, job=None, driver=None, chunk=None):
        """Keep a loops.Loop (inside a transaction). Returns (id, new): a loop
        already kept (same deck and canonical state) keeps its first finder."""
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO loops (key, deck, players, period_tricks, period_cards, states, balanced, "
            "job, driver, chunk, found_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (loop.hex, loop.deck, loop.players, *loop.period, len(loop.states), int(loop.balanced), job,
             driver, chunk, now()))
        if cursor.rowcount:
            return cursor.lastrowid, True
        return self.loop_id(loop.deck, loop.hex), False

    @_guarded
    def loop_id(self, deck, key):
        """The id of the loop of `deck` with canonical state `key` (hex), or None."""
        row = self.db.execute("SELECT id FROM loops WHERE deck = ? AND key = ?", (deck, key)).fetchone()
        return None if row is None else row[0]

    @_guarded
    def basin_searched(self, deck, key):
        """Whether the archive holds the loop of `deck` with canonical state
        `key` (hex) with its basin searched: one row's column, read alone."""
        row = self.db.execute("SELECT basin_states FROM loops WHERE deck = ? AND key = ?", (deck, key)).fetchone()
        return row is not None and row[0] is not None

    @_guarded
    def known_loops(self, deck, keys):
        """Of the canonical states `keys` (hex) of loops of `deck`, those the archive holds."""
        keys = list(keys)
        known = set()
        for at in range(0, len(keys), _BATCH):
            batch = keys[at:at + _BATCH]
            known.update(row[0] for row in self.db.execute(
                f"SELECT key FROM loops WHERE deck = ? AND key IN ({', '.join('?' * len(batch))})", (deck, *batch)))
        return known

    @_guarded
    def loop_games_by_table(self, deck, job):
        """The kept games of status loop of `deck`, counted by the loop they
        fall into and their table: {(loop key, players): (of job `job`, of
        any job)}; what a hunt's seats are checked against."""
        return {(key, players): (mine, every) for key, players, mine, every in self.db.execute(
            "SELECT loop, players, sum(job IS ?), count(*) FROM games WHERE deck = ? AND status = 'loop' "
            "AND loop IS NOT NULL GROUP BY loop, players ORDER BY loop, players", (job, deck))}

    @_guarded
    def set_basin(self, loop_id, states, deals, stopped_by):
        """Record the result of a loop's basin search (inside a transaction)."""
        self.db.execute("UPDATE loops SET basin_states = ?, basin_deals = ?, basin_stopped_by = ? WHERE id = ?",
                        (states, deals, stopped_by, loop_id))

    @_guarded
    def loops(self, deck=None, job=None, balanced=False, limit=None, loop_id=None):
        """Kept loops as dicts, best first: those with balanced deals found
        (by its basin search, of two players, or kept deals of a table of
        three or four that fall into it), then those with a balanced state,
        then the shortest periods. Each has `games`: how many kept games of
        status loop fall into it, at any table."""
        where, args = _where(balanced and ("(balanced = 1 OR basin_deals > 0)",), id=loop_id,
                             deck=None if deck is None else str(Deck.parse(deck)), job=job)
        sql = ("SELECT *, (SELECT count(*) FROM games WHERE games.deck = loops.deck AND games.loop = loops.key) "
               "AS games FROM loops" + where
               + " ORDER BY (coalesce(basin_deals, 0) > 0 OR EXISTS (SELECT 1 FROM games WHERE games.deck = loops.deck "
               "AND games.players > 2 AND games.loop = loops.key)) DESC, balanced DESC, period_tricks, id")
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        cursor = self.db.execute(sql, args)
        names = [d[0] for d in cursor.description]
        return [readback.read_loop(self.path, dict(zip(names, row)), self._empty_hands) for row in cursor]

    @_guarded
    def check_loop_games(self, job=None):
        """ArchiveFault unless every kept game of status loop (of job `job`,
        when given) falls into a loop the archive holds: a loop row is kept in
        the transaction that keeps the first game that falls into it, and never
        removed, so a game naming a key no row holds (a row's key damaged, a
        row deleted) is damage. A loop so damaged would drop out of the loops
        a report shows, unsaid."""
        row = self.db.execute(
            "SELECT id, loop FROM games WHERE loop IS NOT NULL" + (" AND job = ?" if job is not None else "")
            + " AND NOT EXISTS (SELECT 1 FROM loops WHERE loops.deck = games.deck AND loops.key = games.loop) "
            "ORDER BY id LIMIT 1", [job] if job is not None else []).fetchone()
        if row is not None:
            raise ArchiveFault(f"{self.path}: damaged: game {row[0]} falls into the loop of key {cut(row[1])}, and "
                               "the archive holds no loop of that key")

    @_guarded
    def count_loops(self, deck=None, job=None):
        """How many loops loops(deck=deck, job=job) would give with no limit."""
        where, args = _where(deck=None if deck is None else str(Deck.parse(deck)), job=job)
        return self.db.execute("SELECT count(*) FROM loops" + where, args).fetchone()[0]

    @_guarded
    def loop(self, loop_id):
        """One kept loop as a dict (see loops()), with `deals`: its kept games of status loop."""
        found = self.loops(loop_id=loop_id)
        if not found:
            raise ArchiveError(f"{self.path}: no loop with id {loop_id}")
        row = found[0]
        cursor = self.db.execute("SELECT * FROM games WHERE deck = ? AND loop = ? ORDER BY id",
                                 (row["deck"], row["key"]))
        names = [d[0] for d in cursor.description]
        row["deals"] = [self._game(names, game) for game in cursor]
        return row

    # ------------------------------------------------------------ jobs

    @_guarded
    def put_row(self, job_id, kind, key, value):
        """Keep a driver's row (inside the transaction that keeps what it
        stands for): its `kind` and `key` (names), and `value`, a JSON object
        of the driver's own shape. A row of the same job, kind and key is
        replaced."""
        self.db.execute("INSERT OR REPLACE INTO driver_rows (job, kind, key, value, done_at) VALUES (?, ?, ?, ?, ?)",
                        (job_id, kind, key, json.dumps(value, separators=(",", ":")), now()))

    @_guarded
    def rows(self, kind, job_id=None, keys=None):
        """The driver rows of `kind` (of job `job_id`, of the keys `keys`,
        when given), as dicts of job, kind, key, value (read) and done_at, in
        the order they were kept, each checked but for what its value holds
        (readback.read_driver_row: that is its driver's to check). An archive
        of format 6 read as it stands gives its seats as format 7 keeps them;
        one older has none."""
        if self.version == 6:
            found = [dict(zip(("job", "kind", "key", "value", "done_at"), row))
                     for row in migrations.old_driver_rows(self.db, self.path)]
        elif "driver_rows" in schema.tables_after(self.version):
            found = []
        else:
            where, args = _where(kind=kind, job=job_id)
            keys = None if keys is None else list(keys)
            if keys is not None:
                where += f" AND key IN ({', '.join('?' * len(keys))})"
            cursor = self.db.execute(f"SELECT job, kind, key, value, done_at FROM driver_rows{where} ORDER BY rowid",
                                     (*args, *(keys or ())))
            found = [dict(zip(("job", "kind", "key", "value", "done_at"), row)) for row in cursor]
        return [readback.read_driver_row(self.path, row) for row in found
                if row["kind"] == kind and job_id in (None, row["job"]) and (keys is None or row["key"] in keys)]

    @_guarded
    def add_job(self, job_id, spec):
        with self.transaction():
            if self.db.execute("SELECT 1 FROM jobs WHERE id = ?", (job_id,)).fetchone():
                raise ArchiveError(f"{self.path}: a job named {job_id} is already there")
            self.db.execute("INSERT INTO jobs VALUES (?, ?, 'running', ?, ?)",
                            (job_id, json.dumps(spec), now(), now()))

    @_guarded
    def job(self, job_id):
        """Job `job_id`: its row (readback.read_job) and what its chunks add up to."""
        cursor = self.db.execute("SELECT id, spec, state, created, updated FROM jobs WHERE id = ?", (job_id,))
        row = cursor.fetchone()
        if row is None:
            raise ArchiveError(f"{self.path}: no job {job_id!r} to resume")
        job = readback.read_job(self.path, dict(zip([d[0] for d in cursor.description], row)))
        readback.check_chunk_numbers(self.db, self.path, job_id)
        totals = self.db.execute("SELECT count(*), coalesce(sum(deals), 0), coalesce(sum(hits), 0), "
                                 "coalesce(max(best_cards), 0), coalesce(sum(seconds), 0) "
                                 "FROM chunks WHERE job = ?", (job_id,)).fetchone()
        if not totals[1] <= MAX_COUNT:
            raise ArchiveFault(f"{self.path}: damaged: the chunks of job {job_id} add up to {totals[1]} deals, "
                               "over 10**18")
        # Chunks cut a budget: together they never play past it.
        budget = job["spec"].get("deals") if isinstance(job["spec"], dict) else None
        if type(budget) is int and 0 < budget < totals[1]:
            raise ArchiveFault(f"{self.path}: damaged: the chunks of job {job_id} add up to {totals[1]:,}, over its "
                               f"budget of {budget:,}")
        job.update(chunks=totals[0], deals=totals[1], hits=totals[2], best_cards=totals[3], seconds=totals[4])
        return job

    @contextmanager
    def claim(self, job_id):
        """Hold job `job_id` while this process runs it: a second runner of the
        same job (on the same archive) is refused with an ArchiveFault rather
        than playing every chunk again. The claim is a lock on one byte (the
        job's row number) of the file beside the archive named ARCHIVE-running,
        which the system lets go of when the process ends, however it ends.
        Locks are the process's: one process runs one job of an archive at a
        time. Where the system has no such locks (Windows), nothing is held.
        The claim is the file's, not the name's: the running file is found
        beside the archive's real path (a resume through a link to it meets
        the same claim), and a link planted in its place is never followed."""
        try:
            import fcntl
        except ImportError:                 # pragma: no cover
            yield
            return
        row = self._job_row(job_id)
        lock_path = self.running_path()
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o666)
        except OSError as error:
            if os.path.islink(lock_path):
                raise ArchiveFault(f"{lock_path}: a link stands where the file that marks running jobs "
                                   "goes; it is not followed: remove it") from None
            raise ArchiveFault(f"{lock_path}: cannot open the file that marks running jobs "
                               f"({error.strerror})") from None
        try:
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, row)
            except OSError:
                raise ArchiveFault(f"{self.path}: job {job_id} is running in another process; "
                                   "wait for it to end, or stop it (Ctrl-C) and resume it here") from None
            yield
        finally:
            os.close(fd)

    def running_path(self):
        """The file whose locks claim the archive's jobs: ARCHIVE-running beside
        the archive's real path."""
        return f"{os.path.realpath(self.path)}-running"

    def running(self, job_id):
        """Whether a process holds job `job_id`'s claim now (Archive.claim):
        a shared lock on its byte of ARCHIVE-running is refused while one does.
        Only looks: the file is opened to be read, and never created. None
        where it cannot be told (no such locks, no file to open)."""
        try:
            import fcntl
        except ImportError:                 # pragma: no cover
            return None
        path = self.running_path()
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return False if not os.path.lexists(path) else None
        try:
            row = self._job_row(job_id)
            try:
                fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, row)
            except OSError:
                return True
            fcntl.lockf(fd, fcntl.LOCK_UN, 1, row)
            return False
        finally:
            os.close(fd)

    @_guarded
    def last_job(self):
        """The id of the job run last (its last chunk kept, or created), or None."""
        row = self.db.execute("SELECT id FROM jobs ORDER BY updated DESC, rowid DESC LIMIT 1").fetchone()
        return None if row is None else readback.read_job(self.path, {"id": row[0]})["id"]

    @_guarded
    def kept_by(self, job_id):
        """(games, loops) that job `job_id` kept: games it found, loops it found first."""
        return (self.db.execute("SELECT count(*) FROM games WHERE job = ?", (job_id,)).fetchone()[0],
                self.db.execute("SELECT count(*) FROM loops WHERE job = ?", (job_id,)).fetchone()[0])

    @_guarded
    def job_figures(self):
        """Every job with what it has done, oldest first: job() of each, with
        `games` and `loops` (kept games and loops it found first) and
        `best_game` (its longest finished game kept: id, cards, tricks, deal,
        driver; None when it kept none)."""
        rows = []
        for (job_id,) in self.db.execute("SELECT id FROM jobs ORDER BY created, rowid").fetchall():
            job = self.job(job_id)
            job["games"], job["loops"] = self.kept_by(job_id)
            best = self.db.execute("SELECT id, cards, tricks, deal, driver FROM games WHERE job = ? AND "
                                   "status = 'finished' ORDER BY cards DESC, tricks DESC, id LIMIT 1",
                                   (job_id,)).fetchone()
            job["best_game"] = None if best is None else readback.read_game(
                self.path, dict(zip(("id", "cards", "tricks", "deal", "driver"), best)))
            rows.append(job)
        return rows

    @_guarded
    def _job_row(self, job_id):
        row = self.db.execute("SELECT rowid FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            raise ArchiveError(f"{self.path}: no job {job_id!r} to resume")
        return row[0]

    @_guarded
    def set_job_state(self, job_id, state):
        with self.transaction():
            self.db.execute("UPDATE jobs SET state = ?, updated = ? WHERE id = ?", (state, now(), job_id))

    @_guarded
    def chunks_done(self, job_id):
        readback.check_chunk_numbers(self.db, self.path, job_id)
        return {row[0] for row in self.db.execute("SELECT chunk FROM chunks WHERE job = ?", (job_id,))}

    @_guarded
    def chunks_kept(self, job_id):
        """[(chunk, deals)] of the chunks of job `job_id` that are done."""
        return self.db.execute("SELECT chunk, deals FROM chunks WHERE job = ?", (job_id,)).fetchall()

    @_guarded
    def add_chunk(self, job_id, chunk, deals, hits, best_cards, seconds, stats=None):
        """Record a finished chunk (inside the transaction that keeps its
        hits); `stats` a dict of its games' statistics, or None."""
        self.db.execute("INSERT OR REPLACE INTO chunks (job, chunk, deals, hits, best_cards, seconds, "
                        "done_at, stats) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (job_id, chunk, deals, hits, best_cards, seconds, now(),
                         None if stats is None else json.dumps(stats, separators=(",", ":"))))
        self.db.execute("UPDATE jobs SET updated = ? WHERE id = ?", (now(), job_id))

    @_guarded
    def jobs(self):
        """Every job of the archive: [(id, spec)], oldest first."""
        return [(job["id"], job["spec"]) for job in (
            readback.read_job(self.path, {"id": row[0], "spec": row[1]})
            for row in self.db.execute("SELECT id, spec FROM jobs ORDER BY rowid"))]

    def chunk_stats(self, job_id):
        """The statistics of every finished chunk of a job that has them: [dict],
        each checked (readback.stats_problem): ArchiveFault for one that makes no sense."""
        return [stats for _, stats in self.chunk_records(job_id)]

    @_guarded
    def chunk_records(self, job_id):
        """chunk_stats with each chunk's number: [(chunk, dict)], by chunk."""
        deck, driver = self._table_of(job_id)
        return [(chunk, readback.read_chunk(self.path, {"job": job_id, "chunk": chunk, "deals": deals, "stats": text},
                                            deck, driver, self._empty_hands)["stats"])
                for chunk, deals, text in self.db.execute(
                    "SELECT chunk, deals, stats FROM chunks WHERE job = ? AND stats IS NOT NULL ORDER BY chunk",
                    (job_id,))]

    def _table_of(self, job_id):
        """(the Deck job `job_id` deals, its driver), which its chunks' records
        are checked against; None for what its spec does not say (the
        search's check of the spec, job.stored, names what is wrong with it)."""
        row = self.db.execute("SELECT spec FROM jobs WHERE id = ?", (job_id,)).fetchone()
        try:
            spec = json.loads(row[0])
            driver = spec.get("driver")
            return Deck.parse(spec.get("deck", "standard")), driver if isinstance(driver, str) else None
        except (TypeError, ValueError, AttributeError, RecursionError):
            return None, None

    @_guarded
    def keep_longest(self, job_id, top):
        """Of the finished games census job `job_id` kept (each chunk keeps its
        own `top` longest), keep the job's `top` longest, the earlier rank
        first on a tie, and delete the rest; its loop deals stay. Returns how
        many were deleted. Called once the census is complete, so a census
        ends with the same games whatever the order its chunks finished."""
        with self.transaction():
            cursor = self.db.execute(
                "DELETE FROM games WHERE job = ? AND driver = 'census' AND status = 'finished' AND id NOT IN "
                "(SELECT id FROM games WHERE job = ? AND driver = 'census' AND status = 'finished' "
                "ORDER BY cards DESC, length(rank), rank LIMIT ?)", (job_id, job_id, top))
            return cursor.rowcount
