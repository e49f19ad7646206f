"""The claim of a job (a mixin of store.Archive): the lock on the file
beside the archive that a running job holds, so that no second process
runs it at once."""

import os
from contextlib import contextmanager

try:
    import fcntl
except ImportError:                 # pragma: no cover: no such locks (Windows): nothing is held
    fcntl = None

from .faults import ArchiveError, ArchiveFault
from .sql import guarded


@guarded
class Claims:
    @contextmanager
    def claim(self, job_id):
        """Hold job `job_id` while this process runs it, so that a second runner
        is refused (docs/searching.md): a lock on its row number's byte of
        ARCHIVE-running. Locks are the process's: one process runs one job of
        an archive at a time."""
        if fcntl is None:                   # pragma: no cover
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
        if fcntl is None:                   # pragma: no cover
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

    def _job_row(self, job_id):
        row = self.db.execute("SELECT rowid FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            raise ArchiveError(f"{self.path}: no job {job_id!r} to resume")
        return row[0]
