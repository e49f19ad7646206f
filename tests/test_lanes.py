"""sample()'s two-player games played 16 at a time in lockstep lanes
(c/lanes.h, AVX-512) against the same deals played one game at a time:
the same hits in the same order, the same longest game and the same lengths,
on every shape the lanes take and at their edges, and for the games they hand
back to the one-at-a-time engine (loops, long games)."""

import pytest

from beggar import _engine
from beggar.decks import Deck

pytestmark = pytest.mark.skipif(not _engine.LANES_USABLE, reason="this processor has no AVX-512F")


def both_ways(*args, tricks=1024):
    """sample_best(*args) in lanes (at most `tricks` tricks each), then one game at a time."""
    try:
        assert _engine.set_lanes(True, tricks)
        in_lanes = _engine.sample_best(*args)
        _engine.set_lanes(False)
        return in_lanes, _engine.sample_best(*args)
    finally:
        _engine.set_lanes(True)


# Decks of 64 cards and 30 court cards are the lanes' largest; 65 cards and
# 31 court cards go one at a time, and must still agree.
@pytest.mark.parametrize("deck", ["standard", "half", "camicia", "18 2J 2Q 2K 2A", "1 1J", "56 4J 4Q",
                                  "34 8J 8Q 8K 6A", "35 8J 8Q 8K 6A", "33 8J 8Q 8K 7A"])
@pytest.mark.parametrize("split", [None, "random", 1])
def test_lanes_play_every_deal_as_one_game_at_a_time(deck, split):
    deck = Deck.parse(deck)
    for deals, min_cards, start in ((3000, 0, 0), (15, 0, 2 ** 63), (17, 120, 5), (2000, 10 ** 9, 2 ** 64 - 2000)):
        in_lanes, alone = both_ways(deals, 2026 + deals, min_cards, start, deck, 2, split)
        assert in_lanes == alone
        assert len(in_lanes[0]) == (deals if min_cards == 0 else len(alone[0]))


@pytest.mark.parametrize("deck", ["5 2J 1A", "6 2J 2Q", "8 2J 2Q 2K", "standard"])
@pytest.mark.parametrize("tricks", [1, 3, 40])
def test_games_handed_back_from_the_lanes_are_played_whole(deck, tricks):
    # These small decks loop often: every loop is found by the one-at-a-time
    # engine after the lanes hand its game back.
    in_lanes, alone = both_ways(5000, 7, 400, 0, Deck.parse(deck), 2, "random", tricks=tricks)
    assert in_lanes == alone
    if deck != "standard":
        assert any(outcome.status == "loop" for _, outcome in in_lanes[0])


def test_of_many_games_tied_for_the_longest_the_earliest_is_named():
    # 69 of these 2,000 deals reach the longest length, and the lanes keep
    # their results as their games end, not by deal number.
    deck = Deck.parse("3 1J 1Q")
    in_lanes, alone = both_ways(2000, 1, 10 ** 9, 0, deck, 2, "random")
    assert in_lanes == alone
    tied, _ = both_ways(2000, 1, in_lanes[1][1].cards, 0, deck, 2, "random")
    assert len(tied[0]) == 69 and tied[0][0] == in_lanes[1]


def test_set_lanes_says_what_was_on():
    try:
        assert _engine.set_lanes(False) is True
        assert _engine.set_lanes(True) is False
    finally:
        _engine.set_lanes(True)
