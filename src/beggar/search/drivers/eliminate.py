"""The eliminate driver: backward play with elimination from known loops to
deals of 3 or 4 players that never end (beggar.elimination).

A job fixes, when it is created, the loops it starts from (its `start`: the
canonical states of the loops of its deck that the archive holds and of
those known before any search, the published ones and the shipped finds',
of up to the job's players: walks.start_keys, as a perturb job's). Chunk
c is the search from loop c, at a table of the job's players, guided by its
[eliminate] guide and bounded by `chunk` states and `basin_seconds`
processor seconds; the job's "budget" is one chunk per loop, a bound the
searches may stop short of (bound), and the search is deterministic: the
job has no seed to tell (seeded). Each deal a chunk finds is a hit: the
worker replays it by the reference engine and the job keeps it as a game of
status loop, of its table. What the search reached is the chunk's payload,
kept in its record.
"""

from __future__ import annotations

import time

from ... import elimination, loops
from ...cycle import key_deal
from ...decks import Deck
from ...states import GUIDES
from .. import SearchError
from ..spec import JobError, check_basin_bounds
from .base import Budget, ChunkResult, Driver, Plays, Starts, plural
from .walks import start_keys

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
        """3 or 4 players, deals dealt evenly, the [eliminate] options known and
        valid. The start loops are fixed when the job is created (start)."""
        options = data.get("eliminate", {})
        if not isinstance(options, dict):
            raise JobError(f"{where}: [eliminate] must be a table of the search's options")
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise JobError(f"{where}: [eliminate]: unknown option '{unknown[0]}' (known: {', '.join(OPTIONS)})")
        chosen = {**OPTIONS, **options}
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
        """The loops of the deck, as a perturb job's (walks.start_keys) but
        of up to the job's players, one chunk each."""
        spec["start"] = start_keys(archive, spec["deck"], spec["players"])
        if not spec["start"]:
            raise JobError(f"no loop of the {spec['deck']} deck to search back from: the archive holds none "
                           "and none is published (run a grow or census job first)")
        spec["deals"] = len(spec["start"]) * spec["chunk"]

    def bound(self, spec):
        """The job's chunks are its start loops, each a search of at most `chunk` states."""
        loops = len(spec["start"])
        return (f"searched of at most {spec['deals']:,} ({spec['chunk']:,} a loop, "
                f"{plural(loops, 'start loop')})")

    def play(self, spec, chunk):
        """Search from start loop number `chunk`: the deals found as hits and,
        as its ascent, what the search reached."""
        start = time.perf_counter()
        key = spec["start"][chunk]
        options = spec["eliminate"]
        try:
            # Its players' states, whatever the key (one given before archive format 6 holds players out).
            found = elimination.from_loop(loops.of_deal(key_deal(key)).states, spec["players"],
                                          Deck.parse(spec["deck"]).total,
                                          options["guide"], spec["chunk"], spec["basin_seconds"])
        except elimination.EliminationFault as error:
            raise SearchError(str(error)) from None     # the job stops as failed, its chunks kept
        best = found.best
        ascent = {"loop": key, "guide": options["guide"], "states": found.states, "stopped_by": found.stopped_by,
                  "deals": len(found.deals),
                  "best": None if best is None else {"deal": str(best), "sizes": [len(hand) for hand in best.hands]}}
        hits = [(deal, compiled) for deal, compiled, _ in found.deals]
        return ChunkResult(chunk, found.states, hits, None, time.perf_counter() - start, ascent)

    def stats(self, result, workers):
        return {"ascent": result.payload}
