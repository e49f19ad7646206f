"""A loop's identity: the states on its cycle, the order that names it (its
canonical state: docs/loops.md writes the bytes and their order), and the
deal a state stands for.

A state is `(hands, leader)` at an empty table, hands as tuples of codes 0-4
(top card first). It is written from its leader's seat, as the deal it is, so
that it does not matter which seat a game was started from. A player who is
out (his hand empty) is not written: he plays no part in the loop
(docs/rules.md, Three or four players). The compiled engine writes the same
bytes in C (its own state_key and loop_key); the reference engine takes the
least key over its own trace (reference._loop_key), so that each engine's
loop key is checked against one written apart from it.
"""

from __future__ import annotations

import itertools

from .cards import CODES
from .checks import cut
from .deal import Deal
from .decks import MAX_DECK, Deck, DeckError
from .states import StateError, check_state

#: The digits of a key as the archive keeps it (bytes.hex): lower-case only.
_HEX = frozenset("0123456789abcdef")


def state_key(hands, leader):
    """A state at an empty table as the bytes that order states (docs/loops.md):
    the hands of the players still in, from the leader's on. StateError for
    what is no state (states.check_state: a leader of no hand was read as
    another, a hand of 256 cards or a code of 300 was a bare "byte must be in
    range(0, 256)")."""
    hands, leader = check_state(hands, leader)
    cards = sum(len(hand) for hand in hands)
    if cards > MAX_DECK:
        raise StateError(f"the state: {cards} cards; a state holds at most {MAX_DECK}, as a deck does")
    key = bytearray()
    for i in range(len(hands)):
        hand = hands[(leader + i) % len(hands)]
        if hand:
            key.append(len(hand))
            key.extend(hand)
    return bytes(key)


def players_only(state):
    """A state (hands, leader) with the seats of the players who are out (their
    hands empty) left out, the others in their order round the table."""
    hands, leader = state
    seats = [seat for seat, hand in enumerate(hands) if hand or seat == leader]
    return tuple(tuple(hands[seat]) for seat in seats), seats.index(leader)


def deal_of(hands, leader):
    """The deal a state stands for: the leader's hand first, the others in
    turn. StateError for what is no state (states.check_state), DealError
    for a state that is no deal to play (one hand holds every card)."""
    hands, leader = check_state(hands, leader)
    return Deal.from_codes([hands[(leader + i) % len(hands)] for i in range(len(hands))])


def key_hands(key, *, deck=None, players=None):
    """The hands of a state_key, the leader's first (a key written before
    archive format 6 may hold a player who is out, as an empty hand: it is
    read as it stands). `key` is the key's bytes or its hex text (as the archive
    keeps it); with `deck` (a Deck, its name or notation) the state must hold
    exactly that deck's cards, with `players` that many hands. StateError,
    naming the key, for anything that is not such a key: not lower-case hex
    of whole bytes, cut short or run on, not 2-4 hands of codes 0-4 of at
    most MAX_DECK cards, the leader's hand empty, or one hand alone in."""
    shown = cut(key.hex() if isinstance(key, (bytes, bytearray)) else key)
    if isinstance(key, str):
        if not _HEX.issuperset(key) or len(key) % 2:
            raise StateError(f"loop key {shown}: not a state's key (lower-case hex digits, two a byte)")
        key = bytes.fromhex(key)
    elif not isinstance(key, (bytes, bytearray)):
        raise StateError(f"a loop key is hex text or bytes, not {cut(key)}")
    if not key:
        raise StateError("loop key '': empty, not a state")
    hands, i = [], 0
    while i < len(key):
        size = key[i]
        if i + 1 + size > len(key):
            raise StateError(f"loop key {shown}: cut short (hand {len(hands) + 1} has {size} cards, "
                             f"{len(key) - i - 1} follow{'s' if len(key) - i - 1 == 1 else ''})")
        hands.append(tuple(key[i + 1:i + 1 + size]))
        i += 1 + size
    try:
        hands, _ = check_state(hands, 0, where=f"loop key {shown}")
    except StateError as error:
        raise StateError(str(error).replace("the leader's hand (hand 1)", "the leader's hand")) from None
    total = sum(len(hand) for hand in hands)
    if total > MAX_DECK:
        raise StateError(f"loop key {shown}: {total} cards; a loop's deck holds at most {MAX_DECK}")
    if sum(1 for hand in hands if hand) < 2:
        raise StateError(f"loop key {shown}: one hand holds every card, so the game is over: no loop")
    if players is not None and len(hands) != players:
        raise StateError(f"loop key {shown}: a state of {len(hands)} players, not {players}")
    if deck is not None:
        try:
            deck = Deck.parse(deck)
        except DeckError as error:
            raise StateError(f"loop key {shown}: {error}") from None
        counts = tuple(sum(hand.count(c) for hand in hands) for c in range(CODES))
        if counts != deck.counts:
            raise StateError(f"loop key {shown}: its cards are not those of the {deck} deck")
    return list(hands)


def key_deal(key, *, deck=None, players=None):
    """The deal a state_key stands for, the leader's hand first (key_hands
    says what `key` is and what it is checked for)."""
    return Deal.from_codes(key_hands(key, deck=deck, players=players))


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
    """A cycle's states (in play order) as one loop, whatever state, seats and
    table it was played from: (the canonical state's key, the states in play
    order from the canonical one, its players only (players_only), each
    written with the canonical state's leader in seat 0)."""
    # Who is out is the same in every state of a cycle: no one goes out on it.
    cycle = [players_only(state) for state in cycle]
    keys = [state_key(hands, leader) for hands, leader in cycle]
    first = min(range(len(cycle)), key=keys.__getitem__)
    # Written from the canonical state's leader's seat, so that two reports of
    # one loop are equal whatever seats they were played in.
    seat = cycle[first][1]
    players = len(cycle[first][0])
    ordered = tuple((tuple(hands[(seat + i) % players] for i in range(players)), (leader - seat) % players)
                    for hands, leader in cycle[first:] + cycle[:first])
    return keys[first], ordered
