"""The results archive (SQLite): store.py, as archive.py was, moved into a package."""

from .store import (APPLICATION_ID, DEFAULT_PATH, LOCK_SECONDS, RECORD_CARDS, SCHEMA_VERSION, Archive, ArchiveError,
                    ArchiveFault, lock_seconds, now, rules_key, table_of)

__all__ = ["APPLICATION_ID", "DEFAULT_PATH", "LOCK_SECONDS", "RECORD_CARDS", "SCHEMA_VERSION", "Archive",
           "ArchiveError", "ArchiveFault", "lock_seconds", "now", "rules_key", "table_of"]
