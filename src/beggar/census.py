"""Census: every deal of a deck, each exactly once, in a fixed order
(docs/census.md). Arrangements are ranked in lexicographic order, plain < J <
Q < K < A: `unrank` gives the arrangement of any rank in exact integers (the
standard deck has 6.5 * 10^20 of them, more than 64 bits hold), and from there the engines step on
with `next_arrangement`, so that any block of ranks can be played alone.
"""

from __future__ import annotations

from math import factorial

from .cards import CODES
from .checks import whole
from .decks import Deck, DeckError, check_table, hand_sizes


def count(deck):
    """How many arrangements the deck has: n! / (plain! J! Q! K! A!)."""
    return _arrangements(Deck.parse(deck).counts)


def _arrangements(counts):
    """Arrangements of a multiset given by its counts."""
    result = factorial(sum(counts))
    for n in counts:
        result //= factorial(n)
    return result


def unrank(rank, deck):
    """The arrangement (codes) of `rank` in lexicographic order."""
    deck = Deck.parse(deck)
    total = count(deck)
    if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < total:
        raise ValueError(f"rank must be a whole number from 0 to {total - 1}, not {rank!r}")
    left = list(deck.counts)
    cards = []
    for _ in range(deck.total):
        for code in range(CODES):
            if not left[code]:
                continue
            left[code] -= 1
            below = _arrangements(left)     # arrangements that start with `code` here
            if rank < below:
                cards.append(code)
                break
            rank -= below
            left[code] += 1
    return cards


def rank(cards):
    """The rank of an arrangement (codes) among those of its own deck
    (ValueError naming the card that is no code 0-4)."""
    left = [0] * CODES
    for place, card in enumerate(cards):
        left[whole(card, f"cards[{place}] (a card code)", 0, 4)] += 1
    result = 0
    for card in cards:
        for code in range(card):
            if left[code]:
                left[code] -= 1
                result += _arrangements(left)
                left[code] += 1
        left[card] -= 1
    return result


def next_arrangement(cards):
    """Step `cards` (a list) to the next arrangement in lexicographic order, in
    place; False when it was the last one (cards are then left as they were)."""
    i = len(cards) - 2
    while i >= 0 and cards[i] >= cards[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = len(cards) - 1
    while cards[j] <= cards[i]:
        j -= 1
    cards[i], cards[j] = cards[j], cards[i]
    cards[i + 1:] = reversed(cards[i + 1:])
    return True


def check_block(first, deals, deck, players, split, top):
    """The arguments of a census block, checked: (Deck, players, split, the
    hand sizes). Every rank of the block must exist."""
    deck, players, split = check_table(deck, players, split)
    if split == "random":
        raise DeckError("a census deals every arrangement once: the split is even or a number of cards")
    last = count(deck) - 1
    whole(first, "first", 0, last)
    whole(deals, "deals", 0, min(last + 1 - first, 2 ** 62))
    whole(top, "top", 0, 10 ** 6)
    return deck, players, split, hand_sizes(deck.total, players, split)
