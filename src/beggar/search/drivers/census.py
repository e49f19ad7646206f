"""The census driver: every arrangement of a deck's ranks played once, with
exact loop detection (engine.census; docs/census.md tells its chunks, records
and games). A chunk's payload is its ranks' states.CensusBlock.
"""

from __future__ import annotations

from ... import census as arrangements
from ... import engine
from ...archive import ArchiveFault
from ...checks import is_digits, whole
from .. import SearchError
from ..crosscheck import Checker
from ..spec import JobError, chunk_deals, job_error, table, trick
from .base import Budget, ChunkResult, Devices, Driver, Plays


class Census(Driver):
    name = "census"
    budget = Budget(timed=True)
    plays = Plays("every", seed=None)
    devices = Devices(gpu=True)

    def check(self, spec, data, where):
        """Its budget is the arrangements from `first` (to the last rank when
        `deals` is 0). Seeds and min_cards do not apply."""
        if spec["split"] == "random":
            raise JobError(f"{where}: a census deals every arrangement once: the split is even or a number of cards")
        first = spec["first"]
        if is_digits(first):
            first = int(first)          # TOML integers stop at 2**63; ranks of big decks do not
        deck = spec["deck"]
        count = arrangements.count(deck)
        with job_error(where, f" (the {deck} deck has {count:,} arrangements)"):
            spec["first"] = whole(first, "'first'", 0, count - 1)
            spec["top"] = whole(spec["top"], "'top'", 0, 10 ** 6)
            spec["deals"] = whole(spec["deals"], "'deals'", 0, count - spec["first"]) or count - spec["first"]
        spec["extend_cards"] = 0

    def play(self, spec, chunk, parts=1):
        deals = chunk_deals(spec, chunk, parts)
        result = engine.census(spec["first"] + chunk * spec["chunk"], deals, top=spec["top"],
                               engine=spec["engine"], **table(spec))
        hits = [(deal, outcome) for _, deal, outcome, _ in result.loops]
        hits += [(deal, outcome) for _, deal, outcome in result.longest]
        best = max(hits, key=lambda hit: hit[1].cards, default=None)
        return ChunkResult(chunk, deals, hits, best, result)

    def games(self, spec, result):
        """Every loop deal of the block, with its rank and its loop, and the
        block's `top` longest games: what a chunk keeps depends on it alone."""
        checker = Checker(trick(spec))
        games = [checker.game(deal, outcome, "census", rank=rank, loop=key)
                 for rank, deal, outcome, key in result.payload.loops]
        games += [checker.game(deal, outcome, "census", rank=rank) for rank, deal, outcome in result.payload.longest]
        return games

    def measured(self, result):
        """Its loop deals (its top longest are few); no lengths."""
        return [(deal, outcome) for _, deal, outcome, _ in result.payload.loops], None

    def keep(self, archive, job_id, spec, result, summary, between=None):
        super().keep(archive, job_id, spec, result, summary, between)
        return []       # a census tells its loops in its own table (beggar archive census), by loop, not by deal

    def finish(self, archive, job_id, spec, summary):
        """A complete census keeps its `top` longest games, of those its chunks kept."""
        try:
            summary.kept = max(0, summary.kept - archive.keep_longest(job_id, spec["top"]))
        except ArchiveFault as error:
            raise SearchError(f"cannot keep the longest games of the census: {error}; resume with: "
                              f"beggar search --resume {job_id}") from None

    def stats(self, result, workers):
        """What a chunk's record keeps of its block: games by status, the
        histograms of their lengths (JSON keys are text), its loops ({canonical
        state (hex): [loop deals, period in tricks, period in cards]}), its
        longest finished game ([cards, tricks, deal, rank], or None) and its
        workers. The census table is summed from these, so it is a fact of the
        deck, whatever games the archive held before."""
        block = result.payload
        loops = {}
        for _, _, outcome, key in block.loops:
            entry = loops.setdefault(key.hex(), [0, *outcome.loop_period])
            entry[0] += 1
        longest = None
        if block.longest:
            rank, deal, outcome = block.longest[0]
            longest = [outcome.cards, outcome.tricks, str(deal), str(rank)]
        return {"statuses": block.statuses, "cards": {str(k): v for k, v in sorted(block.cards.items())},
                "tricks": {str(k): v for k, v in sorted(block.tricks.items())}, "loops": loops, "longest": longest,
                "workers": workers}
