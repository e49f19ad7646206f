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
    if "locked" in text or "busy" in text:
        what = (f"locked: another process has held its write lock for over {lock_seconds:g} s; "
                "try again once it lets go")
    elif "readonly" in text or "read-only" in text:
        what = "read-only: this archive cannot be written"
    elif "full" in text:
        what = "the disk is full: nothing more can be written"
    elif "malformed" in text or "no such" in text or "corrupt" in text or "not a database" in text:
        what = "damaged: restore it from a copy, or start a new archive"
    elif "unable to open" in text:
        what = "cannot be opened"
    else:
        what = "cannot be used"
    return ArchiveFault(f"{path}: {what} ({text})")
