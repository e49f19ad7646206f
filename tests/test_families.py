"""Loop families (family.py): a loop's tricks as a bag over its turn, the
same from any state of its cycle and seat, shared by loops whose cycles play
the same tricks in another order, and told apart where the tricks differ."""

from pathlib import Path

import pytest

from apart import play as play_apart
from beggar import family, loops
from beggar.cycle import deal_of, key_deal
from beggar.finds import known_loops
from beggar.rules import Rules
from beggar.savefile import load
from beggar.search.drivers import aim
from engines import agree

ROOT = Path(__file__).resolve().parent.parent


def _standard():
    """The 491 standard loops known before families (published, and shipped before the atlas)."""
    keys = {loops.of_deal(game.deal).hex for name in ("loop-52-balanced", "loops-52-hunt", "loops-52-near-balanced")
            for game in load(str(ROOT / "results" / f"{name}.json"))}
    keys |= {loops.of_deal(deal).hex for _, deal in loops.published("standard")}
    assert len(keys) == 491
    return [loops.of_deal(key_deal(key)) for key in sorted(keys)]


def test_a_family_is_the_same_from_every_state_of_the_cycle_and_either_seat():
    loop = loops.of_deal(key_deal(min(known_loops("standard"))))
    named = family.of_loop(loop)
    for k in range(0, len(loop.states), 7):
        turned = loop.states[k:] + loop.states[:k]
        assert family.of_states(turned) == named
        # The seats swapped: each state written from the other seat.
        swapped = [((hands[1], hands[0]), 1 - leader) for hands, leader in turned]
        assert family.of_states(swapped) == named
    assert family.NAME.fullmatch(named.name) and named.name.startswith(f"{named.tricks}.{named.cards}.")


def test_a_trick_is_what_its_taker_wins_and_where_the_taker_sits():
    # Seat 1 takes the first trick, two cards up; seat 0 the second (the
    # cycle's last state back to its first), two cards up: each time the
    # player after the leader.
    states = [(((1, 0, 0), (2, 0)), 0), (((1,), (2, 0, 0, 0)), 1)]
    assert family.tricks(states) == [(2, 1), (2, 1)]
    # Seat 0 leads and takes: seat 0 counted from the leader.
    assert family.tricks([(((1, 0), (0, 0, 0)), 0), (((1, 0, 0, 0), (0,)), 0)])[0] == (2, 0)


def test_a_cycle_that_plays_its_turn_twice_is_of_its_turn_s_family():
    played = [(3, 0), (1, 1), (4, 0)]
    assert family.turn(played * 2) == played and family.turn(played) == played
    assert family.turn([(1, 0), (2, 0), (1, 0)]) == [(1, 0), (2, 0), (1, 0)]


def test_the_known_standard_loops_make_sixteen_families_and_casella_s_balanced_four_are_one():
    known = _standard()
    names = {loop.hex: family.of_loop(loop) for loop in known}
    assert len({named.name for named in names.values()}) == 16
    # The four loops of period 62 and balance 22 with balanced deals: Casella's and the three found next to it.
    balanced = [loop for loop in known if loop.period[0] == 62 and aim.balance(loop.states) == 22]
    assert len(balanced) == 4 and len({names[loop.hex].name for loop in balanced}) == 1
    assert names[balanced[0].hex].tricks == 31
    # Loops of period 82 play a turn of 41 twice: of the families of loops of period 41.
    turns = {names[loop.hex].tricks for loop in known if loop.period[0] in (41, 82)}
    assert turns == {41}
    # Period 58 and balance 22 is a family of its own, not Casella's.
    fifty_eight = {names[loop.hex].name for loop in known if loop.period[0] == 58}
    assert fifty_eight and not fifty_eight & {names[balanced[0].hex].name}


@pytest.mark.parametrize("deck", ["camicia"])
def test_the_two_camicia_loops_are_two_families(deck):
    assert len({family.of_loop(loops.of_deal(key_deal(key))).name for key in known_loops(deck)}) == 2


@pytest.mark.parametrize("deck", ["standard", "camicia"])
def test_the_atlas_holds_every_family_known_each_example_of_its_family(deck):
    """results/atlas-DECK.json (benchmarks/atlas.py): a family a game, its
    example the canonical state of a loop of that family, played as a loop
    from its first trick by both engines and by a player written apart from
    them; every family of the loops known is there."""
    atlas = load(str(ROOT / "results" / f"atlas-{deck}.json"))
    named = [game.provenance["family"] for game in atlas]
    assert len(set(named)) == len(named)
    for game in atlas:
        loop = loops.of_deal(game.deal)
        assert family.of_loop(loop).name == game.provenance["family"] and game.deal in [
            deal_of(*state) for state in loop.states]
        assert aim.balance(loop.states) in game.provenance["balances"]
        assert loop.period[0] in game.provenance["periods"] and game.provenance["loops"] >= 1
        outcome = agree("play", game.deal, Rules())
        assert (outcome.status, outcome.loop_entry, outcome.loop_period) == ("loop", (0, 0), loop.period)
        assert play_apart([list(hand) for hand in game.deal.hands])[3:] == ((0, 0), loop.period)
    known = {family.of_loop(loops.of_deal(key_deal(key))).name for key in known_loops(deck)}
    assert known <= set(named)
