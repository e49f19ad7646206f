"""Types of the compiled engine (beggar/_engine.pyx); the contract is engine.Engine."""

from typing import Sequence

import numpy as np

from .climbing import Climb, ClimbRules
from .deal import Deal
from .decks import Deck
from .outcome import Outcome
from .rules import Rules
from .states import Census, Found

NAME: str

def play(deal: Deal, rules: Rules = ...) -> Outcome: ...
def play_batch(decks: np.ndarray, split: int | np.ndarray | None = None, rules: Rules = ...) -> np.ndarray: ...
Split = int | str | None

def sample(n_deals: int, seed: int = 1, min_cards: int = 3000, start: int = 0, deck: Deck = ...,
           players: int = 2, split: Split = None) -> list[tuple[Deal, Outcome]]: ...
def sample_best(n_deals: int, seed: int = 1, min_cards: int = 3000, start: int = 0, deck: Deck = ...,
                players: int = 2, split: Split = None
                ) -> tuple[list[tuple[Deal, Outcome]], tuple[Deal, Outcome] | None]: ...
def climb(seed: int, index: int, steps: int, min_cards: int, rules: ClimbRules, deck: Deck = ...,
          players: int = 2, split: Split = None) -> Climb: ...
def predecessors(hands: Sequence[Sequence[int]], leader: int
                 ) -> list[tuple[tuple[tuple[int, ...], tuple[int, ...]], int, int]]: ...
def backward(roots: Sequence[tuple[Sequence[Sequence[int]], int]],
             skips: Sequence[tuple[Sequence[Sequence[int]], int] | None],
             max_states: int, max_seconds: float) -> tuple[int, list[Found], str | None]: ...
def census(first: int, deals: int, deck: Deck = ..., players: int = 2, split: int | None = None,
           top: int = 10) -> Census: ...
def shuffled_deck(seed: int, index: int = 0, deck: Deck | str = ...) -> list[int]: ...

# The card-by-card twins of the public calls, for the benchmark and the tests.
def _play(deal: Deal, rules: Rules, by_court: bool) -> Outcome: ...
def _play_batch(decks: np.ndarray, split: int | np.ndarray | None, rules: Rules, by_court: bool) -> np.ndarray: ...
def _sample(n_deals: int, seed: int, min_cards: int, start: int, deck: Deck, players: int, split: Split,
            by_court: bool
            ) -> tuple[list[tuple[Deal, Outcome]], tuple[Deal, Outcome] | None]: ...
