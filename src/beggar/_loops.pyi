"""Types of the loop factory's engine (beggar/_loops.pyx)."""

from typing import Callable, Iterable, NamedTuple, Sequence

import numpy as np

from .checks import MAX_COUNT as MAX_COUNT, MAX_SEED as MAX_SEED
from .decks import Deck

_State = tuple[tuple[tuple[int, ...], tuple[int, ...]], int]

class Growth(NamedTuple):
    loops: list[_State]
    tries: int
    largest: int
    restarts: int
    sizes: list[tuple[int, int]]

def check_deck(deck: Deck | str) -> Deck: ...
def check_growth(start_courts: int, start_plain: int, patience: int, stall: int, lateral_percent: int) -> None: ...
def grow(deck: Deck | str, seed: int, walk: int, tries: int, *, start_courts: int = ..., start_plain: int = ...,
         patience: int = ..., stall: int = ..., lateral_percent: int = ..., starts: Iterable[_State] = ...
         ) -> Growth: ...
def cycle_hashes(states: Iterable[_State], deck: Deck | str) -> list[int]: ...
MOVES: dict[str, tuple[int, int]]

def check_walk(changes: int, reach: int, moves: str) -> tuple[int, int]: ...
def perturb(states: Sequence[_State], deck: Deck | str, seed: int, index: int, tries: int, *, changes: int = ...,
            reach: int = ..., moves: str = ..., known: Iterable[int] = ...,
            launcher: Callable[[np.ndarray, int, int, int, int, int, np.ndarray], tuple[int, Sequence[int]]] | None
            = ...) -> Growth: ...
def tries(pool: np.ndarray, walk_seed: int, first: int, count: int, *, changes: int = ..., reach: int = ...,
          moves: str = ...) -> np.ndarray: ...
