"""The plain records both engines return: a trick of a traced game, and a state
found by backward play. Neutral ground, so that neither engine imports the other."""

from typing import NamedTuple


class Trick(NamedTuple):
    """One trick: who led it, the pile in the order laid, who took it, and every
    hand (codes, top card first) once the pile was taken."""
    leader: int
    pile: tuple
    taker: int
    hands: tuple


class Found(NamedTuple):
    """A state a backward search reached: hands (codes, top card first), who
    leads, and the cards and tricks from it to the search's root."""
    hands: tuple
    leader: int
    cards: int
    tricks: int
