"""The store: Archive, an open archive, over the queries of each concern
(games.py, loops.py, jobs.py, driver_rows.py, claim.py). An open to read
never writes nor creates the file (docs/archive.md), and reads an older
format that differs only in names (schema.NAMED_THEN) under this one's. No
sqlite3.Error leaves the store: each is an ArchiveFault naming the file."""

import os
import shlex
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path

from ..checks import cut
from . import migrations, readback, schema
from .claim import Claims
from .driver_rows import DriverRows
from .faults import ArchiveError, ArchiveFault, in_words
from .games import Games
from .jobs import Jobs
from .loops import Loops
from .schema import APPLICATION_ID, SCHEMA_VERSION

DEFAULT_PATH = os.path.join("results", "archive.sqlite")

#: How long to wait for another process's write lock (BEGGAR_LOCK_SECONDS changes it).
LOCK_SECONDS = 60


def lock_seconds():
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


def _is_sqlite(path):
    try:
        with open(path, "rb") as file:
            return file.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def no_such_archive(path):
    """The one line for an archive that is not there, whoever looks for it."""
    return ArchiveError(f"{path}: no such archive (a search creates it)")


def archive_option(path):
    """What a command printed for the archive at `path` adds to name it:
    ' --archive PATH' as a shell reads it, or nothing for the default one."""
    return "" if str(path) == DEFAULT_PATH else f" --archive {shlex.quote(str(path))}"


class Archive(Games, Loops, Jobs, DriverRows, Claims):
    """An open archive, a context manager; its queries are those of its tables.

    `link_loop`: the function from a Deal to the loops.Loop it falls into
    (loops.of_deal) that the migrations which play games need (migrations.py;
    the archive plays none); without it such an archive is refused and left
    as it was. `create=False`: an open to write that finds no archive
    refuses as a read-only one does (a resume: there is nothing to go on with)."""

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
        """A connection that never writes the archive: opened for writing with
        every write refused (query_only) where it can be, so that the last
        connection to close removes SQLite's side files (-wal, -shm), which a
        read-only one would leave behind; immutable where its folder cannot
        take the side files."""
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
            try:
                migrations.migrate(self, self.link_loop)
            except sqlite3.Error as error:
                raise self.fault(error) from None
            version = self.version = SCHEMA_VERSION
        elif version > SCHEMA_VERSION:
            raise ArchiveError(f"{self.path}: archive format {version}; this beggar reads {SCHEMA_VERSION} "
                               "and older: update beggar")
        schema.check_tables(db, self.path, version)
        if not self.readonly:
            db.execute("PRAGMA synchronous = FULL")     # a commit survives a crash of the machine
        db.execute("PRAGMA foreign_keys = ON")

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

    def close(self):
        try:
            self.db.close()
        except sqlite3.Error as error:
            raise self.fault(error) from None

    def discard(self):
        """Close the archive, and remove it, its side files and the folders
        its open created where this open created it and it holds nothing yet:
        a job refused before it was stored leaves no archive behind. Looked
        at under the write lock: another job that created the same new
        archive at the same moment and stored anything in it keeps it."""
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
        try:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
        except sqlite3.Error as error:
            raise self.fault(error) from None
