"""Where a hunt looks (hunt.py): what a loop's cycle alone says of the
balanced deals it can reach at each table, which loops are seated there,
and which loops each round's walks start from.

A loop's **score** at a table is read off its cycle, free once the cycle is
known. At two seats it is the cycle's balance: the largest smaller hand of
its states. Backward play from a loop is shallow, so a basin's best balance
is its cycle's plus a few cards: at most GAIN[2] more, measured on every
52-card loop whose basin was searched to the end (docs/loops.md). At three
and four seats the score is what predicts the best balance a table reaches
(the same measure, docs/loops.md gives the table), with its own bound. A
loop's **gap** at a table is the cards its score lacks of the table's
balanced deal (26 of 52 at two seats, 17 at three, 13 at four): a loop is
seated at a table it aims at only where its gap is at most GAIN, the most
any loop measured gained; the others are kept, unseated (a job with seat =
"all" seats them too).

The **pool** of a round's walks is the hunt's elite: the loops it knows
whose gap is at most the job's `elite` cards at a table it aims at, or,
where none is, those nearest. Nothing else joins it: loops far from balance
are where perturbation drifts, and a pool of them floods a hunt with loops
that can reach no balanced deal (docs/loops.md). Each walk shuffles the
pool (its seed and number), so that a pool of more states than a walk holds
draws from all of them over the walks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ...decks import hand_sizes

#: The tables a hunt may aim at: two seats (a balanced deal of two hands,
#: 26/26), three (18/17/17) and four (13/13/13/13).
TABLES = (2, 3, 4)

#: The most cards a table's best balance measured above a loop's score, of
#: every loop searched to the end (docs/loops.md: benchmarks/hunt_scores.py).
GAIN = {2: 8, 3: 8, 4: 8}

#: The states a walk's pool holds (beggar._loops.perturb's POOL).
POOL_STATES = 4096


def need(total, players):
    """The smallest hand of a balanced deal of `total` cards at a table of
    `players`: what a state of that table must reach to be one."""
    return min(hand_sizes(total, players))


def balance(states):
    """The largest smaller hand of a cycle's states [(hands, leader)]."""
    return max(min(len(hand) for hand in hands) for hands, _ in states)


def scores(loop):
    """A loop's score at each table (TABLES, in order), from its cycle alone."""
    two = balance(loop.states)
    return (two, two, two)


@dataclass(frozen=True)
class Known:
    """A loop a hunt knows: its canonical state (hex), the round whose walks
    found it (-1: the hunt started from it) and the part (walk) that did
    first, its period in tricks (the states it puts in a pool), its cycle
    hash (beggar._loops.cycle_hashes) and its scores."""
    key: str
    round: int
    part: int
    period: int
    hash: int
    scores: tuple

    def gap(self, players, total):
        """The cards its score at a table of `players` lacks of a balanced deal."""
        return need(total, players) - self.scores[TABLES.index(players)]

    def nearest(self, tables, total):
        """Its least gap at any of `tables`."""
        return min(self.gap(players, total) for players in tables)

    def seated_at(self, tables, total, seat):
        """The tables of `tables` it is seated at, by the job's `seat` rule:
        "aimed" where its gap is at most that table's GAIN, "all" every one,
        "none" none."""
        if seat == "all":
            return list(tables)
        if seat == "none":
            return []
        return [players for players in tables if self.gap(players, total) <= GAIN[players]]


def pool(known, tables, total, elite):
    """The loops a round's walks start from (keys), the elite: of `known`
    (Known), those whose least gap at `tables` is at most `elite` cards, or,
    where none is, those of the least gap; nearest first, then by key."""
    if not known:
        return []
    gaps = {loop.key: loop.nearest(tables, total) for loop in known}
    within = max(elite, min(gaps.values()))
    return sorted((key for key, gap in gaps.items() if gap <= within), key=lambda key: (gaps[key], key))


def walk_order(keys, seed, part):
    """The pool's keys in the order walk `part` of `seed` is given them,
    shuffled by the seed and the walk: a pool of more states than a walk
    holds (POOL_STATES) draws from all of its loops over the walks."""
    mixed = list(keys)
    random.Random(f"hunt {seed} {part}").shuffle(mixed)
    return mixed
