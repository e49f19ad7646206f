"""A loop's identity: the states on its cycle, the order that names it, and
the deal a state stands for.

A state is `(hands, leader)` at an empty table, hands as tuples of codes 0-4
(top card first). It is written from its leader's seat, as the deal it is:
the leader's hand first, then the others in turn, so that it does not matter
which seat a game was started from. States are ordered as byte strings
[len(leader's hand), its cards, len(next hand), its cards, ...]
(state_key): the shorter leader's hand first, then the leader's cards (plain <
J < Q < K < A), then the other hands the same way.

A loop is named by its canonical state, the least state on its cycle in that
order. The same loop reached from any deal, or played from any state of its
cycle, has the same canonical state; the census, the archive's `loops` table,
the games of status `loop` and loops.Loop all use it. The compiled engine
writes the same bytes in C (its own state_key and loop_key); the reference
engine takes the least key over its own trace (reference._loop_key), so that
each engine's loop key is checked against one written apart from it.
"""

from __future__ import annotations

import itertools

from .deal import Deal


def state_key(hands, leader):
    """A state at an empty table as the bytes that order states (see above)."""
    key = bytearray()
    for i in range(len(hands)):
        hand = hands[(leader + i) % len(hands)]
        key.append(len(hand))
        key.extend(hand)
    return bytes(key)


def deal_of(hands, leader):
    """The deal a state stands for: the leader's hand first, the others in turn."""
    return Deal.from_codes([hands[(leader + i) % len(hands)] for i in range(len(hands))])


def key_hands(key):
    """The hands of a state_key, the leader's first, a player who is out
    as an empty hand."""
    hands, i = [], 0
    while i < len(key):
        hands.append(tuple(key[i + 1:i + 1 + key[i]]))
        i += 1 + key[i]
    return hands


def key_deal(key):
    """The deal a state_key stands for: the leader's hand first."""
    return Deal.from_codes(key_hands(key))


def walk(deal, trace, entry, period):
    """The states of a looping deal's game from its loop's first state, in
    play order, period + 1 of them: the cycle, then the state one period on.
    `trace` is the deal's Trick records (engine.tricks), `entry` and `period`
    in tricks (its Outcome's loop_entry and loop_period): the last state is
    the first again when the trace agrees with them, which a caller holding
    them from the other engine checks."""
    states = [(deal.hands, 0)]
    for trick in itertools.islice(trace, entry + period):
        states.append((tuple(tuple(hand) for hand in trick.hands), trick.taker))
    return states[entry:]


def canonical(cycle):
    """A cycle's states (in play order) as one loop, whatever state and seats
    it was played from: (the canonical state's key, the states in play order
    from the canonical one, each written with that state's leader in seat 0)."""
    keys = [state_key(hands, leader) for hands, leader in cycle]
    first = min(range(len(cycle)), key=keys.__getitem__)
    # Written from the canonical state's leader's seat, so that two reports of
    # one loop are equal whatever seats they were played in.
    seat = cycle[first][1]
    players = len(cycle[first][0])
    ordered = tuple((tuple(hands[(seat + i) % players] for i in range(players)), (leader - seat) % players)
                    for hands, leader in cycle[first:] + cycle[:first])
    return keys[first], ordered
