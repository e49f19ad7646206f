"""The pool of a GPU job: the GPU plays the chunks, the cores check what it
plays (docs/gpu.md). A GPU plays a chunk far faster than a core can check
its hits, so drivers.play runs where a GPU is, then drivers.checked where
the cores are. To the runner it is one executor whose futures can be
cancelled while a chunk waits for either stage.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import get_context

from . import drivers


class _Chunk(Future):
    """A chunk's future, through its two stages: cancelling it cancels the
    stage it waits in, if that has not started."""

    def __init__(self):
        super().__init__()
        self.stage = None
        self.lock = threading.Lock()
        self.notified = False

    def cancel(self):
        with self.lock:
            stage = self.stage
        if stage is not None and not stage.cancel():
            return False
        if not super().cancel():
            return False
        with self.lock:
            # No executor runs this future, so it is told here that it is
            # done: else wait() never returns it, and a stop would wait for
            # it until the chunks in flight are cut off.
            if not self.notified:
                self.notified = True
                self.set_running_or_notify_cancel()
        return True


#: One chunk at a time plays in a process: a GPU engine keeps one device's
#: state a process (gpu.get), which two chunks at once would share (a Dask
#: worker given more than GPU=1 would run two).
_one_at_a_time = threading.Lock()


def played(spec, unit):
    """Stage one, where the GPU is."""
    with _one_at_a_time:
        return drivers.play(spec, unit.chunk, unit.parts)


class GpuPool:
    """The executor of a GPU job: `gpu` plays the chunks, on `players` GPUs;
    `cpu` checks them, on `checkers` cores (a cluster's runner keeps both
    counts up to date as workers come and go)."""

    def __init__(self, gpu, cpu, checkers, players=1):
        self.gpu, self.cpu = gpu, cpu
        self.checkers, self.players = checkers, players
        self.gpu_seconds = 0.0          # the GPUs' play of the chunks checked
        self.check_seconds = 0.0        # the checkers' work on them

    @classmethod
    def here(cls, checkers, initializer=None, initargs=()):
        """The pool on this machine: one process drives the GPU, `checkers` check what it plays."""
        context = get_context("spawn")
        return cls(ProcessPoolExecutor(1, mp_context=context, initializer=initializer, initargs=initargs),
                   ProcessPoolExecutor(checkers, mp_context=context, initializer=initializer, initargs=initargs),
                   checkers)

    def submit(self, function, spec, unit):
        """A future of `unit` of `spec` played and checked: the runner's
        `function` (drivers.work) in two stages; a task of the driver's own
        (a hunt's seat) is no GPU's work, and goes to the checkers whole."""
        if unit.task is not None:
            return self.cpu.submit(function, spec, unit)
        future = _Chunk()
        with future.lock:
            future.stage = self.gpu.submit(played, spec, unit)
        future.stage.add_done_callback(lambda stage: self._played(stage, future, spec))
        return future

    def _played(self, played, future, spec):
        if played.cancelled():
            future.cancel()
            return
        if played.exception() is not None:
            _settle(future, exception=played.exception())
            return
        try:
            stage = self.cpu.submit(drivers.checked, spec, played.result())
        except RuntimeError as error:       # the pool was shut down meanwhile
            _settle(future, exception=error)
            return
        with future.lock:
            future.stage = stage
        stage.add_done_callback(lambda done: self._checked(done, future))

    def _checked(self, done, future):
        if done.cancelled():
            future.cancel()
        elif done.exception() is not None:
            _settle(future, exception=done.exception())
        else:
            result = done.result()
            self.gpu_seconds += result.seconds
            self.check_seconds += result.check_seconds
            _settle(future, result=result)

    def behind(self):
        """Whether the checkers' work outlasted the GPUs' play: the GPUs waited for the cores."""
        return self.check_seconds / max(1, self.checkers) > 1.1 * self.gpu_seconds / max(1, self.players) > 0

    @property
    def pools(self):
        """The two executors (runner._kill_workers ends the processes of a local pool's)."""
        return (self.gpu, self.cpu)

    def shutdown(self, wait=True, cancel_futures=False):
        """Shut a local pool's processes down (a cluster's executors are the cluster's)."""
        for pool in self.pools:
            pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def _settle(future, result=None, exception=None):
    """Finish a chunk's future, unless it was cancelled meanwhile."""
    try:
        if exception is not None:
            future.set_exception(exception)
        else:
            future.set_result(result)
    except Exception:       # InvalidStateError (3.8+): cancelled while its stage ran
        pass
