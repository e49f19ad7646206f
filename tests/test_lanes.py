"""sample()'s two-player games played 16 at a time in lockstep lanes
(c/lanes.h, AVX-512) against the same deals played one game at a time:
the same hits in the same order, the same longest game and the same lengths,
on every shape the lanes take and at their edges, across chunks, and for the
games they hand back to the one-at-a-time engine (loops, long games)."""

import os
import subprocess
import sys

import pytest

from beggar import _engine
from beggar.decks import Deck

needs_lanes = pytest.mark.skipif(not _engine.LANES_USABLE, reason="this processor has no AVX-512F")


def both_ways(*args, tricks=1024):
    """sample_best(*args) in lanes (at most `tricks` tricks each), then one game at a time."""
    try:
        assert _engine.set_lanes(True, tricks)
        in_lanes = _engine.sample_best(*args)
        _engine.set_lanes(False)
        return in_lanes, _engine.sample_best(*args)
    finally:
        _engine.set_lanes(True)


# Decks of 30 court cards are the lanes' largest (31 go one at a time, and
# must still agree); decks of 65 cards and more are dealt by the general dealer.
@needs_lanes
@pytest.mark.parametrize("deck", ["standard", "half", "camicia", "18 2J 2Q 2K 2A", "1 1J", "56 4J 4Q",
                                  "34 8J 8Q 8K 6A", "35 8J 8Q 8K 6A", "33 8J 8Q 8K 7A", "60 4J 4Q 4K 4A",
                                  "225 8J 8Q 8K 6A"])
@pytest.mark.parametrize("split", [None, "random", 1])
def test_lanes_play_every_deal_as_one_game_at_a_time(deck, split):
    deck = Deck.parse(deck)
    for deals, min_cards, start in ((3000, 0, 0), (15, 0, 2 ** 63), (17, 120, 5), (2000, 10 ** 9, 2 ** 64 - 2000)):
        in_lanes, alone = both_ways(deals, 2026 + deals, min_cards, start, deck, 2, split)
        assert in_lanes == alone
        assert len(in_lanes[0]) == (deals if min_cards == 0 else len(alone[0]))


@needs_lanes
@pytest.mark.parametrize("deck", ["5 2J 1A", "6 2J 2Q", "8 2J 2Q 2K", "standard"])
@pytest.mark.parametrize("tricks", [1, 3, 40])
def test_games_handed_back_from_the_lanes_are_played_whole(deck, tricks):
    # These small decks loop often: every loop is found by the one-at-a-time
    # engine after the lanes hand its game back.
    in_lanes, alone = both_ways(5000, 7, 400, 0, Deck.parse(deck), 2, "random", tricks=tricks)
    assert in_lanes == alone
    if deck != "standard":
        assert any(outcome.status == "loop" for _, outcome in in_lanes[0])


@needs_lanes
def test_a_sample_over_several_chunks_keeps_its_hits_in_order_and_its_earliest_longest_game():
    # 65,536 deals a chunk: the lanes drain at its end and start again. Many
    # of these deals tie for the longest length, and lanes end games out of order.
    deck = Deck.parse("3 1J 1Q")
    in_lanes, alone = both_ways(2 * 65536 + 17, 1, 9, 0, deck, 2, "random", tricks=2)
    assert in_lanes == alone
    longest = in_lanes[1][1].cards
    tied = [index for index, (_, outcome) in enumerate(in_lanes[0]) if outcome.cards == longest]
    assert len(tied) > 69 and in_lanes[0][tied[0]] == in_lanes[1]


def test_set_lanes_says_what_was_on_and_refuses_what_it_cannot_take():
    try:
        assert _engine.set_lanes(True) is _engine.LANES_USABLE
        assert _engine.set_lanes(False) is _engine.LANES_USABLE
        assert _engine.set_lanes(True) is False
        for on, tricks in (("no", 1024), (1, 1024), (True, 0), (True, 2 ** 21), (True, 2.5)):
            with pytest.raises(ValueError):
                _engine.set_lanes(on, tricks)
        assert _engine.set_lanes(True) is _engine.LANES_USABLE     # unchanged by the refusals
    finally:
        _engine.set_lanes(True)


def test_beggar_lanes_0_plays_one_game_at_a_time():
    ask = [sys.executable, "-c", "from beggar import _engine; print(_engine.set_lanes(True))"]
    for value, on in (("0", False), ("1", _engine.LANES_USABLE)):
        printed = subprocess.run(ask, env={**os.environ, "BEGGAR_LANES": value}, capture_output=True, text=True,
                                 check=True).stdout
        assert printed.strip() == str(on)
