"""The results archive: the games searches keep, and the jobs that found them, in SQLite
(docs/archive.md). One file that several jobs may write at once: WAL journal, a
generous busy timeout, and short transactions. The archive stores and plays no
game; its parts each say what they hold, and docs/architecture.md how they fit.
"""

from .faults import ArchiveError, ArchiveFault
from .games import rules_key
from .schema import APPLICATION_ID, SCHEMA_VERSION, table_of
from .sql import now
from .store import DEFAULT_PATH, LOCK_SECONDS, Archive, archive_option, lock_seconds

__all__ = ["APPLICATION_ID", "DEFAULT_PATH", "LOCK_SECONDS", "SCHEMA_VERSION", "Archive", "ArchiveError",
           "ArchiveFault", "archive_option", "lock_seconds", "now", "rules_key", "table_of"]
