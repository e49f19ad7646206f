"""Types of the compiled census (beggar/_census.pyx); see engine.Engine."""

from .decks import Deck
from .outcome import STATUSES as STATUSES
from .states import CensusBlock

def census(first: int, deals: int, deck: Deck = ..., players: int = 2, split: int | None = None,
           top: int = 10, lay_on: bool = False) -> CensusBlock: ...
