"""The plain records both engines return: a trick of a traced game, a state
reached by backward play, the result of a census block. Neutral ground, so that
neither engine imports the other."""

from dataclasses import dataclass
from typing import NamedTuple


class Trick(NamedTuple):
    """One trick: who led it, the pile in the order laid, who took it, and every
    hand (codes, top card first) once the pile was taken."""
    leader: int
    pile: tuple
    taker: int
    hands: tuple


#: How a best-first backward search (backward_to) ranks the states it found:
#: all alike (breadth first), by the largest smallest hand, or by the fewest
#: cards away from the sizes it looks for.
GUIDES = ("breadth", "smallest", "balance")


class Reached(NamedTuple):
    """A state a backward search reached: hands (codes, top card first), who
    leads, and the cards and tricks from it to the search's root."""
    hands: tuple
    leader: int
    cards: int
    tricks: int


@dataclass(frozen=True)
class CensusBlock:
    """What playing the arrangements first .. first+deals-1 of a deck gave
    (census.py): games by status, the histograms of game lengths in cards and
    in tricks ({length: games}), the `top` longest finished games [(rank,
    Deal, Outcome)], longest first (the earlier rank first on a tie), and
    every loop deal [(rank, Deal, Outcome, canonical state key)] in rank order."""
    first: int
    deals: int
    statuses: dict
    cards: dict
    tricks: dict
    longest: list
    loops: list
