"""Types of the loop factory's engine (beggar/_loops.pyx)."""

from typing import NamedTuple, Sequence

from .decks import Deck

State = tuple[tuple[tuple[int, ...], tuple[int, ...]], int]

class Growth(NamedTuple):
    loops: list[State]
    tries: int
    largest: int
    restarts: int
    sizes: list[tuple[int, int]]

def check_deck(deck: Deck | str) -> Deck: ...
def grow(deck: Deck | str, seed: int, walk: int, tries: int, *, start_courts: int = ..., start_plain: int = ...,
         patience: int = ...,
         stall: int = ..., pair_percent: int = ..., remove_percent: int = ..., best_percent: int = ...
         ) -> Growth: ...
def perturb(states: Sequence[State], deck: Deck | str, seed: int, index: int, tries: int) -> Growth: ...
