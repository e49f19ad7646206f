"""The eliminate driver: backward play with elimination from known loops to
deals of 3 or 4 players that never end (beggar.elimination; docs/backward.md
tells the job): a chunk's deals are its hits, what it reached its payload and record.
"""

from __future__ import annotations

from ...states import GUIDES
from ..spec import JobError, check_basin_bounds, options_table
from .base import Budget, ChunkResult, Driver, Plays, Starts, plural
from .walks import search_back, start_keys

#: The [eliminate] table's options and their defaults.
OPTIONS = {"guide": "smallest"}

#: States a search visits at most when the job gives no chunk: a few hundred
#: megabytes of a worker's memory at 52 cards, a few seconds of a core.
CHUNK = 1_000_000


class Eliminate(Driver):
    name = "eliminate"
    options = "eliminate"
    budget = Budget("states", "every start loop searched")
    # The search from a loop is breadth- or best-first in a fixed order: the
    # same start loops and guide find the same deals, whatever the seed.
    plays = Plays(None, seed=None)
    starts = Starts(loops=True, chunk_each=True)

    def check(self, spec, data, where):
        chosen = {**OPTIONS, **options_table(data, "eliminate", "the search's options", OPTIONS, where)}
        if chosen["guide"] not in GUIDES:
            raise JobError(f"{where}: [eliminate]: guide must be one of {', '.join(GUIDES)}, "
                           f"not {chosen['guide']!r}")
        spec["eliminate"] = chosen
        if spec["players"] not in (3, 4):
            raise JobError(f"{where}: the eliminate driver searches deals of 3 or 4 players, "
                           f"not {spec['players']}")
        spec["extend_cards"] = 0
        if "chunk" not in data:
            spec["chunk"] = CHUNK
        check_basin_bounds(spec, where)

    def start(self, archive, spec):
        """The loops of the deck of up to the job's players, one chunk each."""
        spec["start"] = start_keys(archive, spec["deck"], spec["players"])
        if not spec["start"]:
            raise JobError(f"no loop of the {spec['deck']} deck to search back from: the archive holds none "
                           "and none is published (run a grow or census job first)")
        spec["deals"] = len(spec["start"]) * spec["chunk"]

    def bound(self, spec):
        """The job's chunks are its start loops, each a search of at most `chunk` states."""
        return (f"searched of at most {spec['deals']:,} ({spec['chunk']:,} a loop, "
                f"{plural(len(spec['start']), 'start loop')})")

    def play(self, spec, chunk):
        """Search from start loop number `chunk`: the deals found as hits, what it reached as its payload."""
        key = spec["start"][chunk]
        options = spec["eliminate"]
        found = search_back(spec, key, spec["players"], options["guide"], spec["chunk"])
        best = found.best
        ascent = {"loop": key, "guide": options["guide"], "states": found.states, "stopped_by": found.stopped_by,
                  "deals": len(found.deals),
                  "best": None if best is None else {"deal": str(best), "sizes": [len(hand) for hand in best.hands]}}
        hits = [(deal, compiled) for deal, compiled, _ in found.deals]
        return ChunkResult(chunk, found.states, hits, None, ascent)

    def stats(self, result, workers):
        return {"ascent": result.payload}
