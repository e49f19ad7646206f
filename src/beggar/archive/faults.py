"""The archive's two errors, and what SQLite's errors mean in words."""

from ..errors import BadInput, Fault


class ArchiveError(BadInput):
    """An archive that cannot be used as asked (not an archive, no such game or
    job): the user's to correct; the message names the file."""


class ArchiveFault(Fault):
    """An archive that is there but cannot be used now: locked by another
    process for too long, read-only, damaged, on a full disk. The message names
    the file and what is wrong."""


def in_words(path, error, lock_seconds):
    """The ArchiveFault that an sqlite3.Error met on the archive at `path`
    stands for, in words (`lock_seconds`: how long a write lock was waited for)."""
    text = str(error)
    for words, what in ((("locked", "busy"), f"locked: another process has held its write lock for over "
                                             f"{lock_seconds:g} s; try again once it lets go"),
                        (("readonly", "read-only"), "read-only: this archive cannot be written"),
                        (("full",), "the disk is full: nothing more can be written"),
                        (("malformed", "no such", "corrupt", "not a database"),
                         "damaged: restore it from a copy, or start a new archive"),
                        (("unable to open",), "cannot be opened")):
        if any(word in text for word in words):
            break
    else:
        what = "cannot be used"
    return ArchiveFault(f"{path}: {what} ({text})")
