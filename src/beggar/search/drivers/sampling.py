"""The drivers that deal deals and keep the long games: "sample" plays the
deals of its seed in order (chunk c: deals c*chunk .. (c+1)*chunk-1), and
"climb" climbs over deals (chunk c: walk number c of the seed, climbing.py,
by the rules of the job's [climb] table). Every game of at least min_cards
cards, and every loop, is a hit. A chunk's payload: the lengths of every
game it played (lengths.Lengths).
"""

from __future__ import annotations

from ... import engine
from ...climbing import ClimbRules
from ..spec import JobError, chunk_deals, table
from .base import Budget, ChunkResult, Devices, Driver, Plays


class _Dealing(Driver):

    def stats(self, result, workers):
        """The games by status, the histogram of their lengths (lengths.py) and the workers."""
        if result.payload is None:
            return None
        loops = sum(1 for _, outcome in result.hits if outcome.status == "loop")
        return {"statuses": {"finished": result.deals - loops, "loop": loops, "stopped": 0},
                "lengths": result.payload.as_list(), "workers": workers}

    def measured(self, result):
        return result.hits, result.payload


class Sample(_Dealing):
    name = "sample"
    budget = Budget(timed=True)
    devices = Devices(gpu=True)

    def play(self, spec, chunk, parts=1):
        deals = chunk_deals(spec, chunk, parts)
        hits, best, lengths = engine.sample_best(deals, spec["seed"], spec["min_cards"],
                                                 start=chunk * spec["chunk"], engine=spec["engine"],
                                                 **table(spec))
        return ChunkResult(chunk, deals, hits, best, lengths)


class Climb(_Dealing):
    name = "climb"
    options = "climb"
    plays = Plays("walked")
    # A GPU engine plays a group of walks at once, the next chunks' too: on
    # one machine's devices, not a cluster's workers one by one.
    devices = Devices(gpu=True, cluster_gpus=False)

    def check_gpu(self, spec, name, where):
        """A climb by anneal stays on the compiled engine: its draws need the host's exp."""
        if spec.get("climb", {}).get("accept") == "anneal":
            raise JobError(f"{where}: the {name} engine does not climb by anneal (its draws need the host's exp); "
                           "anneal climbs on the compiled engine")

    def play(self, spec, chunk):
        deals = chunk_deals(spec, chunk)
        walk = engine.climb(spec["seed"], chunk, deals, spec["min_cards"], ClimbRules(**spec["climb"]),
                            engine=spec["engine"], **table(spec))
        return ChunkResult(chunk, deals, walk.hits, walk.best, walk.lengths)
