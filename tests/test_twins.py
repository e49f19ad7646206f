"""The C that the compiled engine and the kernels share (src/beggar/c/*.h),
held to twins written apart from it in Python: a perturbation walk's tries
(perturb.h) and the hashes that name loops (hash.h) against the reference
engine's, which are written from docs/loops.md's words. The other shared
leaves have their twins elsewhere: the random stream (shuffle.py,
test_play.py), the census's order (census.py, test_census.py), the
climber's step (reference.climb, test_climb.py)."""

import numpy as np
import pytest

from beggar import Deal, _loops, reference
from beggar.cycle import key_hands
from beggar.decks import Deck
from beggar.shuffle import Stream
from helpers import known_loops


def random_pool(deck, rows, seed):
    """`rows` random states of `deck` (rows n0, then the cards), each split at random."""
    deck = Deck.parse(deck)
    stream = Stream(seed, 0)
    pool = np.zeros((rows, deck.total + 1), np.uint8)
    cards = [code for code in range(5) for _ in range(deck.counts[code])]
    for row in pool:
        for i in range(len(cards) - 1, 0, -1):
            j = stream.below(i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        row[0] = 1 + stream.below(deck.total - 1)
        row[1:] = cards
    return pool


@pytest.mark.parametrize("moves", ["small", "wide", "block", "turn", "splice"])
@pytest.mark.parametrize("deck, changes, reach", [("standard", 2, 3), ("standard", 4, 8), ("camicia", 3, 6),
                                                  ("half", 1, 1), ("8 1J", 5, 30), ("2 1J 1A", 3, 2)])
def test_a_walks_tries_are_the_reference_twins(deck, changes, reach, moves):
    pool = random_pool(deck, 7, seed=len(deck) + changes)
    walk_seed, first, count = 0xDEADBEEF12345678 + reach, 2 ** 40 - 1000, 2000
    made = _loops.tries(pool, walk_seed, first, count, changes=changes, reach=reach, moves=moves)
    given = [(list(row[1:]), int(row[0])) for row in pool]
    for k, row in enumerate(made):
        cards, n0 = reference.perturbed(given, walk_seed, first + k, changes, reach, moves)
        assert (list(row[1:]), int(row[0])) == (cards, n0), f"try {first + k}"
        # Every try is of the deck, whatever its moves.
        assert sorted(row[1:]) == sorted(pool[0][1:])
    # Every kind of change happened: sizes moved and cards moved.
    assert len(set(made[:, 0])) > 1 and len({bytes(row) for row in made}) >= 10


def test_wide_moves_make_states_the_small_ones_do_not():
    # The same stream, the kinds drawn from 7 instead of 4: tries differ, and
    # a wide walk's tries keep the split of the state drawn more often (its
    # three wide kinds never move it).
    pool = random_pool("standard", 5, seed=3)
    small = _loops.tries(pool, 9, 0, 3000, changes=1, reach=8)
    wide = _loops.tries(pool, 9, 0, 3000, changes=1, reach=8, moves="wide")
    assert (small != wide).any(axis=1).sum() > 1000
    kept = lambda made: sum(int(row[0]) in set(pool[:, 0]) for row in made)
    assert kept(wide) > kept(small)
    with pytest.raises(ValueError, match="moves must be one of small, wide, swap"):
        _loops.tries(pool, 9, 0, 10, moves="far")
    with pytest.raises(ValueError, match="one deck"):
        other = pool.copy()
        other[0, 1:][other[0, 1:] == 0] = 1        # every plain card a jack: not the deck of the others
        _loops.tries(other, 9, 0, 10, moves="wide")


def test_a_pool_the_tries_cannot_draw_from_is_refused():
    pool = random_pool("half", 2, 1)
    for bad in (pool[:0], np.where(pool > 0, 0, pool), pool.ravel()):
        with pytest.raises(ValueError, match="pool"):
            _loops.tries(bad, 1, 0, 10)


@pytest.mark.parametrize("deck", ["standard", "camicia"])
def test_the_loops_a_walk_knows_are_named_by_the_reference_cycle_hash(deck):
    # A walk hands its launcher the cycle hashes of the loops it knows: from
    # its start, those of the loops it was given, hashed from their cards
    # (hash.h); the reference takes the least state_hash round each cycle.
    states = [(tuple(key_hands(key)), 0) for key in known_loops(deck)[:6]]
    told = []

    def launcher(pool, n_pool, total, walk_seed, first, most, known):
        told.append(sorted(int(h) for h in known))
        return most, []
    _loops.perturb(states, deck, 1, 0, 10, launcher=launcher)
    assert told[0] == sorted({reference.cycle_hash(Deal.from_codes(hands)) for hands, _ in states})


def test_a_state_hash_reads_the_leaders_hand_first_and_its_pieces():
    # The hash reads the leader's hand first (the same hands led by the other
    # player are another state), and its pieces: a plain card moved from one
    # run to another changes it.
    cards, n0 = [0, 1, 0, 0, 2, 0, 3, 0, 4, 0], 4
    assert reference.state_hash(cards, n0) != reference.state_hash(cards[n0:] + cards[:n0], len(cards) - n0)
    assert reference.state_hash(cards, n0) != reference.state_hash([1, 0, 0, 0, 2, 0, 3, 0, 4, 0], n0)
    assert reference.state_hash(cards, n0) == reference.state_hash(list(cards), n0)
