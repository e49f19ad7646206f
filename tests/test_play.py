"""The public API: play(), limits, loops, the engine switch, batches and sampling."""

import tracemalloc

import numpy as np
import pytest

import beggar
from beggar import Deal, Rules, play
from beggar import _engine as compiled
from beggar import reference
from beggar.batch import row_outcome
from beggar.decks import STANDARD
from beggar.shuffle import shuffled_deck
from engines import agree
from helpers import CASELLA, long_deal


def test_play_accepts_notation(engine):
    outcome = play("J23/4J5".replace("2", "-").replace("3", "-").replace("4", "-").replace("5", "-"),
                   engine=engine)
    assert (outcome.status, outcome.cards, outcome.tricks) == ("loop", 8, 3)
    assert outcome.loop_entry == (1, 2) and outcome.loop_period == (2, 6)
    assert outcome.counts == (4, 2) and outcome.winner is None


@pytest.mark.parametrize("max_tricks, status", [(65, "stopped"), (66, "loop"), (67, "loop")])
def test_loop_on_the_limit_trick_is_a_loop(engine, max_tricks, status):
    outcome = play(CASELLA, max_tricks=max_tricks, engine=engine)
    assert outcome.status == status
    assert outcome.tricks == min(max_tricks, 66)


def test_limit_in_cards_stops_after_the_trick(engine):
    outcome = play(CASELLA, max_cards=100, engine=engine)
    assert outcome.status == "stopped"
    assert outcome.cards >= 100
    shorter = play(CASELLA, max_tricks=outcome.tricks - 1, engine=engine)
    assert shorter.cards < 100
    most = max(outcome.counts)
    assert outcome.winner == (outcome.counts.index(most) if outcome.counts.count(most) == 1 else None)


def test_stopped_with_equal_hands_is_a_draw(engine):
    # Hand 2 pays the jack with one plain card: 2 cards each after one trick.
    outcome = play(Deal.parse("J/---"), max_tricks=1, engine=engine)
    assert (outcome.status, outcome.winner, outcome.counts) == ("stopped", None, (2, 2))
    ahead = play(Deal.parse("J/---"), max_tricks=2, engine=engine)
    assert (ahead.status, ahead.winner, ahead.counts) == ("stopped", 0, (3, 1))


def test_loop_detection_off_needs_a_limit(engine):
    outcome = play(CASELLA, max_tricks=500, engine=engine, detect_loops=False)
    assert outcome.status == "stopped" and outcome.tricks == 500
    with pytest.raises(ValueError, match="needs max_cards or max_tricks"):
        play(CASELLA, engine=engine, detect_loops=False)


@pytest.mark.parametrize("limits", [dict(max_cards=0), dict(max_tricks=-3), dict(max_cards=2.5)])
def test_bad_limits(engine, limits):
    with pytest.raises(ValueError, match="must be a whole number of at least 1"):
        play(CASELLA, engine=engine, **limits)


def test_environment_picks_the_engine(monkeypatch):
    monkeypatch.setenv("BEGGAR_ENGINE", "reference")
    assert play(CASELLA).engine == "reference"
    monkeypatch.setenv("BEGGAR_ENGINE", "compiled")
    assert play(CASELLA).engine == "compiled"
    monkeypatch.delenv("BEGGAR_ENGINE")
    assert play(CASELLA).engine == "compiled"
    with pytest.raises(beggar.EngineError, match="unknown engine 'fast'"):
        play(CASELLA, engine="fast")


def test_three_players_eliminate(engine):
    # Trick 1: J, paid by hand 2. Trick 2: - - - J; hand 2 has no card and is
    # out, hand 3 pays what he owed. Trick 3: hand 3 runs out; hand 1 is the
    # last one in and takes the pile.
    outcome = play(Deal.parse("J-/--/---"), engine=engine)
    assert (outcome.status, outcome.winner, outcome.cards, outcome.tricks, outcome.counts) == \
        ("finished", 0, 10, 3, (7, 0, 0))


def test_shuffle_is_the_same_in_both_engines():
    for index in range(300):
        assert compiled.shuffled_deck(99, index) == shuffled_deck(99, index)
    assert compiled.shuffled_deck(2 ** 64 - 1, 2 ** 64 - 1) == shuffled_deck(2 ** 64 - 1, 2 ** 64 - 1)


@pytest.mark.slow
def test_sample_returns_the_long_games_of_both_engines():
    hits = agree("sample", 30000, 4, 1200, 0, STANDARD, 2, None)
    assert hits and all(o.cards >= 1200 for _, o in hits)
    for deal, outcome in hits:
        assert play(deal, engine="reference") == outcome
    # The same deals, cut into two runs.
    first = beggar.sample(70000, seed=4, min_cards=1200)
    rest = beggar.sample(30000, seed=4, min_cards=1200, start=70000)
    assert beggar.sample(100000, seed=4, min_cards=1200) == first + rest
    assert beggar.sample(0, seed=4) == []


def test_batch_rows():
    deck = np.array([c for h in Deal.parse(CASELLA).hands for c in h], dtype=np.uint8)
    rows = beggar.play_batch(np.stack([deck, deck[::-1]]), split=26)
    assert row_outcome(rows[0]) == play(CASELLA)
    assert rows["entry_tricks"][0] == 4 and rows["period_cards"][0] == 440
    assert row_outcome(rows[1]) == play(Deal.from_codes((deck[::-1][:26], deck[::-1][26:])))
    with pytest.raises(ValueError, match="split must leave both hands"):
        beggar.play_batch(np.stack([deck]), split=52)
    with pytest.raises(ValueError, match="codes 0-4"):
        beggar.play_batch(np.full((1, 4), 7))
    assert len(beggar.play_batch(np.zeros((0, 52), dtype=np.uint8))) == 0
    with pytest.raises(ValueError, match="2-d array"):
        agree("play_batch", deck, 26, Rules())


@pytest.mark.slow
def test_the_reference_keeps_one_state_however_long_the_game():
    """Brent's method: the reference's memory is the deal's, not the game's
    (a dictionary of every state held 50 MB for this game, 24 GB and more for
    longer ones)."""
    deal = long_deal()
    expected = play(deal)
    tracemalloc.start()
    try:
        outcome = reference.play(deal)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert outcome == expected and outcome.tricks >= 30_000
    assert peak < 500_000, peak
    # Under a limit too, where a loop may still have to be found by trick T.
    limited = Rules(max_tricks=expected.tricks // 2)
    tracemalloc.start()
    try:
        assert reference.play(deal, limited) == compiled.play(deal, limited)
        assert tracemalloc.get_traced_memory()[1] < 500_000
    finally:
        tracemalloc.stop()
