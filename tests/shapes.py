"""The shapes every differential test draws from: seeded random deals of every
shape (deals), the tables a job deals at (TABLES, and the two-player ones the
GPU kernels are held on), census blocks of every kind, and the published
loop's state that perturbation walks start from."""

import itertools
import random

from beggar import Deal, Rules, reference

#: The kinds of deal `deals` makes.
SHAPES = ("standard", "split", "small", "three", "four", "limits", "loops")

#: (deck, players, split): every kind of table a search job can deal.
TABLES = [("standard", 2, None), ("standard", 3, None), ("standard", 4, None), ("camicia", 2, None),
          ("camicia", 3, None), ("half", 2, None), ("half-camicia", 2, None), ("half", 2, "random"),
          ("camicia", 2, 7), ("standard", 2, "random"), ("10 1J 1Q 1K 1A", 4, None),
          ("3J 3Q", 2, None), ("200 8J 8Q 8K 8A", 3, None)]

#: Every shape of random two-player deal the GPU kernels are held to the compiled engine on: (deck, split).
TWO_PLAYER_TABLES = [("standard", None), ("camicia", None), ("half", None), ("standard", "random"),
                     ("camicia", "random"), ("standard", 19)]

#: Census blocks of every kind: (deck, split, first rank, deals; None: every one).
CENSUS_BLOCKS = [
    ("12 2J 2Q 2K", None, 0, None),           # a whole census, with its 15 loop deals
    ("10 2J 2Q", 7, 0, None),
    ("9 1J 1Q 1K 1A", 5, 0, None),
    ("half", None, 1_234_567_890, 200_000),
    ("camicia", None, 10 ** 13, 100_000),
]


def deals(shape, seed, n):
    """n (deal, rules) pairs of one shape, reproducible from seed."""
    rng = random.Random(f"{shape}-{seed}")
    make = globals()["_" + shape]
    return [make(rng) for _ in range(n)]


def _standard(rng):
    return Deal.shuffled(2, rng.getrandbits(64), rng.getrandbits(32)), Rules()


def _split(rng):
    deck = [c for hand in Deal.shuffled(2, rng.getrandbits(64)).hands for c in hand]
    cut = rng.randint(1, len(deck) - 1)
    return Deal([deck[:cut], deck[cut:]]), Rules()


def _small_hands(rng, players):
    """A small deck of random make-up, cut into `players` non-empty hands."""
    total = rng.randint(players, 24)
    courts = rng.random()
    deck = [rng.randint(1, 4) if rng.random() < courts else 0 for _ in range(total)]
    cuts = sorted(rng.sample(range(1, total), players - 1))
    return [deck[a:b] for a, b in zip([0] + cuts, cuts + [total])]


def _small(rng):
    return Deal(_small_hands(rng, 2)), Rules()


def _many(rng, players):
    if rng.random() < 0.5:
        return Deal.shuffled(players, rng.getrandbits(64)), Rules()
    return Deal(_small_hands(rng, players)), Rules()


def _three(rng):
    return _many(rng, 3)


def _four(rng):
    return _many(rng, 4)


def _limits(rng):
    """Any shape, under a limit that often falls inside the game, or near a loop."""
    players = rng.choice((2, 2, 2, 3, 4))
    deal = Deal(_small_hands(rng, players)) if rng.random() < 0.6 else Deal.shuffled(players, rng.getrandbits(64))
    kind = rng.randrange(3)
    max_cards = rng.randint(1, 400) if kind != 1 else None
    max_tricks = rng.randint(1, 60) if kind != 0 else None
    detect = rng.random() < 0.8
    return deal, Rules(max_cards, max_tricks, detect)


def _loops(rng):
    """Deals that loop often: states on the published loop's road (the leader's
    hand first), sometimes with two cards swapped, and tiny decks of two or
    three court cards; half of them under a limit near the loop's repeat."""
    if rng.random() < 0.5:
        hands = [list(h) for h in rng.choice(_casella_states())]
        if rng.random() < 0.5:
            a, b = rng.randrange(len(hands[0])), rng.randrange(len(hands[1]))
            hands[0][a], hands[1][b] = hands[1][b], hands[0][a]
        deal = Deal(hands)
    else:
        total = rng.randint(6, 16)
        deck = [0] * total
        for i in rng.sample(range(total), rng.randint(2, 3)):
            deck[i] = rng.randint(1, 2)
        cut = rng.randint(1, total - 1)
        deal = Deal([deck[:cut], deck[cut:]])
    if rng.random() < 0.5:
        return deal, Rules()
    return deal, Rules(max_tricks=rng.randint(1, 80), detect_loops=rng.random() < 0.9)


_CASELLA = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"
_states = []


def casella_state():
    """The published loop's deal as the one state a perturbation walk starts from."""
    deal = Deal.parse(_CASELLA)
    return [((tuple(deal.hands[0]), tuple(deal.hands[1])), 0)]


def _casella_states():
    if not _states:
        for trick in itertools.islice(reference.tricks(Deal.parse(_CASELLA)), 70):
            hands = trick.hands if trick.taker == 0 else trick.hands[::-1]
            _states.append([list(h) for h in hands])
    return _states
