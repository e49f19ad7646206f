"""Running a search job: chunks to worker processes, which play them and
replay their hits by the reference engine (drivers.work), the checked games
into the archive (drivers.keep), progress on the terminal.

Only this process writes the archive. A finished chunk is kept in one
transaction, its hits and the record that it is done together (keep.kept), so whatever
happens next (Ctrl-C, SIGTERM, a kill, a full disk) the archive holds every
hit reported so far, and a resumed job plays exactly the chunks still missing.
The first Ctrl-C or SIGTERM takes no new chunk and gives those in flight a
few seconds (STOP_SECONDS) to finish and be kept; then, or at a second one,
they are cut off and played again on resume. However many games a chunk
keeps, the job obeys the clock and the user.
"""

from __future__ import annotations

import itertools
import os
import signal
import threading
import time
from concurrent.futures import FIRST_COMPLETED, InvalidStateError, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context

from ..archive import ArchiveFault
from ..engine import GPU_ENGINES
from . import SearchError, drivers
from .drivers import keep, work
from .gpu_pool import GpuPool
from .job import check_engine, stored
from .progress import Progress
from .spec import WORKERS_PER_CORE, chunks_in, extends, max_workers


#: How long chunks in flight may run on once the time limit has passed.
CUT_OFF_SECONDS = 1.0

#: How long chunks in flight may run on after a first Ctrl-C or SIGTERM.
STOP_SECONDS = 3.0


@dataclass
class Summary:
    job: str
    state: str                  # done | stopped | failed
    workers: int                # worker processes, or threads alive on the cluster
    deals: int = 0              # in this run
    seconds: float = 0.0
    kept: int = 0               # hits new to the archive
    extended: int = 0           # of which, longest members of a hit's family
    known: int = 0              # hits it already held
    loops: int = 0
    best: tuple | None = None       # (deal, outcome) of the longest game played or found by
                                    # family extension in this run
    best_extended: bool = False     # whether the best was found by family extension
    reason: str = ""
    note: str = ""              # what the job's deals leave out, said once
    disputed: list = field(default_factory=list)
    announced: list = field(default_factory=list)   # records and new balanced loops, loudly
    # The loop factory (grow, perturb): deals counts tries, loops the new full loops.
    driver: str = ""
    largest: int = 0            # most cards in a looping state its walks reached
    full_loops: int = 0         # full loops reported (new or not)
    new_loops: list = field(default_factory=list)   # [(loop id, loops.Loop)] new to the archive
    prizes: list = field(default_factory=list)      # [(game id, loop id, deal)]: balanced loop deals
    bounds: list = field(default_factory=list)      # basin searches stopped by a bound, in words
    # A GPU job: the GPU's seconds playing and the checkers' seconds on what it played.
    gpu: tuple | None = None        # (GPU seconds, checking seconds, checking processes, fell behind, engine)


class _Stop:
    """SIGINT and SIGTERM: the first asks for a calm stop, the second for one at
    once. `told(reason)`, when given, is called at the first, from the handler:
    a user who pressed Ctrl-C learns at once what it does."""

    def __init__(self, told=None):
        self.reason = None
        self.previous = {}
        self.told = told

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            self.previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc):
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum, frame):
        if self.reason is not None:
            raise KeyboardInterrupt
        self.reason = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
        if self.told is not None:
            self.told(self.reason)

    def request(self, reason):
        if self.reason is None:
            self.reason = reason


def _worker_start(parent):
    # Ctrl-C reaches the whole process group; only the job's own process decides.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_follow_parent, args=(parent,), daemon=True).start()


def _follow_parent(parent):
    """End this worker when the job's process is gone (killed): nobody would
    read its results, and it would hold the job's terminal open."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def run(archive, job_id, time_limit=None, workers=None, progress=True, cluster=None, started=None,
        engine_name=None):
    """Run (or go on with) job `job_id` of `archive` until its budget is spent,
    `time_limit` seconds pass, or it is stopped: on worker processes of this
    machine, or on `cluster`, a connected cluster.Cluster; on the job's
    engine, or on `engine_name` for this run (every engine plays the same
    games). The job is claimed first (Archive.claim: a job runs in one
    process at a time), then `started(spec)` is called, if given. Returns a
    Summary; raises SearchError when it had to stop on a failure (the Summary
    is its .summary)."""
    with archive.claim(job_id):
        job = archive.job(job_id)
        spec = stored(job["spec"], f"{archive.path}: job {job_id}")
        if engine_name is not None:
            spec["engine"] = check_engine(spec, engine_name, f"job {job_id}")
        if started is not None:
            started(spec)
        return _run(archive, job, spec, time_limit, workers, progress, cluster)


def _run(archive, job, spec, time_limit, workers, progress, cluster):
    job_id = job["id"]
    notes = []
    if cluster is None:
        asked = workers or spec["workers"] or os.cpu_count() or 1
        count = min(asked, max_workers())
        if count < asked:
            notes.append(f"{asked} workers asked for; this machine runs at most {count} "
                         f"({WORKERS_PER_CORE} per core)")
        if spec["engine"] in GPU_ENGINES:
            # One process drives the GPU (gpu-host: plays its kernels); `count`
            # processes check what it plays.
            pool = GpuPool(count, _worker_start, (os.getpid(),))
        else:
            pool = ProcessPoolExecutor(count, mp_context=get_context("spawn"), initializer=_worker_start,
                                       initargs=(os.getpid(),))

        def alive():
            return count
    else:
        pool, alive = cluster.executor, cluster.workers
    workers = alive()
    summary = Summary(job_id, "stopped", workers)
    summary.driver = spec["driver"]
    if spec["extend_cards"] and not extends(spec):
        notes.append(f"family extension is for two players; it does not apply to these "
                     f"{spec['players']}-player deals")
    summary.note = "; ".join(notes)
    total = chunks_in(spec)
    done = archive.chunks_done(job_id)
    todo = (c for c in (range(total) if total is not None else itertools.count()) if c not in done)
    archive.set_job_state(job_id, "running")
    driver = drivers.of(spec)
    bar = Progress(job_id, spec["deals"], job["deals"], progress, driver.unit, time_limit=time_limit)
    best_cards = job["best_cards"]
    at_once = False
    pending = set()
    start = time.monotonic()
    cut_off_at = None           # once the time limit has passed: when chunks in flight are cut off
    # A chunk's seconds on a worker: the job's so far, then this run's.
    chunk_seconds = job["seconds"] / job["chunks"] if job["chunks"] else None
    kept_chunks = job["chunks"]

    def told(reason):
        # Chunks not yet handed to a worker are dropped (played on resume);
        # those a worker has finish and are kept.
        left = [future for future in pending if not future.cancel()]
        if not left:
            return
        seconds = None if chunk_seconds is None else chunk_seconds * -(-len(left) // max(1, workers))
        if seconds is not None and seconds <= STOP_SECONDS:
            about = f" in about {seconds:.0f} s and {'are' if len(left) != 1 else 'is'} kept"
        else:       # a flood of hits to cross-check, or chunks of minutes
            about = (f" and {'are' if len(left) != 1 else 'is'} kept if done within {STOP_SECONDS:g} s, "
                     "else cut off then")
        bar.announce(f"stopping ({reason}): {len(left)} chunk{'s' if len(left) != 1 else ''} in flight "
                     f"finish{'es' if len(left) == 1 else ''}{about}"
                     + ("; Ctrl-C again stops now (they are played again on resume)"
                        if reason == "Ctrl-C" else ""))

    try:
        with _Stop(told) as stop:
            while True:
                while stop.reason is None and len(pending) < 2 * max(1, workers):
                    if time_limit is not None and (
                            len(pending) >= max(1, workers) if chunk_seconds is None else
                            time.monotonic() - start + chunk_seconds * (1 + len(pending) // max(1, workers))
                            > time_limit + CUT_OFF_SECONDS):
                        break       # it would be cut off at the time limit: its work would be lost
                    chunk = next(todo, None)
                    if chunk is None:
                        break
                    pending.add(pool.submit(work, spec, chunk))
                if not pending:
                    if time_limit is not None and stop.reason is None and next(todo, None) is not None:
                        stop.request(f"time limit of {time_limit:g} s; no further chunk would finish within it")
                    break
                finished, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
                lost = None
                for future in finished:
                    if future.cancelled():
                        continue
                    if isinstance(future.exception(), BrokenProcessPool):
                        lost = future.exception()
                        continue
                    result = future.result()
                    kept_chunks += 1
                    chunk_seconds = result.seconds if chunk_seconds is None else \
                        chunk_seconds + (result.seconds - chunk_seconds) / kept_chunks
                    keep(archive, job_id, spec, result, summary, bar.announce)
                    if summary.best is not None:
                        best_cards = max(best_cards, summary.best[1].cards)
                    if result.growth is not None:
                        best_cards = max(best_cards, result.growth["largest"])
                    workers = summary.workers = alive()
                    bar.update(result.deals, best=best_cards, kept=summary.kept, loops=summary.loops,
                               workers=workers)
                if lost is not None:
                    raise lost
                now = time.monotonic()
                if time_limit is not None and now - start >= time_limit:
                    stop.request(f"time limit of {time_limit:g} s")
                if stop.reason is not None:
                    if cut_off_at is None:
                        timed = stop.reason.startswith("time limit")
                        cut_off_at = now + (CUT_OFF_SECONDS if timed else STOP_SECONDS)
                    elif pending and now >= cut_off_at:
                        # A chunk may run for minutes (a flood of hits to check):
                        # neither the clock nor the user waits for it. Its deals
                        # are played again on resume.
                        at_once = True
                        stop.reason += (f"; {len(pending)} chunk{'s' if len(pending) != 1 else ''} in "
                                        "flight cut off, played again on resume")
                        _kill_workers(pool)
                        break
            if stop.reason is None:
                driver.finish(archive, job_id, spec, summary)
                summary.state, summary.reason = "done", "budget spent"
            else:
                summary.reason = stop.reason
    except KeyboardInterrupt:
        at_once = True
        summary.reason = "stopped at once; chunks in flight will be played again on resume"
        _kill_workers(pool)
    except Exception as error:
        if isinstance(error, BrokenProcessPool):
            error = SearchError(f"a worker process died ({how_died(pool)}): "
                                "the chunks in flight are played again on resume")
        elif type(error).__name__ == "KilledWorker":        # Dask gave up on a chunk
            error = SearchError(f"a chunk killed every worker it was given to ({error})")
        elif not isinstance(error, SearchError):
            raise
        summary.state, summary.reason = "failed", str(error)
        error.summary = summary
        raise error from None
    finally:
        if cluster is None:
            pool.shutdown(wait=not at_once, cancel_futures=True)
        else:
            for future in pending:      # the cluster is the caller's to close
                future.cancel()
        bar.close()
        summary.seconds = time.monotonic() - start
        if isinstance(pool, GpuPool):
            summary.gpu = (pool.gpu_seconds, pool.check_seconds, pool.checkers, pool.behind(), spec["engine"])
        try:
            archive.set_job_state(job_id, summary.state)
        except ArchiveFault:
            pass        # the archive is what failed; its chunks say how far the job got
    return summary


def how_died(pool):
    """How the worker that broke a local pool ended, in words: the signal
    that killed it, by number and name ("killed by signal 11 (SIGSEGV)"), or
    its exit status. The pool ends its other workers with SIGTERM once one
    has died, so a worker killed by another signal is the one that broke it."""
    codes = []
    for inner in getattr(pool, "pools", ()) or (pool,):         # a GPU job's pools (gpu_pool.GpuPool)
        for process in list((getattr(inner, "_processes", None) or {}).values()):
            code = process.exitcode         # None: still ending
            if code:
                codes.append(code)
    if not codes:
        return "how is not known; perhaps killed by the system for want of memory"
    code = next((c for c in codes if c != -signal.SIGTERM), codes[0])
    if code > 0:
        return f"exit status {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = "an unknown signal"
    if -code == signal.SIGKILL:
        return f"killed by signal {-code} ({name}), perhaps by the system for want of memory"
    return f"killed by signal {-code} ({name})"


def _kill_workers(pool):
    """End the worker processes of a local pool now (a cluster's are left alone)."""
    for inner in getattr(pool, "pools", ()):        # a GPU job's (gpu_pool.GpuPool)
        _kill_workers(inner)
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        # Python 3.11's pool, finding its workers gone, sets an error on every
        # chunk it still holds, cancelled ones too, and prints the traceback
        # of the InvalidStateError that gives; the chunks are played on resume.
        previous = threading.excepthook

        def quiet(args):
            if not (args.thread is manager and issubclass(args.exc_type, InvalidStateError)):
                previous(args)
        threading.excepthook = quiet
    for process in processes:
        process.kill()
    for process in processes:
        process.join(5)
    # A worker killed while it sent a chunk's result leaves half a message in
    # the pool's result pipe, and the pool's thread waits for the rest for
    # ever (the job would print its summary and never exit): with the
    # workers gone, closing this process's own end of the pipe ends the wait.
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        writer.close()
