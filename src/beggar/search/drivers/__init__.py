"""The search drivers, one object per kind of job, found by name: what a
job's driver does is asked of `of(spec)`, never decided by the driver's name
elsewhere. Adding a driver is a module here and a line in ALL. A worker plays
and checks a chunk (work), the job's process keeps it (keep): plain data
in and out of the workers.
"""

from __future__ import annotations

import time

from .. import announce
from ..spec import CHUNK_SECONDS, MAX_CHUNK
from .base import ChunkResult, Driver
from .census import Census
from .eliminate import Eliminate
from .factory import Grow, Perturb
from .hunt import Hunt
from .sampling import Climb, Sample

__all__ = ["ALL", "NAMES", "ChunkResult", "Driver", "get", "of", "play", "work", "checked", "keep", "timed_chunk"]

#: Every driver, in the order the job file's errors name them.
ALL = (Sample(), Climb(), Census(), Grow(), Perturb(), Eliminate(), Hunt())
NAMES = tuple(driver.name for driver in ALL)
_BY_NAME = {driver.name: driver for driver in ALL}


def get(name):
    """The driver of that name (job.check makes sure a spec names one)."""
    return _BY_NAME[name]


def of(spec):
    """The driver of the job `spec`."""
    return _BY_NAME[spec["driver"]]


def play(spec, chunk, parts=1, task=None):
    """Play chunk number `chunk` of the job `spec`, or the `parts` chunks from
    it on as one (units.py), or the driver's own `task` (a hunt's seat)."""
    driver = of(spec)
    began = time.perf_counter()
    if task is not None:
        result = driver.play_task(spec, task)
    elif parts == 1:
        result = driver.play(spec, chunk)
    else:
        result = driver.play(spec, chunk, parts)
    result.seconds = time.perf_counter() - began
    return result


def work(spec, unit):
    """What a worker does with a unit of work of the job `spec`: play it and check its games."""
    return checked(spec, play(spec, unit.chunk, unit.parts, unit.task))


def checked(spec, result):
    """A played unit's games checked, where the cores are (the driver's games),
    with the seconds that took: a worker's second step, and a GPU job's checkers'."""
    start = time.perf_counter()
    result.games = of(spec).games(spec, result)
    result.check_seconds = time.perf_counter() - start
    return result


def keep(archive, job_id, spec, result, summary, told=None, between=None):
    """Keep a finished chunk (its driver's keep), then announce the records
    and new balanced loops it holds (announce.tell, to `told`). `between`:
    keep.keep_games'. A chunk that came unchecked is checked here first."""
    driver = of(spec)
    if result.games is None:
        result.games = driver.games(spec, result)
    news = driver.keep(archive, job_id, spec, result, summary, between)
    announce.tell(archive, job_id, news, summary, told)


def timed_chunk(spec, seconds=CHUNK_SECONDS):
    """Deals that one core here plays in about `seconds` of processor time
    for this job's deck and table, to two significant digits, measured on
    chunk 0 of the job, ever larger. An engine that plays on a device of its
    own is timed by the clock, after a first play that builds its kernels."""
    deals = 1_000
    budget = spec["deals"] or MAX_CHUNK
    on_device = spec["engine"].on_device
    clock = time.perf_counter if on_device else time.thread_time
    trial = {**spec, "deals": 0, "min_cards": max(spec["min_cards"], 10 ** 6)}
    if on_device:
        play({**trial, "chunk": 1}, 0)
    while True:
        trial["chunk"] = min(deals, budget)
        began = clock()
        play(trial, 0)
        spent = clock() - began
        if spent >= 0.1 or trial["chunk"] >= budget:
            break
        deals *= 4
    rate = trial["chunk"] / max(spent, 1e-6)
    size = max(1_000, int(rate * seconds))
    digits = len(str(size)) - 2
    return min(MAX_CHUNK, round(size, -digits) if digits > 0 else size)
