"""Types of the compiled backward play (beggar/_backward.pyx); see engine.Engine."""

from typing import Sequence

from .states import GUIDES as GUIDES, Reached

def predecessors(hands: Sequence[Sequence[int]], leader: int
                 ) -> list[tuple[tuple[tuple[int, ...], ...], int, int]]: ...
def backward(roots: Sequence[tuple[Sequence[Sequence[int]], int]],
             skips: Sequence[tuple[Sequence[Sequence[int]], int] | None],
             max_states: int, max_seconds: float) -> tuple[int, list[Reached], str | None]: ...
def backward_to(roots: Sequence[tuple[Sequence[Sequence[int]], int]],
                skips: Sequence[tuple[Sequence[Sequence[int]], int] | None],
                sizes: Sequence[int], guide: str, max_states: int, max_seconds: float
                ) -> tuple[int, list[Reached], str | None, Reached | None]: ...
