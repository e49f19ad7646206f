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
from .job import check_devices, check_engine, stored
from .progress import Progress
from .keep import Cut
from .spec import WORKERS_PER_CORE, extends, grouped, max_workers
from .units import Pacer, Plan


#: How long chunks in flight may run on once the time limit has passed (a run
#: that has kept no chunk yet gives them STOP_SECONDS: it makes progress).
CUT_OFF_SECONDS = 1.0

#: How long chunks in flight may run on after a first Ctrl-C or SIGTERM.
STOP_SECONDS = 3.0

#: Of those, what ending the workers of chunks cut off and printing the
#: summary take, on a busy machine: they are cut off this much sooner, so
#: that the job has ended within STOP_SECONDS of the signal.
EXIT_SECONDS = 0.5

#: How long a broken pool is given to reap its workers, to read how they ended.
REAP_SECONDS = 5.0


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
    # A hunt: the loops it perturbs from and what its seats reached (hunt.Hunt).
    hunt: object = None
    # A GPU job: the GPU's seconds playing and the checkers' seconds on what it played.
    gpu: tuple | None = None        # (GPU seconds, checking seconds, checking processes, fell behind, engine,
                                    # GPUs: 1 here, the GPU workers on a cluster; devices)


class _Stop:
    """SIGINT and SIGTERM: the first asks for a calm stop, the second for one at
    once. `told(reason)`, when given, is called at the first, from the handler:
    a user who pressed Ctrl-C learns at once what it does."""

    def __init__(self, told=None):
        self.reason = None
        self.at = None          # when it was asked for (time.monotonic)
        self.previous = {}
        self.told = told
        # The signal that asked for a stop at once: the command's exit status
        # reports it (130 or 143), as a shell reports the signal that ends a command.
        self.at_once = None

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            self.previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc):
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum, frame):
        if self.reason is not None:
            self.at_once = signum
            raise KeyboardInterrupt
        self.reason = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
        self.at = time.monotonic()
        if self.told is not None:
            self.told(self.reason)

    def request(self, reason):
        if self.reason is None:
            self.reason = reason
            self.at = time.monotonic()


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
        engine_name=None, devices=None):
    """Run (or go on with) job `job_id` of `archive` until its budget is spent,
    `time_limit` seconds pass, or it is stopped: on worker processes of this
    machine, or on `cluster`, a connected cluster.Cluster; on the job's
    engine, or on `engine_name` for this run (every engine plays the same
    games), and `devices` (a GPU job's, for this run). The job is claimed first (Archive.claim: a job runs in one
    process at a time), then `started(spec)` is called, if given. Returns a
    Summary; raises SearchError when it had to stop on a failure (the Summary
    is its .summary)."""
    with archive.claim(job_id):
        job = archive.job(job_id)
        spec = stored(job["spec"], f"{archive.path}: job {job_id}")
        if engine_name is not None:
            spec["engine"] = check_engine(spec, engine_name, f"job {job_id}")
        if spec["engine"] not in GPU_ENGINES:
            spec["devices"] = None          # a GPU job gone on on the CPU
        elif devices is not None:
            spec["devices"] = check_devices(spec, devices, f"job {job_id}")
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
            pool = GpuPool.here(count, _worker_start, (os.getpid(),))
        else:
            pool = ProcessPoolExecutor(count, mp_context=get_context("spawn"), initializer=_worker_start,
                                       initargs=(os.getpid(),))

        def alive():
            return count
    elif spec["engine"] in GPU_ENGINES:
        # The GPU workers play the chunks, any worker checks them (cluster.py).
        players, checkers = cluster.gpu_counts()
        pool = GpuPool(cluster.gpu_executor, cluster.executor, checkers, players)

        def alive():
            pool.players, pool.checkers = cluster.gpu_counts()
            return cluster.workers()
    else:
        pool, alive = cluster.executor, cluster.workers
    workers = alive()
    summary = Summary(job_id, "stopped", workers)
    summary.driver = spec["driver"]
    if spec["extend_cards"] and not extends(spec):
        notes.append(f"family extension is for two players; it does not apply to these "
                     f"{spec['players']}-player deals")
    summary.note = "; ".join(notes)
    plan = Plan(spec, archive.chunks_kept(job_id))
    driver = drivers.of(spec)
    driver.going_on(archive, job_id, spec, summary)
    # A job whose chunks are runs of parts gets them sized as it runs (units.py).
    pacer = Pacer(spec, spec["chunk_seconds"]) if grouped(spec) else None
    in_flight = {}              # a chunk handed out: its parts
    archive.set_job_state(job_id, "running")
    bar = Progress(job_id, spec["deals"], job["deals"], progress, driver.unit, time_limit=time_limit,
                   bound=driver.bound(spec))
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
        each = [expected(in_flight.get(future, 1)) for future in left]
        seconds = None if None in each else sum(each) / len(each) * -(-len(left) // max(1, workers))
        if seconds is not None and seconds <= STOP_SECONDS - EXIT_SECONDS:
            about = f" in about {seconds:.0f} s and {'are' if len(left) != 1 else 'is'} kept"
        else:       # a flood of hits to cross-check, or chunks of minutes
            about = (f" and {'are' if len(left) != 1 else 'is'} kept if done within {STOP_SECONDS - EXIT_SECONDS:g} s, "
                     "else cut off then")
        bar.announce(f"stopping ({reason}): {len(left)} chunk{'s' if len(left) != 1 else ''} in flight "
                     f"finish{'es' if len(left) == 1 else ''}{about}"
                     + ("; Ctrl-C again stops now (they are played again on resume)"
                        if reason == "Ctrl-C" else ""))

    def expected(parts):
        # The seconds a chunk of `parts` parts takes in a worker, as far as
        # this job's chunks so far tell (None: none is known yet).
        return chunk_seconds if pacer is None else pacer.expected(parts)

    def grace(reason):
        # How long chunks in flight may go on once a stop is asked for: a
        # time limit gives them a second, or, where this run has kept no chunk
        # yet (its workers were starting, a part takes long on a busy
        # machine), as long as a stop signal does, so that a run makes progress.
        return CUT_OFF_SECONDS if reason.startswith("time limit") and summary.deals else STOP_SECONDS - EXIT_SECONDS

    def between():
        # Between two parts of a large keep: a stop's or the clock's deadline
        # passed gives the keep up; its chunk is rolled back, played on resume.
        if stop.at is not None:
            deadline = stop.at + grace(stop.reason)
        elif time_limit is not None:
            deadline = start + time_limit + grace("time limit")
        else:
            return
        if time.monotonic() >= deadline:
            raise Cut

    def next_chunk():
        """(first part, parts) of the chunk to hand out now, or None: none
        is left, or none would finish within the time limit."""
        now = time.monotonic()
        if pacer is None:
            if time_limit is not None and (
                    len(pending) >= max(1, workers) if chunk_seconds is None else
                    now - start + chunk_seconds * (1 + len(pending) // max(1, workers))
                    > time_limit + CUT_OFF_SECONDS):
                return None         # it would be cut off at the time limit: its work would be lost
            return plan.take(1)
        seconds = None
        if time_limit is not None:
            if now - start >= time_limit:
                return None
            # What is left of the time once the chunks already handed out
            # are done; with none in flight, one part at least (progress).
            queued = sum(expected(in_flight[future]) or 0 for future in pending)
            seconds = time_limit - (now - start) - queued / max(1, workers)
            if pending and (pacer.expected(1) or 0) > seconds:
                return None
        return plan.take(pacer.parts(seconds))

    stop = _Stop(told)
    try:
        with stop:
            while True:
                while stop.reason is None and len(pending) < 2 * max(1, workers):
                    chunk = next_chunk()
                    if chunk is None:
                        break
                    future = pool.submit(work, driver.handed(spec, summary), *chunk)
                    pending.add(future)
                    in_flight[future] = chunk[1]
                if not pending:
                    if time_limit is not None and stop.reason is None and plan.left():
                        stop.request(f"time limit of {time_limit:g} s" + (
                            "" if time.monotonic() - start >= time_limit else
                            "; no further chunk would finish within it"))
                    break
                finished, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
                lost = None
                cut = 0         # chunks given up by a keep cut off at a deadline (keep.Cut)
                for future in finished:
                    parts = in_flight.pop(future, 1)
                    if future.cancelled():
                        continue
                    if cut:
                        cut += 1
                        continue
                    if isinstance(future.exception(), BrokenProcessPool):
                        lost = future.exception()
                        continue
                    result = future.result()
                    kept_chunks += 1
                    chunk_seconds = result.seconds if chunk_seconds is None else \
                        chunk_seconds + (result.seconds - chunk_seconds) / kept_chunks
                    began = time.monotonic()
                    try:
                        between()       # a deadline passed while it waited: kept on resume
                        keep(archive, job_id, spec, result, summary, bar.announce, between)
                    except Cut:
                        cut = 1
                        continue
                    if pacer is not None:
                        pacer.finished(result, parts, time.monotonic() - began)
                    if summary.best is not None:
                        best_cards = max(best_cards, summary.best[1].cards)
                    if result.growth is not None:
                        best_cards = max(best_cards, result.growth["largest"])
                    workers = summary.workers = alive()
                    bar.update(result.deals, **driver.progress(summary, best_cards), workers=workers)
                if lost is not None:
                    raise lost
                if cut:
                    at_once = True
                    if stop.reason is None:         # the clock's deadline passed, not a stop's
                        stop.request(f"time limit of {time_limit:g} s")
                    cut += len(pending)
                    stop.reason += (f"; {cut} chunk{'s' if cut != 1 else ''} in flight cut off, played again "
                                    "on resume")
                    _kill_workers(pool)
                    break
                now = time.monotonic()
                if time_limit is not None and now - start >= time_limit:
                    stop.request(f"time limit of {time_limit:g} s")
                if stop.reason is not None:
                    if cut_off_at is None:
                        cut_off_at = stop.at + grace(stop.reason)
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
                summary.state, summary.reason = "done", driver.done_reason
            else:
                summary.reason = stop.reason
    except KeyboardInterrupt:
        at_once = True
        # "SIGTERM ..." exits 143 (cli.search.exit_status); a Ctrl-C, 130.
        by_term = stop.at_once == signal.SIGTERM
        summary.reason = (("SIGTERM: " if by_term else "")
                          + "stopped at once; chunks in flight will be played again on resume")
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
            if not at_once and stop is not None and stop.reason is not None:
                # Stopped, its chunks kept: the workers are idle, and ending
                # them is quicker than waiting for each to wind down on a
                # busy machine (a stop's promise is to have ended in 3 s).
                at_once = True
                _kill_workers(pool)
            pool.shutdown(wait=not at_once, cancel_futures=True)
        else:
            for future in pending:      # the cluster is the caller's to close
                future.cancel()
        bar.close()
        summary.seconds = time.monotonic() - start
        if isinstance(pool, GpuPool):
            summary.gpu = (pool.gpu_seconds, pool.check_seconds, pool.checkers, pool.behind(), spec["engine"],
                           pool.players, spec["devices"])
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
    inners = getattr(pool, "pools", ()) or (pool,)         # a GPU job's pools (gpu_pool.GpuPool)
    for inner in inners:
        # A broken pool fails its chunks first, then ends its other workers
        # and reaps them all in its manager thread: once that thread has
        # ended, every worker's exit status is set (read before, one being
        # reaped there may still read as running).
        manager = getattr(inner, "_executor_manager_thread", None)
        if getattr(inner, "_broken", False) and manager is not None:
            manager.join(REAP_SECONDS)
    codes = [process.exitcode for inner in inners
             for process in list((getattr(inner, "_processes", None) or {}).values())
             if process.exitcode]       # None: still ending
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
    # One wait for them all, not one each: a stop's promise is seconds.
    deadline = time.monotonic() + 2
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    # A worker killed while it sent a chunk's result leaves half a message in
    # the pool's result pipe, and the pool's thread waits for the rest for
    # ever (the job would print its summary and never exit): with the
    # workers gone, closing this process's own end of the pipe ends the wait.
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        writer.close()
