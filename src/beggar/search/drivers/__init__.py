"""What a worker process does with one chunk of a job: play it in the
compiled engine and return the hits. Runs in worker processes; plain data in
and out."""

from __future__ import annotations

import time
from dataclasses import dataclass

from .. import engine
from ..climbing import ClimbRules
from ..lengths import Lengths
from ..states import Census
from .job import CHUNK_SECONDS, FACTORY, MAX_CHUNK, chunk_deals, table

#: The drivers whose chunk is a unit of work alone, sized by time when a job
#: gives none (a climb's chunk is one walk, and the loop factory's one walk of
#: tries: their length is part of the search).
TIMED = ("sample", "census")


@dataclass
class ChunkResult:
    chunk: int
    deals: int
    hits: list          # [(deal, outcome)] from the compiled engine
    best: tuple | None  # (deal, outcome) of the longest game played, or None
    seconds: float
    census: Census | None = None    # a census chunk's whole result
    lengths: Lengths | None = None  # sample and climb: the lengths of every game played
    growth: dict | None = None      # a grow or perturb chunk's walk (factory.walk)
    ascent: dict | None = None      # an eliminate chunk's search, what it reached (elimination.run_chunk)
    games: list | None = None       # the games it keeps, checked (crosscheck.check)


def run_chunk(spec, chunk):
    """Play chunk number `chunk` of the job `spec`."""
    start = time.perf_counter()
    deals = chunk_deals(spec, chunk)
    if spec["driver"] == "census":
        result = engine.census(spec["first"] + chunk * spec["chunk"], deals, top=spec["top"],
                               engine=spec["engine"], **table(spec))
        hits = [(deal, outcome) for _, deal, outcome, _ in result.loops]
        hits += [(deal, outcome) for _, deal, outcome in result.longest]
        best = max(hits, key=lambda hit: hit[1].cards, default=None)
        return ChunkResult(chunk, deals, hits, best, time.perf_counter() - start, result)
    if spec["driver"] == "eliminate":
        from .elimination import run_chunk as eliminate
        return eliminate(spec, chunk, ChunkResult)
    if spec["driver"] in FACTORY:
        from .factory import walk
        growth = walk(spec, chunk, deals)
        return ChunkResult(chunk, growth["tries"], [], None, time.perf_counter() - start, growth=growth)
    if spec["driver"] == "sample":
        hits, best, lengths = engine.sample_best(deals, spec["seed"], spec["min_cards"],
                                                 start=chunk * spec["chunk"], engine=spec["engine"],
                                                 **table(spec))
    else:
        walk = engine.climb(spec["seed"], chunk, deals, spec["min_cards"], ClimbRules(**spec["climb"]),
                            engine=spec["engine"], **table(spec))
        hits, best, lengths = walk.hits, walk.best, walk.lengths
    return ChunkResult(chunk, deals, hits, best, time.perf_counter() - start, lengths=lengths)


def timed_chunk(spec, seconds=CHUNK_SECONDS):
    """Deals that one core here plays in about `seconds` for this job's deck
    and table: measured by playing chunk 0 of the job, ever larger, for a
    tenth of a second of processor time; two significant digits."""
    deals, spent = 1_000, 0.0
    budget = spec["deals"] or MAX_CHUNK
    while True:
        trial = {**spec, "chunk": min(deals, budget), "deals": 0, "min_cards": max(spec["min_cards"], 10 ** 6)}
        began = time.thread_time()
        run_chunk(trial, 0)
        spent = time.thread_time() - began
        if spent >= 0.1 or trial["chunk"] >= budget:
            break
        deals *= 4
    rate = trial["chunk"] / max(spent, 1e-6)
    size = max(1_000, int(rate * seconds))
    digits = len(str(size)) - 2
    return min(MAX_CHUNK, round(size, -digits) if digits > 0 else size)
