"""The archive as several processes see it at once."""

import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from beggar import Deal, Rules, play
from beggar.archive import APPLICATION_ID, SCHEMA_VERSION, Archive

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


V1_ARCHIVE = Path(__file__).with_name("data") / "archive-v1.sqlite"


def test_an_archive_of_format_1_is_migrated_and_keeps_working(tmp_path):
    """tests/data/archive-v1.sqlite was written by beggar 0.1.0 (format 1): a
    sample job of 40,000 26/26 deals, seed 4, with family extension."""
    path = tmp_path / "old.sqlite"
    shutil.copy(V1_ARCHIVE, path)
    with sqlite3.connect(path) as old:
        before = old.execute("SELECT id, deal, cards, job FROM games ORDER BY id").fetchall()
        jobs = old.execute("SELECT id, spec FROM jobs").fetchall()
    assert before and len(jobs) == 1
    with Archive(str(path)) as archive:
        assert archive.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        games = archive.games()
        assert sorted((g["id"], g["deal"], g["cards"], g["job"]) for g in games) == before
        assert {(g["deck"], g["players"], g["split"]) for g in games} == {("standard", 2, 26)}
        assert len(archive.games(deck="standard", players=2)) == len(before)
        assert archive.games(deck="camicia") == [] and archive.games(players=3) == []
        job = archive.job(jobs[0][0])
        assert job["spec"] == json.loads(jobs[0][1]) and job["chunks"] == 2
        # The old job resumes (it is done) and new games go in beside the old ones.
        deal = Deal.shuffled(3, 1, 0)
        outcome = play(deal)
        with archive.transaction():
            game_id, new = archive.add_game(deal, Rules(), outcome, outcome)
        assert new and archive.game(game_id)["players"] == 3
    with Archive(str(path)) as again:        # a second open migrates nothing more
        assert len(again.games()) == len(before) + 1
