"""Where a hunt looks (hunt.py; docs/loops.md, The hunt, tells the rules and
the measurements they rest on): what a loop's cycle alone says of the
balanced deals it can reach, which loops are seated at which tables
(Known.seated_at, cell_seats), and which loops each round's walks start from
(pool). A loop's **gap** is the cards its balance lacks of a balanced deal's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ...decks import hand_sizes

#: The tables a hunt may aim at: two seats (a balanced deal of two hands,
#: 26/26), three (18/17/17) and four (13/13/13/13).
TABLES = (2, 3, 4)

#: The most cards a two-player basin's best balance measured above its
#: cycle's balance (benchmarks/hunt_scores.py: 2 to 8 over 29,904 loops).
GAIN = 8

#: The choices of [hunt] pool: where a round's walks start.
POOLS = ("novelty", "map", "elite")


def need(total, players=2):
    """The smallest hand of a balanced deal of `total` cards at a table of
    `players`: what a state of that table must reach to be one."""
    return min(hand_sizes(total, players))


def balance(states):
    """The largest smaller hand of a cycle's states [(hands, leader)]."""
    return max(min(len(hand) for hand in hands) for hands, _ in states)


@dataclass(frozen=True)
class Known:
    """A loop a hunt knows: its canonical state (hex), the round (-1: the
    start) and part that found it first, its period in tricks, cycle hash,
    balance and family's name."""
    key: str
    round: int
    part: int
    period: int
    hash: int
    balance: int
    family: str

    @property
    def cell(self):
        """Its place on the map of loops: (family, balance)."""
        return self.family, self.balance

    def found(self):
        """What orders the loops of a cell, the first found first."""
        return self.round, self.part, self.key

    def gap(self, total):
        return need(total) - self.balance

    def seated_at(self, tables, total, seat):
        """The tables of `tables` it is seated at as soon as it is known, by
        the job's `seat` rule (docs/loops.md, Seats; "cells": cell_seats)."""
        if seat in ("none", "all"):
            return list(tables) if seat == "all" else []
        return [players for players in tables
                if (players == 2 and self.gap(total) <= GAIN) or (players != 2 and seat == "aimed")]


def cell_seats(found, taken, tables, seat):
    """The loops of `found` (Known, a whole round's) seated at three and four
    seats by the "cells" rule: the first found of each cell not in `taken`
    (the cells known before the round). [(key, players)]."""
    if seat != "cells":
        return []
    new = [loop for cell, loop in cells(found).items() if cell not in taken]
    return [(loop.key, players) for loop in sorted(new, key=Known.found) for players in tables if players != 2]


def cells(known):
    """The map: {cell: its first loop found} of the loops `known` (Known)."""
    first = {}
    for loop in sorted(known, key=Known.found):
        first.setdefault(loop.cell, loop)
    return first


def pool(known, tables, total, elite, how="elite", round_=0):
    """The keys of `known` (Known) that round `round_`'s walks start from, by
    `how`: "novelty", the first loop of each cell first found by round
    round_ - 3 or later, or where none was, as "map": the first loop of each
    cell; "elite", those within `elite` cards of two seats (or of the least
    gap), nearest first, or aimed at three and four alone, every one."""
    if not known:
        return []
    if how in ("map", "novelty"):
        first = cells(known).values()
        new = [loop for loop in first if loop.round >= round_ - 3] if how == "novelty" else []
        return sorted(loop.key for loop in (new or first))
    if 2 not in tables:
        return sorted(loop.key for loop in known)
    within = max(elite, min(loop.gap(total) for loop in known))
    return [loop.key for loop in sorted(known, key=lambda loop: (loop.gap(total), loop.key))
            if loop.gap(total) <= within]


def walk_order(keys, seed, part):
    """The pool's keys in the order walk `part` of `seed` is given them,
    shuffled by the seed and the walk: a pool of more states than a walk
    holds (beggar._loops.perturb's 4,096) draws from all of them over the
    walks."""
    mixed = list(keys)
    random.Random(f"hunt {seed} {part}").shuffle(mixed)
    return mixed
