"""A loop's family: the tricks of its cycle as a bag, whatever their order
(docs/loops.md, Families: a trick, a turn, a family and its name).

Why a bag: perturbation shuffles a few runs of tricks, so the bag groups
what the sequence and the graph of single changes split (Casella's loop and
the three balanced loops found next to it are one family), and it is known
from the cycle alone, the same whoever found the loop and when, so a hunt
rebuilt from its records knows the same families (docs/loops.md has the
measurements).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass

#: Hex digits of the bag's hash in a family's name.
DIGITS = 8

#: A family's name (its turn's tricks, cards won and DIGITS hex digits of
#: its bag's hash), as a hunt's records are checked to hold it.
NAME = re.compile(r"[1-9]\d*\.\d+\.[0-9a-f]{8}")


@dataclass(frozen=True)
class Family:
    name: str           # TRICKS.CARDS.DIGEST
    tricks: int         # the tricks of a turn
    cards: int          # the cards won over a turn
    bag: tuple          # ((won, taker's seat from the leader), how many) in order


def tricks(states):
    """A cycle's tricks, from its states in play order ((hands, leader), every
    state written in the same seats, as loops.Loop.states holds them): for
    each, (cards the taker won, the taker's seat counted from the leader)."""
    players = len(states[0][0])
    return [(len(after[taker]) - len(hands[taker]), (taker - leader) % players)
            for (hands, leader), (after, taker) in zip(states, states[1:] + states[:1])]


def turn(sequence):
    """The shortest run that `sequence` (a cycle) repeats whole."""
    n = len(sequence)
    for length in range(1, n + 1):
        if n % length == 0 and all(sequence[i] == sequence[i - length] for i in range(length, n)):
            return sequence[:length]
    return sequence


def of_states(states):
    """The Family of a cycle given by its states in play order."""
    played = turn(tricks(list(states)))
    bag = tuple(sorted(Counter(played).items()))
    digest = hashlib.sha256(repr(bag).encode()).hexdigest()[:DIGITS]
    cards = sum(won for won, _ in played)
    return Family(f"{len(played)}.{cards}.{digest}", len(played), cards, bag)


def of_loop(loop):
    """The Family of a loops.Loop."""
    return of_states(loop.states)
