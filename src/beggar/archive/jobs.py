"""The jobs and chunks tables' queries (a mixin of store.Archive): a job's
spec and state, the chunks it has finished and their records, each read
back checked (readback.read_job, read_chunk)."""

import json

from ..checks import MAX_COUNT
from ..decks import Deck
from . import readback
from .faults import ArchiveError, ArchiveFault
from .sql import dicts, guarded, now


@guarded
class Jobs:
    def add_job(self, job_id, spec):
        with self.transaction():
            if self.db.execute("SELECT 1 FROM jobs WHERE id = ?", (job_id,)).fetchone():
                raise ArchiveError(f"{self.path}: a job named {job_id} is already there")
            self.db.execute("INSERT INTO jobs VALUES (?, ?, 'running', ?, ?)",
                            (job_id, json.dumps(spec), now(), now()))

    def job(self, job_id):
        row = next(dicts(self.db.execute("SELECT id, spec, state, created, updated FROM jobs WHERE id = ?",
                                         (job_id,))), None)
        if row is None:
            raise ArchiveError(f"{self.path}: no job {job_id!r} to resume")
        job = readback.read_job(self.path, row)
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

    def last_job(self):
        row = self.db.execute("SELECT id FROM jobs ORDER BY updated DESC, rowid DESC LIMIT 1").fetchone()
        return None if row is None else readback.read_job(self.path, {"id": row[0]})["id"]

    def kept_by(self, job_id):
        return (self.db.execute("SELECT count(*) FROM games WHERE job = ?", (job_id,)).fetchone()[0],
                self.db.execute("SELECT count(*) FROM loops WHERE job = ?", (job_id,)).fetchone()[0])

    def job_figures(self):
        """Every job, oldest first: job() of each, with kept_by's `games` and
        `loops` and `best_game`, its longest finished game kept (or None)."""
        rows = []
        for (job_id,) in self.db.execute("SELECT id FROM jobs ORDER BY created, rowid").fetchall():
            job = self.job(job_id)
            job["games"], job["loops"] = self.kept_by(job_id)
            best = next(dicts(self.db.execute("SELECT id, cards, tricks, deal, driver FROM games WHERE job = ? AND "
                                              "status = 'finished' ORDER BY cards DESC, tricks DESC, id LIMIT 1",
                                              (job_id,))), None)
            job["best_game"] = None if best is None else readback.read_game(self.path, best)
            rows.append(job)
        return rows

    def set_job_state(self, job_id, state):
        with self.transaction():
            self.db.execute("UPDATE jobs SET state = ?, updated = ? WHERE id = ?", (state, now(), job_id))

    def chunks_kept(self, job_id):
        return self.db.execute("SELECT chunk, deals FROM chunks WHERE job = ?", (job_id,)).fetchall()

    def add_chunk(self, job_id, chunk, deals, hits, best_cards, seconds, stats=None):
        """Record a finished chunk (inside the transaction that keeps its hits)."""
        self.db.execute("INSERT OR REPLACE INTO chunks (job, chunk, deals, hits, best_cards, seconds, "
                        "done_at, stats) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (job_id, chunk, deals, hits, best_cards, seconds, now(),
                         None if stats is None else json.dumps(stats, separators=(",", ":"))))
        self.db.execute("UPDATE jobs SET updated = ? WHERE id = ?", (now(), job_id))

    def jobs(self):
        return [(job["id"], job["spec"]) for job in (
            readback.read_job(self.path, {"id": row[0], "spec": row[1]})
            for row in self.db.execute("SELECT id, spec FROM jobs ORDER BY rowid"))]

    def chunk_stats(self, job_id):
        return [stats for _, stats in self.chunk_records(job_id)]

    def chunk_records(self, job_id):
        # Checked against the Deck its job deals and its driver; None for what
        # its spec does not say (job.stored names what is wrong with it).
        row = self.db.execute("SELECT spec FROM jobs WHERE id = ?", (job_id,)).fetchone()
        try:
            spec = json.loads(row[0])
            deck, driver = Deck.parse(spec.get("deck", "standard")), spec.get("driver")
        except (TypeError, ValueError, AttributeError, RecursionError):
            deck = driver = None
        driver = driver if isinstance(driver, str) else None
        return [(chunk, readback.read_chunk(self.path, {"job": job_id, "chunk": chunk, "deals": deals, "stats": text},
                                            deck, driver, self._empty_hands)["stats"])
                for chunk, deals, text in self.db.execute(
                    "SELECT chunk, deals, stats FROM chunks WHERE job = ? AND stats IS NOT NULL ORDER BY chunk",
                    (job_id,))]
