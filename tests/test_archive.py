"""The archive as several processes see it at once."""

import subprocess
import sys
import time

import pytest

from beggar.archive import APPLICATION_ID, Archive

# Each process waits for the same moment, then opens the archive: whoever comes
# first creates it, the others must find it whole.
OPEN_AT = """
import sys, time
from beggar.archive import Archive
at = float(sys.argv[2])
time.sleep(max(0.0, at - time.time()))
Archive(sys.argv[1]).close()
"""


@pytest.mark.slow
def test_processes_creating_one_archive_at_once_all_succeed(tmp_path):
    for attempt in range(5):
        path = tmp_path / f"archive{attempt}.sqlite"
        at = time.time() + 1.5      # after every interpreter has started
        jobs = [subprocess.Popen([sys.executable, "-c", OPEN_AT, str(path), str(at)],
                                 stderr=subprocess.PIPE, text=True) for _ in range(6)]
        errors = [job.communicate(timeout=60)[1] for job in jobs]
        assert all(job.returncode == 0 for job in jobs), errors
        with Archive(str(path)) as archive:
            assert archive.db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
            assert archive.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
