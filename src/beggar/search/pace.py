"""How fast a job keeps games and how fast the reference engine's cross-check
follows them, measured when the job starts (processor time, so a busy
machine measures the same): a flood told in one line, a new job's chunks
sized to it (docs/searching.md). A GPU job's deals are played here on the
compiled engine: what bounds its chunks is what its checkers can follow.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..lengths import low
from . import drivers
from .crosscheck import Checker
from .spec import trick

#: Processor seconds of playing, and of cross-checking, that a measure may take.
PLAY_SECONDS = 0.05
CHECK_SECONDS = 0.2
#: Deals a measure plays at most.
MEASURE_DEALS = 32_000

#: Processor seconds of cross-checking one chunk of a new job may hold (one
#: part, where its chunks are sized as it runs: spec.PART_SECONDS).
CHUNK_CHECK_SECONDS = 3.0
SMALLEST_CHUNK = 100


@dataclass(frozen=True)
class Pace:
    deals: int              # deals played to measure
    play_seconds: float
    hits: int               # games those deals keep
    checked: int            # of which replayed by the reference engine
    check_seconds: float
    cards_checked: int      # cards of the games replayed
    lengths: object = None  # lengths.Lengths of the deals played (sample, climb), or None

    @property
    def hit_share(self):
        return self.hits / self.deals if self.deals else 0.0

    @property
    def keep_rate(self):
        return self.deals / max(self.play_seconds, 1e-9) * self.hit_share

    @property
    def check_rate(self):
        """Games the reference engine replays a second on a core (None: none measured)."""
        return self.checked / max(self.check_seconds, 1e-9) if self.checked else None

    @property
    def load(self):
        """Processor time of cross-checking per processor time of playing."""
        return self.keep_rate / self.check_rate if self.check_rate else 0.0

    def threshold(self, min_cards):
        """The least min_cards (a multiple of 100, at least `min_cards`) at which
        cross-checking takes no longer than playing, or None where the lengths
        of the deals measured cannot tell (a census: loops are kept anyway)."""
        if self.lengths is None or not self.cards_checked:
            return None
        per_card = self.check_seconds / self.cards_checked       # a reference replay costs by the card
        play = self.play_seconds / self.deals
        counts = self.lengths.counts
        cards = 0.0         # the cards of the games at or above the bin, from the top down
        best = None
        for index in range(len(counts) - 1, -1, -1):
            cards += counts[index] * low(index)
            if low(index) < min_cards or cards / self.deals * per_card > play:
                break
            best = low(index)
        if best is None:
            best = low(len(counts) - 1) + 1 if counts else min_cards
        return max(min_cards, -(-best // 100) * 100)


def measure(spec):
    """The Pace of job `spec` on its first deals, or None for the drivers that
    deal no deals (their walks and searches keep a loop now and then, never a flood)."""
    driver = drivers.of(spec)
    if driver.plays.deals is None:
        return None
    deals, budget = 500, spec["deals"] or MEASURE_DEALS
    while True:
        deals = min(deals, budget, MEASURE_DEALS)
        start = time.process_time()
        result = drivers.play(dict(spec, deals=deals, chunk=deals, extend_cards=0, engine=spec["engine"].cpu), 0)
        seconds = time.process_time() - start
        if seconds >= PLAY_SECONDS or deals >= min(budget, MEASURE_DEALS):
            break
        deals *= 4
    games, lengths = driver.measured(result)
    checked = cards = 0
    # The checks a worker does (crosscheck.Checker): the reference engine's
    # replay, and a loop game's loop described.
    checker = Checker(trick(spec))
    start = time.process_time()
    for deal, outcome in games:
        if checked and time.process_time() - start >= CHECK_SECONDS:
            break
        checker.game(deal, outcome, spec["driver"])
        checked += 1
        cards += outcome.cards
    return Pace(deals, seconds, len(games), checked, time.process_time() - start, cards, lengths)


def chunk_for(pace, chunk, seconds=CHUNK_CHECK_SECONDS, hits=None):
    """The chunk of a new job: `chunk`, or fewer deals where the cross-check
    of a chunk that size would take over `seconds` of a core, or where it
    would keep over `hits` games (None: no bound)."""
    if pace is None or not pace.check_rate or not pace.hit_share:
        return chunk
    most = seconds * pace.check_rate / pace.hit_share
    if hits is not None:
        # A deal dealt again and again (a small deck) is replayed once, so
        # its check costs little; its games still travel to the job's
        # process and are kept there, one by one.
        most = min(most, hits / pace.hit_share)
    if most >= chunk:
        return chunk
    digits = 10 ** max(0, len(str(int(most))) - 2)          # two significant digits: 240,000
    return max(SMALLEST_CHUNK, int(most) // digits * digits)


def warning(spec, pace):
    """One line for a job whose cross-check cannot follow the games it keeps
    (cross-checking would take longer than playing), else None."""
    if pace is None or pace.load <= 1:
        return None
    exhaustive = drivers.of(spec).plays.deals == "every"        # a census keeps its loop deals whatever min_cards
    what = "this census keeps every loop deal" if exhaustive else f"min_cards {spec['min_cards']} keeps"
    percent = 100 * pace.hit_share      # for people: '6.8 %', '100 %', '0.0012 %'
    share = f"{percent:.0f} %" if percent >= 10 else f"{percent:.2g} %"
    line = (f"warning: {what} {share} of deals, {pace.keep_rate:,.0f} games a second on a "
            f"core, where the reference engine cross-checks {pace.check_rate:,.0f}: checking will take "
            f"{pace.load:.0f} times as long as playing")
    threshold = pace.threshold(spec["min_cards"]) if not exhaustive else None
    if threshold is not None:
        line += f"; min_cards {threshold} would keep up (a job file may insist on {spec['min_cards']})"
    return line
