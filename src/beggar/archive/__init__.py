"""The results archive: the games searches keep, and the jobs that found them, in SQLite.

One file (results/archive.sqlite by default) that several jobs may write at
once: WAL journal, a generous busy timeout, and short transactions. A game is
kept once per deal and rules, with who found it (job, driver, seed, chunk),
when, and its outcome from both engines; a game on which the engines
disagree is kept marked disputed. Jobs record the chunks they have finished,
which is what `beggar search --resume` continues from. Loops are kept once
each, by deck and canonical state (loops.py: the state of the players on
its cycle), with who found them and the result of their basin search; a
game of status `loop` names its loop by the same two (its `deck` and `loop`
columns), whatever its table.

The archive stores and plays no game; its parts (schema, migrations, store
and the queries of each table, sql, readback, faults) each say what they
hold, and docs/architecture.md how they fit.
"""

from .faults import ArchiveError, ArchiveFault
from .games import rules_key
from .schema import APPLICATION_ID, SCHEMA_VERSION, table_of
from .sql import now
from .store import DEFAULT_PATH, LOCK_SECONDS, Archive, archive_option, lock_seconds

__all__ = ["APPLICATION_ID", "DEFAULT_PATH", "LOCK_SECONDS", "SCHEMA_VERSION", "Archive", "ArchiveError",
           "ArchiveFault", "archive_option", "lock_seconds", "now", "rules_key", "table_of"]
