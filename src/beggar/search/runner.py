"""Running a search job: its units of work to worker processes, which play
and check them (drivers.work), the checked games into the archive by this
process alone (drivers.keep), progress on the terminal. Dispatch is the loop; StopPolicy
says, by the clock it is given, when it takes no more work and when the
work in flight is cut off (docs/searching.md tells a stop): however many
games a chunk keeps, the job obeys the clock and the user.
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
from . import SearchError, drivers
from .drivers import keep, work
from .gpu_pool import GpuPool
from .job import check_devices, check_engine, stored
from .progress import Progress
from .keep import Cut
from .spec import WORKERS_PER_CORE, extends, max_workers
from .units import CUT_OFF_SECONDS

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
    announced: list = field(default_factory=list)   # records and new balanced loops, loudly
    untold: int = 0             # new balanced loops past the first few told (announce.TOLD), counted
    driver: str = ""
    payload: object = None      # the driver's own part (a hunt's state, the loop factory's tally)
    # A GPU job: the GPU's seconds playing and the checkers' seconds on what it played.
    gpu: tuple | None = None        # (GPU seconds, checking seconds, checking processes, fell behind, engine,
                                    # GPUs: 1 here, the GPU workers on a cluster; devices)


class _Stop:
    """SIGINT and SIGTERM: the first asks for a calm stop (`told(reason)`, at
    once: a user who pressed Ctrl-C learns what it does), one after a stop
    was asked for (by a signal or the clock) for one at once."""

    def __init__(self, policy, told):
        self.policy, self.told = policy, told
        # The signal that asked for a stop at once: the command's exit status
        # reports it (130 or 143), as a shell reports the signal that ends a command.
        self.at_once = None

    def __enter__(self):
        self.previous = {sig: signal.signal(sig, self._handle) for sig in (signal.SIGINT, signal.SIGTERM)}
        return self

    def __exit__(self, *exc):
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum, frame):
        if self.policy.reason is not None:
            self.at_once = signum
            raise KeyboardInterrupt
        self.told("Ctrl-C" if signum == signal.SIGINT else "SIGTERM")


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
    `time_limit` seconds pass, or it is stopped: here, or on `cluster`, a
    connected cluster.Cluster; on `engine_name` and `devices` for this run,
    where given. The job is claimed first (one process at a time), then
    `started(spec)` is called, if given. Returns a Summary; raises
    SearchError when it had to stop on a failure (the Summary is its .summary)."""
    with archive.claim(job_id):
        job = archive.job(job_id)
        spec = stored(job["spec"], f"{archive.path}: job {job_id}")
        if engine_name is not None:
            spec["engine"] = check_engine(spec, engine_name, f"job {job_id}")
        if not spec["engine"].gpu:
            spec["devices"] = None          # a GPU job gone on on the CPU
        elif devices is not None:
            spec["devices"] = check_devices(spec, devices, f"job {job_id}")
        # What it goes on from, read back and checked before a word is said or a worker started:
        # damaged records, or a job this beggar no longer plays, are one line.
        going = Summary(job_id, "stopped", 0)
        drivers.of(spec).going_on(archive, job_id, spec, going)
        if started is not None:
            started(spec)
        return _run(archive, job, spec, time_limit, workers, progress, cluster, going.payload)


def _run(archive, job, spec, time_limit, workers, progress, cluster, payload):
    job_id = job["id"]
    pool, alive, notes = _pool(spec, workers, cluster)
    if spec["extend_cards"] and not extends(spec):
        if spec["players"] != 2:
            notes.append(f"family extension is for two players; it does not apply to these "
                         f"{spec['players']}-player deals")
        else:
            notes.append(f"family extension plays back by the standard trick; it does not apply to variant "
                         f"{spec['variant']}, which lays on")
    summary = Summary(job_id, "stopped", alive(), note="; ".join(notes), driver=spec["driver"], payload=payload)
    driver = drivers.of(spec)
    source = driver.units(archive, job, spec, summary)
    archive.set_job_state(job_id, "running")
    bar = Progress(job_id, spec["deals"], job["deals"], progress, driver.budget.unit, time_limit=time_limit,
                   bound=driver.bound(spec))
    policy = StopPolicy(time_limit)
    dispatch = Dispatch(archive, job, spec, pool, alive, source, policy, summary, bar)
    stop = _Stop(policy, dispatch.stopping)
    try:
        with stop:
            dispatch.run()
            if dispatch.policy.reason is None:
                driver.finish(archive, job_id, spec, summary)
                summary.state, summary.reason = "done", driver.budget.done
            else:
                summary.reason = dispatch.policy.reason + dispatch.cut_off_words()
    except KeyboardInterrupt:
        dispatch.at_once = True
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
        dispatch.close(cluster is None)
        summary.seconds = dispatch.policy.elapsed()
        if isinstance(pool, GpuPool):
            summary.gpu = (pool.gpu_seconds, pool.check_seconds, pool.checkers, pool.behind(), spec["engine"],
                           pool.players, spec["devices"])
        try:
            archive.set_job_state(job_id, summary.state)
        except ArchiveFault:
            pass        # the archive is what failed; its chunks say how far the job got
    return summary


def _pool(spec, workers, cluster):
    """(the executor a job's units go to, a function of the workers alive, notes for the summary)."""
    notes = []
    if cluster is None:
        asked = workers or spec["workers"] or os.cpu_count() or 1
        count = min(asked, max_workers())
        if count < asked:
            notes.append(f"{asked} workers asked for; this machine runs at most {count} "
                         f"({WORKERS_PER_CORE} per core)")
        if spec["engine"].gpu:
            pool = GpuPool.here(count, _worker_start, (os.getpid(),))
        else:
            pool = ProcessPoolExecutor(count, mp_context=get_context("spawn"), initializer=_worker_start,
                                       initargs=(os.getpid(),))
        return pool, lambda: count, notes
    if spec["engine"].gpu:
        # The GPU workers play the chunks, any worker checks them (cluster.py).
        players, checkers = cluster.gpu_counts()
        pool = GpuPool(cluster.gpu_executor, cluster.executor, checkers, players)

        def alive():
            pool.players, pool.checkers = cluster.gpu_counts()
            return cluster.workers()
        return pool, alive, notes
    return cluster.executor, cluster.workers, notes


class StopPolicy:
    """When a run takes no more work and when the work in flight is cut off,
    by the clock it is given (time.monotonic; a test's own)."""

    def __init__(self, time_limit, clock=time.monotonic):
        self.clock = clock
        self.start = clock()
        self.time_limit = time_limit
        self.reason = None          # why the run stops, once it does
        self.at = None              # when the stop was asked for
        self.by_clock = False       # whether the time limit asked for it

    def elapsed(self):
        return self.clock() - self.start

    def left(self):
        """Seconds to the time limit (None: there is none)."""
        return None if self.time_limit is None else self.time_limit - self.elapsed()

    def ask(self, reason, by_clock=False):
        """Ask for a stop; the first reason stands."""
        if self.reason is None:
            self.reason, self.at, self.by_clock = reason, self.clock(), by_clock

    def time_up(self, why=""):
        self.ask(f"time limit of {self.time_limit:g} s{why}", by_clock=True)

    def tick(self):
        if self.time_limit is not None and self.elapsed() >= self.time_limit:
            self.time_up()

    def grace(self, kept_any, by_clock=None):
        """How long units in flight may go on once a stop is asked for: a time
        limit gives them a second, or, where the run has kept nothing yet
        (its workers were starting, a part takes long on a busy machine), as
        long as a stop signal does, so that a run makes progress."""
        by_clock = self.by_clock if by_clock is None else by_clock
        return CUT_OFF_SECONDS if by_clock and kept_any else STOP_SECONDS - EXIT_SECONDS

    def deadline(self, kept_any):
        """When the units in flight are cut off (None: no stop is near): a
        stop's grace after it was asked for, or the time limit's."""
        if self.at is not None:
            return self.at + self.grace(kept_any)
        if self.time_limit is not None:
            return self.start + self.time_limit + self.grace(kept_any, by_clock=True)
        return None

    def passed(self, kept_any):
        deadline = self.deadline(kept_any)
        return deadline is not None and self.clock() >= deadline


class Dispatch:
    """A run's loop: units of work from the driver's source to the pool, the
    finished ones kept in the order they come, until the work is done or the
    StopPolicy says to stop."""

    def __init__(self, archive, job, spec, pool, alive, source, policy, summary, bar):
        self.archive, self.job_id, self.spec = archive, job["id"], spec
        self.pool, self.alive, self.source, self.policy = pool, alive, source, policy
        self.summary, self.bar = summary, bar
        self.driver = drivers.of(spec)
        self.workers = summary.workers
        self.in_flight = {}         # future: its Unit
        self.best_cards = job["best_cards"]
        self.at_once = False        # the workers were ended: a pool's shutdown waits for none
        self.cut = 0                # units in flight cut off at the end

    def run(self):
        while True:
            self.hand_out()
            if not self.in_flight:
                if self.policy.reason is None and self.source.left():
                    stuck = self.source.stuck()
                    if stuck is not None:
                        self.policy.ask(stuck)
                    elif self.policy.time_limit is not None:
                        self.policy.time_up("" if self.policy.left() <= 0 else
                                            "; no further chunk would finish within it")
                return
            if not self.collect():
                return

    def hand_out(self):
        while self.policy.reason is None and len(self.in_flight) < 2 * max(1, self.workers):
            unit = self.source.take(self.policy.left(), list(self.in_flight.values()), max(1, self.workers))
            if unit is None:
                return
            handed = self.driver.handed(self.spec, self.summary, unit)
            self.in_flight[self.pool.submit(work, handed, unit)] = unit

    def collect(self):
        """Keep the units finished within a quarter of a second; False when
        the run must end now (its units in flight cut off)."""
        finished, _ = wait(list(self.in_flight), timeout=0.25, return_when=FIRST_COMPLETED)
        lost = None
        for future in finished:
            unit = self.in_flight.pop(future)
            if future.cancelled():
                continue
            if isinstance(future.exception(), BrokenProcessPool):
                lost = future.exception()
                continue
            if not self.keep_one(unit, future.result()):
                self.cut_off()      # it, those finished beside it and those still running
                return False
        if lost is not None:
            raise lost
        self.policy.tick()
        if self.policy.reason is not None and self.in_flight and self.policy.passed(self.summary.deals > 0):
            # A unit may run for minutes (a flood of hits to check): neither
            # the clock nor the user waits for it. It is played again on resume.
            self.cut_off()
            return False
        return True

    def keep_one(self, unit, result):
        """Keep a finished unit in the archive and count it; False when its
        keep was given up at the stop's deadline (keep.Cut: wholly unkept)."""
        began = time.monotonic()
        try:
            self.between()      # a deadline passed while it waited: kept on resume
            keep(self.archive, self.job_id, self.spec, result, self.summary, self.bar.announce, self.between)
        except Cut:
            self.cut += 1
            return False
        self.source.finished(unit, result, time.monotonic() - began)
        if self.summary.best is not None:
            self.best_cards = max(self.best_cards, self.summary.best[1].cards)
        self.best_cards = max(self.best_cards, self.driver.reached(result))
        self.workers = self.summary.workers = self.alive()
        self.summary.seconds = self.policy.elapsed()
        self.bar.update(result.deals, **self.driver.progress(self.summary, self.best_cards), workers=self.workers)
        return True

    def between(self):
        """Between two parts of a large keep: a stop's or the clock's deadline
        passed gives the keep up; its unit is rolled back, played on resume."""
        if self.policy.passed(self.summary.deals > 0):
            raise Cut

    def cut_off(self):
        """End the run now: the units in flight, and any finished but not
        kept, are cut off, played again on resume."""
        self.at_once = True
        if self.policy.reason is None:      # the clock's deadline passed in a keep, not a stop's
            self.policy.time_up()
        self.cut += sum(1 for future in self.in_flight if not future.cancelled())
        _kill_workers(self.pool)

    def cut_off_words(self):
        return f"; {self.cut} chunk{'s' if self.cut != 1 else ''} in flight cut off, played again on resume" \
            if self.cut else ""

    def stopping(self, reason):
        """The first Ctrl-C or SIGTERM (from the signal handler): no new unit;
        those not yet handed to a worker are dropped (played on resume), and
        the user is told at once what happens to the others."""
        self.policy.ask(reason)
        # Cancelled futures leave in_flight in collect(): this handler may
        # run while the loop goes through it.
        running = [unit for future, unit in list(self.in_flight.items()) if not future.cancel()]
        if not running:
            return
        grace = self.policy.grace(self.summary.deals > 0)
        each = [self.source.expected(unit) for unit in running]
        seconds = None if None in each else sum(each) / len(each) * -(-len(running) // max(1, self.workers))
        many = len(running) != 1
        if seconds is not None and seconds <= grace:
            about = f" in about {seconds:.0f} s and {'are' if many else 'is'} kept"
        else:       # a flood of hits to cross-check, or chunks of minutes
            about = f" and {'are' if many else 'is'} kept if done within {grace:g} s, else cut off then"
        self.bar.announce(f"stopping ({reason}): {len(running)} chunk{'s' if many else ''} in flight "
                          f"finish{'' if many else 'es'}{about}"
                          + ("; Ctrl-C again stops now (they are played again on resume)"
                             if reason == "Ctrl-C" else ""))

    def close(self, here):
        """End a local pool (its workers, when the run was stopped: ending
        them is quicker than waiting for each on a busy machine); a cluster's
        units in flight are cancelled, the cluster is the caller's to close."""
        if here:
            if not self.at_once and self.policy.reason is not None:
                self.at_once = True
                _kill_workers(self.pool)
            self.pool.shutdown(wait=not self.at_once, cancel_futures=True)
        else:
            for future in self.in_flight:
                future.cancel()
        self.bar.close()


def how_died(pool):
    """How the worker that broke a local pool ended, in words ("killed by
    signal 11 (SIGSEGV)", or its exit status). The pool ends its other
    workers with SIGTERM, so one killed by another signal broke it."""
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
