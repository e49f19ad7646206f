"""The starts of a hunt's growth walks (docs/loops.md, Growth walks, and
why: benchmarks/move_yield.py): loops of the pool with a few cards taken
out, for the compiled growth walk to insert back.
"""

from __future__ import annotations

import random

from ... import engine
from ...deal import Deal

#: The cards of a state tried for each removal, at most: a loop cut close to
#: where nothing can go (Casella's below 49 cards) is dropped soon.
TRIED = 24


def trimmed(hands, cards, rng):
    """The two-player state `hands` (the leader's hand first) with `cards`
    cards taken out one at a time, each the first of TRIED of the state's
    cards in an order drawn by `rng` whose removal leaves a state that
    loops: the state (hands, 0), or None where none of them can go."""
    hands = [list(hands[0]), list(hands[1])]
    for _ in range(cards):
        places = [(seat, at) for seat in (0, 1) for at in range(len(hands[seat]))]
        rng.shuffle(places)
        for seat, at in places[:TRIED]:
            trial = [list(hand) for hand in hands]
            del trial[seat][at]
            if trial[0] and trial[1] and engine.play(Deal.from_codes(trial), engine="compiled").status == "loop":
                hands = trial
                break
        else:
            return None
    return (tuple(hands[0]), tuple(hands[1])), 0


def starts(pool, seed, part, count, trim):
    """The starts of growth walk `part` of `seed`: `count` draws of a loop of
    `pool` (its canonical state's hands), each cut by 1 to `trim` cards
    (trimmed); those that could not be cut are left out."""
    rng = random.Random(f"regrow {seed} {part}")
    cut = (trimmed(rng.choice(pool), 1 + rng.randrange(trim), rng) for _ in range(count))
    return [state for state in cut if state is not None]
