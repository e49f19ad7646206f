"""Backward play: predecessors, families of finished games, basins of loops."""

import itertools
import json
import random

import pytest

from beggar import Deal, play
from beggar.backward import BackwardError, basin, family
from beggar.cycle import deal_of
from beggar.engine import predecessors, tricks
from engines import agree
from helpers import CASELLA, MANN_WU, bad_input, beggar

ANDERSON = "--A-Q--J--J---Q--AJ-K---K-/-J-------Q------A--A--QKK-"


def step(hands, leader):
    """The state after one trick from (hands, leader), and the cards laid."""
    trick = next(tricks(deal_of(hands, leader)))
    after = trick.hands if leader == 0 else trick.hands[::-1]
    taker = trick.taker if leader == 0 else 1 - trick.taker
    return (tuple(tuple(h) for h in after), taker), len(trick.pile)


def road(deal, limit=400):
    """The states of a deal's game, in order, as (hands, leader)."""
    states = [(tuple(deal.hands), 0)]
    for trick in itertools.islice(tricks(deal), limit):
        states.append((tuple(tuple(h) for h in trick.hands), trick.taker))
    return states


def random_deals(n, seed):
    rng = random.Random(seed)
    for _ in range(n):
        deck = [c for hand in Deal.shuffled(2, rng.getrandbits(32)).hands for c in hand]
        if rng.random() < 0.3:
            deck = deck[:rng.randint(4, 30)]
        cut = rng.randint(1, len(deck) - 1)
        yield Deal.from_codes((deck[:cut], deck[cut:]))


@pytest.mark.slow
def test_predecessors_lead_back_and_include_the_real_one(engine):
    checked = 0
    for deal in random_deals(150, 1):
        states = road(deal)
        for before, after in zip(states, states[1:]):
            found = predecessors(after[0], after[1], engine=engine)
            assert (before[0], before[1]) in [(hands, leader) for hands, leader, _ in found]
            for hands, leader, cards in found:
                assert step(hands, leader) == (after, cards)
            checked += 1
    assert checked > 2000


def test_both_engines_find_the_same_predecessors():
    for deal in random_deals(100, 2):
        for hands, leader in road(deal, 60):
            agree("predecessors", hands, leader)


@pytest.mark.slow
@pytest.mark.parametrize("engine_name", ["compiled", "reference"])
def test_the_family_of_the_2007_record_holds_the_2013_record(engine_name):
    found = family(Deal.parse(MANN_WU), engine_name=engine_name)
    assert found.stopped_by is None
    assert (found.states, found.balanced) == (52446, 1915)
    deal, cards, tricks_ = found.longest
    assert str(deal) == ANDERSON and (cards, tricks_) == (7225, 1016)
    assert play(deal, engine="reference").cards == 7225


def test_family_members_end_the_same_way():
    found = family(Deal.parse("K-----Q--J-A-/--J-----K-Q-A"))
    final = found.final
    deal, cards, tricks_ = found.longest
    outcome = play(deal)
    assert (outcome.cards, outcome.tricks) == (cards, tricks_)
    # The same ending: the winner holds the same cards in the same order (the
    # deal puts its leader's hand first, so the winner may be the other hand).
    *_, last = tricks(deal)
    hands, winner = final
    assert tuple(last.hands[last.taker]) == hands[winner]


@pytest.mark.parametrize("engine_name", ["compiled", "reference"])
def test_the_basin_of_the_published_loop_holds_30_balanced_deals(engine_name):
    found = basin(Deal.parse(CASELLA), engine_name=engine_name)
    assert found.stopped_by is None and len(found.loop) == 62 and found.states == 2670
    assert len(found.deals) == 30 and len({str(d) for d, _ in found.deals}) == 30
    assert CASELLA in {str(d) for d, _ in found.deals}
    for deal, outcome in found.deals:
        assert outcome.engine == "reference"
        assert outcome.status == "loop" and outcome.loop_period == (62, 440)
        assert [len(h) for h in deal.hands] == [26, 26]


def test_bounds_are_reported():
    assert family(Deal.parse(MANN_WU), max_states=500).stopped_by == "states"
    assert basin(Deal.parse(CASELLA), max_states=100).stopped_by == "states"
    assert family(Deal.parse(MANN_WU), max_seconds=1e-9).stopped_by == "time"
    with pytest.raises(BackwardError, match="loops"):
        family(Deal.parse(CASELLA))
    with pytest.raises(BackwardError, match="does not loop"):
        basin(Deal.parse(MANN_WU))
    with pytest.raises(BackwardError, match="two players"):
        family(Deal.parse("J-/--/-"))


@pytest.mark.slow
def test_family_and_basin_commands(tmp_path):
    longest = tmp_path / "longest.json"
    result = beggar("family", MANN_WU, "--export", longest)
    assert result.returncode == 0, result.stderr
    assert "family   52,446 states (complete), 1,915 balanced deals" in result.stdout
    assert f"longest  {ANDERSON}  7225 cards, 1016 tricks" in result.stdout
    assert json.loads(longest.read_text())["deal"] == ANDERSON
    assert "expected OK, as saved" in beggar("replay", longest).stdout
    stopped = beggar("family", MANN_WU, "--max-states", 100).stdout
    assert "STOPPED by --max-states 100: there may be more" in stopped
    result = beggar("basin", CASELLA)
    assert result.returncode == 0, result.stderr
    assert "30 balanced deals, each replayed by the reference engine" in result.stdout
    assert result.stdout.count("period 62 tricks / 440 cards") == 30
    bad_input(beggar("basin", MANN_WU), "does not loop")
    bad_input(beggar("family", MANN_WU, "--max-cards", 100), "limits do not apply")


def test_search_bounds_are_checked():
    deal = Deal.parse(MANN_WU)
    for states, seconds in ((0, 1.0), (10 ** 19, 1.0), (10, float("inf")), (10, 1e300), (10, 0), (10, True)):
        with pytest.raises(BackwardError, match="max_s"):
            family(deal, states, seconds)
