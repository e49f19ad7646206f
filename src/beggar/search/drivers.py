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
from .job import FACTORY, chunk_deals, table


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
    games: list | None = None       # the games it keeps, checked (crosscheck.check)


def run_chunk(spec, chunk):
    """Play chunk number `chunk` of the job `spec`."""
    start = time.perf_counter()
    deals = chunk_deals(spec, chunk)
    if spec["driver"] == "census":
        result = engine.census(spec["first"] + chunk * spec["chunk"], deals, top=spec["top"], **table(spec))
        hits = [(deal, outcome) for _, deal, outcome, _ in result.loops]
        hits += [(deal, outcome) for _, deal, outcome in result.longest]
        best = max(hits, key=lambda hit: hit[1].cards, default=None)
        return ChunkResult(chunk, deals, hits, best, time.perf_counter() - start, result)
    if spec["driver"] in FACTORY:
        from .factory import walk
        growth = walk(spec, chunk, deals)
        return ChunkResult(chunk, growth["tries"], [], None, time.perf_counter() - start, growth=growth)
    if spec["driver"] == "sample":
        hits, best, lengths = engine.sample_best(deals, spec["seed"], spec["min_cards"],
                                                 start=chunk * spec["chunk"], **table(spec))
    else:
        walk = engine.climb(spec["seed"], chunk, deals, spec["min_cards"], ClimbRules(**spec["climb"]),
                            **table(spec))
        hits, best, lengths = walk.hits, walk.best, walk.lengths
    return ChunkResult(chunk, deals, hits, best, time.perf_counter() - start, lengths=lengths)
