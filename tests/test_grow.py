"""The loop factory's engine (beggar._loops): growth walks and perturbation.

Every loop either reports is played again here on both engines from the state
it gave, and its cards are counted against the deck; growth on a small deck is
held against the census, which knows every loop of that deck.
"""

import itertools

import pytest

from beggar import _engine, _loops, engine
from beggar.backward import basin
from beggar.census import count
from beggar.cycle import deal_of, state_key
from beggar.deal import Deal
from beggar.decks import Deck
from helpers import CASELLA

ZANOTTO = "--K-Q-Q-K-KJ-----KJ-/--J--Q----Q-------J-"


def state(deal):
    return (Deal.parse(deal).hands, 0)


def canonical(hands, leader):
    """The canonical state of the loop a state falls into (cycle.py's order),
    from the reference engine's tricks."""
    deal = deal_of(hands, leader)
    outcome = engine.play(deal, engine="reference")
    assert outcome.status == "loop"
    entry, period = outcome.loop_entry[0], outcome.loop_period[0]
    keys = [state_key(deal.hands, 0)]
    keys += [state_key(trick.hands, trick.taker)
             for trick in itertools.islice(engine.tricks(deal), entry + period)]
    return min(keys[entry:entry + period])


def check_loop(found, deck):
    """`found` is a state on the cycle of a full loop of `deck`, on every engine."""
    hands, leader = found
    assert leader in (0, 1) and all(hands)
    cards = hands[0] + hands[1]
    assert tuple(cards.count(code) for code in range(5)) == Deck.parse(deck).counts
    deal = deal_of(hands, leader)
    outcomes = [engine.play(deal, engine="reference"), engine.play(deal, engine="compiled")]
    for outcome in outcomes:
        assert outcome.status == "loop"
        # On the cycle: the game is in its loop from the start.
        assert outcome.loop_entry == (0, 0)
        assert outcome.loop_period == outcomes[0].loop_period


def census_loops(deck):
    """The canonical states of every loop of a small deck, by the census."""
    deck = Deck.parse(deck)
    keys = set()
    for split in range(1, deck.total):
        keys.update(loop[3] for loop in _engine.census(0, count(deck), deck, 2, split, top=0).loops)
    return keys


def test_a_walk_is_reproducible_from_seed_and_walk():
    first = _loops.grow("camicia", 7, 3, 40000)
    assert first == _loops.grow(Deck.parse("camicia"), 7, 3, 40000)
    assert first.tries == 40000
    assert first.sizes and first.sizes == sorted(first.sizes)
    assert first.largest == first.sizes[-1][1]
    assert _loops.grow("camicia", 7, 4, 40000).sizes != first.sizes


def test_growth_on_a_small_deck_finds_every_loop_the_census_knows():
    deck = "10 2J"
    grown = _loops.grow(deck, 1, 0, 200000)
    assert grown.largest == 12
    for found in grown.loops:
        check_loop(found, deck)
    keys = [canonical(*found) for found in grown.loops]
    assert len(set(keys)) == len(keys), "a loop reported twice in one walk"
    assert set(keys) == census_loops(deck)


@pytest.mark.parametrize("deck, start_courts", [("8 2J 1Q", 4), ("10 3J", 4), ("10 3J", 0), ("16 2J", 0)])
def test_growth_reports_full_loops_that_loop_on_both_engines(deck, start_courts):
    """start_courts 0: walks start from the whole deck, top down."""
    grown = _loops.grow(deck, 1, 0, 200000, start_courts=start_courts)
    assert grown.loops
    for found in grown.loops:
        check_loop(found, deck)


def test_perturb_finds_a_loop_next_to_casella_and_it_is_not_casella():
    perturbed = _loops.perturb([state(CASELLA)], "standard", 6, 0, 150000)
    assert perturbed == _loops.perturb([state(CASELLA)], "standard", 6, 0, 150000)
    assert perturbed.tries == 150000 and perturbed.largest == 52
    assert perturbed.loops
    casella = canonical(*state(CASELLA))
    for found in perturbed.loops:
        check_loop(found, "standard")
        assert canonical(*found) != casella


def test_the_loop_next_to_casella_is_reached_from_balanced_deals():
    """The basin of the loop perturbation finds: every balanced deal in it is
    26/26 and falls, on the reference engine, into that loop and no other."""
    found = _loops.perturb([state(CASELLA)], "standard", 6, 0, 150000).loops[0]
    searched = basin(deal_of(*found), max_states=100000, max_seconds=60)
    assert searched.stopped_by is None
    assert searched.deals
    key = canonical(*found)
    for deal, outcome in searched.deals:
        assert [len(hand) for hand in deal.hands] == [26, 26]
        assert outcome.status == "loop" and outcome.engine == "reference"
        assert canonical(deal.hands, 0) == key


@pytest.mark.parametrize("call, message", [
    (lambda: _loops.grow("standard", 1, 0, 0), "tries must be"),
    (lambda: _loops.grow("standard", -1, 0, 10), "seed must be"),
    (lambda: _loops.grow("30 1J", 1, 0, 10), "two court cards"),
    (lambda: _loops.grow("nonsense", 1, 0, 10), "unknown deck"),
    (lambda: _loops.grow("standard", 1, 0, 10, start_courts=1), "a state with one court card never loops"),
    (lambda: _loops.perturb([], "standard", 1, 0, 10), "none were given"),
    (lambda: _loops.perturb([state(ZANOTTO)], "standard", 1, 0, 10), "not those of deck standard"),
    (lambda: _loops.perturb([state(CASELLA)], "standard", 1, 0, 0), "tries must be"),
    (lambda: _loops.perturb([(state(CASELLA)[0], 2)], "standard", 1, 0, 10), "leader 0 or 1"),
    (lambda: _loops.perturb([((tuple(range(5)),), 0)], "standard", 1, 0, 10), "two hands"),
    (lambda: _loops.perturb([state("K" * 4 + "-" * 36 + "/" + "JQA" * 4)], "standard", 1, 0, 10),
     "does not loop"),
])
def test_bad_input_is_one_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message) as error:
        call()
    assert "\n" not in str(error.value)
