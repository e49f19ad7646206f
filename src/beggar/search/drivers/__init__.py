"""The search drivers, one object per kind of job, found by name: what a
job's driver checks, plays, keeps and says is asked of `of(spec)`, never
decided by the driver's name elsewhere. Adding a driver is a module here
and a line in ALL.

A worker plays a chunk (work: the driver's play, then the reference
engine's check of its games); the job's process keeps it (keep). Plain data
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

__all__ = ["ALL", "NAMES", "ChunkResult", "Driver", "get", "of", "play", "work", "keep", "timed_chunk"]

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
    """Play chunk number `chunk` of the job `spec` (in a worker), or the
    `parts` chunks from it on as one (a job whose chunks are runs of parts:
    units.py; sample and census), or the driver's own `task` (a hunt's seat)."""
    driver = of(spec)
    if task is not None:
        return driver.play_task(spec, task)
    if parts == 1:
        return driver.play(spec, chunk)
    return driver.play(spec, chunk, parts)


def work(spec, unit):
    """What a worker does with a unit of work of the job `spec` (units.Unit):
    play it and check its games (crosscheck.check, where the driver's are
    checked where they are played); the ChunkResult with `games` and
    `check_seconds` set."""
    result = play(spec, unit.chunk, unit.parts, unit.task)
    start = time.perf_counter()
    result.games = of(spec).games(spec, result)
    result.check_seconds = time.perf_counter() - start
    return result


def keep(archive, job_id, spec, result, summary, told=None, between=None):
    """Keep a finished chunk in the archive (its driver's keep: one
    transaction with the record that the chunk is done), count it in the
    summary, then announce the records and new balanced loops it holds
    (announce.tell; `told`, when given, hears each line). `between`, when
    given, is called between the parts of a large keep (keep.keep_games).
    A chunk that came unchecked is checked here first, by its driver."""
    driver = of(spec)
    if result.games is None:
        result.games = driver.games(spec, result)
    news = driver.keep(archive, job_id, spec, result, summary, between)
    announce.tell(archive, job_id, news, summary, told)


def timed_chunk(spec, seconds=CHUNK_SECONDS):
    """Deals that one core here plays in about `seconds` of processor time
    for this job's deck and table: measured by playing chunk 0 of the job,
    ever larger, for a tenth of a second of processor time; two significant
    digits. (A busy machine gives a worker less than a core: units.py sizes
    a job's chunks by the time they take as it runs.) An engine that plays
    on a device of its own (opencl: on its threads, not this one) is timed
    by the clock, after a first play that builds its kernels."""
    deals, spent = 1_000, 0.0
    budget = spec["deals"] or MAX_CHUNK
    on_device = spec["engine"].on_device
    clock = time.perf_counter if on_device else time.thread_time
    if on_device:
        play({**spec, "chunk": 1, "deals": 0, "min_cards": max(spec["min_cards"], 10 ** 6)}, 0)
    while True:
        trial = {**spec, "chunk": min(deals, budget), "deals": 0, "min_cards": max(spec["min_cards"], 10 ** 6)}
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
