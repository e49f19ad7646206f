"""A loop's family: the tricks of its cycle as a bag, whatever their order.

A loop's cycle is a sequence of tricks. Each trick is written as (the cards
its taker wins from the others, the taker's seat counted from the trick's
leader: 0 when the leader takes it). A loop's **turn** is the shortest run
of tricks that its cycle repeats (a cycle of 82 tricks that plays the same
41 twice over, the seats swapped, has a turn of 41), and its **family** is
the bag (multiset) of its turn's tricks: loops whose cycles play the same
tricks in other orders are of one family.

Why a bag: perturbation shuffles a few runs of tricks, so the bag groups
what the sequence and the graph of single changes split (Casella's loop and
the three balanced loops found next to it are one family), and it is known
from the cycle alone, the same whoever found the loop and when, so a hunt
rebuilt from its records knows the same families (docs/loops.md, Families,
has the measurements).

A family is named `TRICKS.CARDS.DIGEST`: its turn's tricks and cards won,
and the first hex digits of a hash of its bag, e.g. `31.220.5c1e7a90`.
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
    out = []
    for (hands, leader), (after, taker) in zip(states, states[1:] + states[:1]):
        out.append((len(after[taker]) - len(hands[taker]), (taker - leader) % players))
    return out


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
