"""Histograms of game lengths in cards, as every sampling and climbing chunk
counts them: the binning both engines use (docs/odds.md's bins, and where a
loop counts), and sums and survival counts. Past EXACT a bin is WIDTH cards,
so that a chunk's record is at most BINS numbers where exact counts would
keep every rare length apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest

from .checks import whole

EXACT = 3000
WIDTH = 100
TOP = 10_000
BINS = EXACT + (TOP - EXACT) // WIDTH + 1


def bin_of(cards):
    """The bin a game of `cards` cards is counted in (ValueError naming
    `cards` for no count: a negative one was counted in a bin near the top)."""
    if type(cards) is not int or cards < 0:
        cards = whole(cards, "cards")
    if cards < EXACT:
        return cards
    if cards < TOP:
        return EXACT + (cards - EXACT) // WIDTH
    return BINS - 1


def low(index):
    """The fewest cards a game counted in bin `index` lasts."""
    return index if index < EXACT else EXACT + (index - EXACT) * WIDTH


def high(index):
    """The most cards + 1 a game of bin `index` lasts (None: no bound, the last bin)."""
    if index == BINS - 1:
        return None
    return index + 1 if index < EXACT else low(index) + WIDTH


def is_edge(cards):
    """Whether `cards` is a bin edge, where survival counts are exact."""
    return cards <= EXACT or (cards <= TOP and (cards - EXACT) % WIDTH == 0)


@dataclass(frozen=True)
class Lengths:
    """Games counted by bin: counts[i] games in bin i (trailing empty bins left
    off, so equal histograms compare equal)."""

    counts: tuple = ()

    def __post_init__(self):
        counts = list(self.counts)
        while counts and not counts[-1]:
            counts.pop()
        object.__setattr__(self, "counts", tuple(int(c) for c in counts))

    @classmethod
    def from_exact(cls, counts):
        """The histogram of exact counts {cards: games} (a census chunk's)."""
        binned = [0] * BINS
        for cards, games in counts.items():
            binned[bin_of(int(cards))] += games
        return cls(binned)

    @classmethod
    def of(cls, lengths):
        """The histogram of an iterable of game lengths in cards."""
        counts = [0] * BINS
        for cards in lengths:
            counts[bin_of(cards)] += 1
        return cls(counts)

    def __repr__(self):
        # A histogram has some 3,000 bins: its repr says what it holds, not each count.
        longest = ""
        if self.counts:
            index = len(self.counts) - 1
            top = high(index)
            longest = (f", the longest {low(index)} cards" if top == low(index) + 1 else
                       f", the longest {low(index)} to {top - 1} cards" if top else
                       f", the longest {low(index)} cards or more")
        return f"Lengths({self.games:,} game{'' if self.games == 1 else 's'}{longest})"

    def __add__(self, other):
        return Lengths(tuple(map(sum, zip_longest(self.counts, other.counts, fillvalue=0))))

    @property
    def games(self):
        return sum(self.counts)

    def at_least(self, cards):
        """Games of at least `cards` cards (exact where is_edge(cards))."""
        if not is_edge(cards):
            raise ValueError(f"{cards} is not a bin edge of the length histogram")
        return sum(self.counts[bin_of(cards):])

    def as_list(self):
        return list(self.counts)
