"""Types of the compiled engine (beggar/_engine.pyx); the contract is engine.Engine."""

import numpy as np

from ._backward import backward as backward, backward_to as backward_to, predecessors as predecessors
from .climbing import ACCEPTS as ACCEPTS, SECONDARY_BITS as SECONDARY_BITS, Climb, ClimbRules
from .deal import MAX_CARDS as MAX_CARDS, Deal
from .decks import Deck
from .lengths import Lengths
from .outcome import Outcome
from .rules import Rules
from .states import CensusBlock

NAME: str

def play(deal: Deal, rules: Rules = ...) -> Outcome: ...
def play_batch(decks: np.ndarray, split: int | np.ndarray | None = None, rules: Rules = ...) -> np.ndarray: ...
_Split = int | str | None

def sample(n_deals: int, seed: int = 1, min_cards: int = 3000, start: int = 0, deck: Deck = ...,
           players: int = 2, split: _Split = None, lay_on: bool = False) -> list[tuple[Deal, Outcome]]: ...
def sample_best(n_deals: int, seed: int = 1, min_cards: int = 3000, start: int = 0, deck: Deck = ...,
                players: int = 2, split: _Split = None, lay_on: bool = False
                ) -> tuple[list[tuple[Deal, Outcome]], tuple[Deal, Outcome] | None, Lengths]: ...
LANES_USABLE: bool
MAX_LANE_TRICKS: int
def set_lanes(on: bool, tricks: int = 1024) -> bool: ...
def climb(seed: int, index: int, steps: int, min_cards: int, rules: ClimbRules, deck: Deck = ...,
          players: int = 2, split: _Split = None, lay_on: bool = False) -> Climb: ...
def census(first: int, deals: int, deck: Deck = ..., players: int = 2, split: int | None = None,
           top: int = 10, lay_on: bool = False) -> CensusBlock: ...
def shuffled_deck(seed: int, index: int = 0, deck: Deck | str = ...) -> list[int]: ...
