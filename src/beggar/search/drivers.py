"""What a worker process does with one chunk of a job: play it in the
compiled engine and return the hits. Runs in worker processes; plain data in
and out."""

import time
from dataclasses import dataclass

from .. import engine
from ..climbing import ClimbRules
from .job import chunk_deals, table


@dataclass
class ChunkResult:
    chunk: int
    deals: int
    hits: list          # [(deal, outcome)] from the compiled engine
    best: tuple         # (deal, outcome) of the longest game played, or None
    seconds: float


def run_chunk(spec, chunk):
    """Play chunk number `chunk` of the job `spec`."""
    start = time.perf_counter()
    deals = chunk_deals(spec, chunk)
    if spec["driver"] == "sample":
        hits, best = engine.sample_best(deals, spec["seed"], spec["min_cards"], start=chunk * spec["chunk"],
                                        **table(spec))
    else:
        walk = engine.climb(spec["seed"], chunk, deals, spec["min_cards"], ClimbRules(**spec["climb"]),
                            **table(spec))
        hits, best = walk.hits, walk.best
    return ChunkResult(chunk, deals, hits, best, time.perf_counter() - start)
