"""The engine contract (contract.Engine), held on every engine present through
the one harness (tests/engines.py): each engine provides the contract's calls
with their signatures, and each call gives what the compiled engine gives, or
raises what it raises, on arguments good and bad; seeded random deals of every
shape (tests/shapes.py) are played alike, and random two-player deals of every
shape give the same hits, longest game and lengths on the engines of the GPU
kernels. The features' own modules hold their calls through the same harness
(test_decks.py every table, test_census.py census blocks, test_climb.py the
climber, test_backward.py and test_elimination.py backward play).

The default run plays about 6 * 10^4 deals; `pytest -m fuzz` plays 10^7
(BEGGAR_FUZZ_DEALS changes that) in worker processes.
"""

import inspect
import itertools
import os
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from beggar import Deal, Rules, contract, elimination, engine, loops, reference
from beggar import _engine as compiled
from beggar.batch import row_outcome
from beggar.census import count
from beggar.climbing import ClimbRules
from beggar.decks import STANDARD, Deck
from beggar.gpu.engine import GpuRequestError

from engines import NAMES, agree, disagreements, each, fast, get, refuses, run
from helpers import CASELLA
from shapes import SHAPES, TWO_PLAYER_TABLES, deals


@pytest.mark.parametrize("name", contract.FUNCTIONS)
@pytest.mark.parametrize("engine_name", NAMES)
def test_every_engine_provides_the_contract(engine_name, name):
    module = engine.get(engine_name)        # lazy: a GPU engine touches no device until a call plays
    stated = list(inspect.signature(getattr(contract.Engine, name)).parameters.values())[1:]
    given = list(inspect.signature(getattr(module, name)).parameters.values())
    assert [(p.name, p.default) for p in given] == [(p.name, p.default) for p in stated]


def test_the_contract_names_every_shared_function():
    assert set(contract.FUNCTIONS) == {"play", "play_batch", "sample", "sample_best", "climb", "census",
                                     "predecessors", "backward", "backward_to"}


# ---------------------------------------------------------------- every call, good arguments and bad

_RNG = np.random.default_rng(3)
_ROWS = np.array([_RNG.permutation([0] * 36 + [1, 2, 3, 4] * 4) for _ in range(40)], np.uint8)
_STATE = (((0, 1, 0, 0), (0, 2, 0)), 0)
_THREE = (((0, 1, 0), (0, 0), (2, 0)), 1)
_ROAD = list(itertools.islice(reference.tricks(Deal.shuffled(2, 3)), 30))[-1]
_ROOT = (tuple(tuple(hand) for hand in _ROAD.hands), _ROAD.taker)     # a state 30 tricks into a game
_SEATED = elimination.seated(loops.of_deal(Deal.parse(CASELLA)).states, 3)   # the published loop, 3 seats

#: Each call's cases: arguments it plays, arguments a GPU engine refuses
#: (three players, anneal), and arguments every engine must refuse alike.
CASES = {
    "play": [(Deal.parse(CASELLA), Rules()), (Deal.parse(CASELLA), Rules(max_tricks=65)),
             (Deal.parse("J-/--/---"), Rules()), (Deal.parse(CASELLA), Rules(max_tricks=500, detect_loops=False)),
             (CASELLA, Rules()), (Deal.parse("J/---"), "no rules")],
    "play_batch": [(_ROWS, None, Rules()), (_ROWS, 19, Rules(max_cards=300)), (_ROWS[0], 26, Rules()),
                   (np.full((2, 4), 7, np.uint8), None, Rules()), (_ROWS, 52, Rules())],
    "sample": [(400, 3, 500, 0, STANDARD, 2, None), (300, 3, 100, 7, Deck.parse("half"), 2, "random"),
               (100, 3, 0, 0, STANDARD, 3, None), (10, -1, 0, 0, STANDARD, 2, None),
               (10, 1, 0, 0, STANDARD, 5, None), (10, 1, 0, 2 ** 64 - 5, STANDARD, 2, None)],
    "sample_best": [(400, 4, 900, 0, STANDARD, 2, None), (300, 4, 100, 0, Deck.parse("camicia"), 2, 7),
                    (100, 4, 0, 0, STANDARD, 4, None), (10, 1, -1, 0, STANDARD, 2, None),
                    (10, 1, 0, 0, STANDARD, 2, 52)],
    "climb": [(5, 2, 200, 300, ClimbRules(accept="late", patience=40), STANDARD, 2, None),
              (5, 2, 100, 300, ClimbRules(accept="anneal"), STANDARD, 2, None),
              (5, 2, 100, 300, ClimbRules(), STANDARD, 3, None), (1, 0, 10, 3000, None, STANDARD, 2, None)],
    "census": [(0, count("6 2J 2Q"), Deck.parse("6 2J 2Q"), 2, None, 3), (100, 500, Deck.parse("6 2J 1Q 1A"), 2, 4, 2),
               (0, 200, Deck.parse("6 2J 1Q 1A"), 3, None, 3), (count("6 2J 2Q"), 1, Deck.parse("6 2J 2Q"), 2, None, 3),
               (0, 10, Deck.parse("6 2J 2Q"), 2, None, -1)],
    "predecessors": [_STATE, _THREE, (((1, 0, 0), (0, 0)), 0), (_STATE[0], 2), (((0, 7), (0,)), 0)],
    "backward": [([_STATE], [None], 2000, 60), ([_ROOT], [None], 2000, 60), ([_STATE, (((0, 0, 1), (2, 0, 0, 0)), 1)], [None, None], 100, 60),
                 ([_STATE, _THREE], [None, None], 100, 60), ([_STATE], [], 10, 60),
                 ([_STATE], [None], -1, 60)],
    "backward_to": [([_STATE], [None], [4, 3], "smallest", 500, 60), (*_SEATED, [18, 17, 17], "balance", 400, 60),([_THREE], [None], [2, 2, 1], "breadth", 500, 60),
                    ([_STATE], [None], [3, 2, 2], "breadth", 500, 60),
                    ([_STATE], [None], [4, 3], "nearest", 500, 60), ([_STATE], [None], [4, 4], "balance", 500, 60)],
}


@pytest.mark.parametrize("function", contract.FUNCTIONS)
def test_every_call_agrees_on_every_engine_present(function):
    wrong, returned, raised = [], 0, 0
    for args in CASES[function]:
        made, lines = run(function, *args)
        wrong += lines
        returned += made["compiled"][0] == "returned"
        raised += made["compiled"][0] == "raised"
    assert not wrong, "\n".join(wrong)
    assert returned >= 2 and raised >= 1, (returned, raised)     # the cases play, and refuse


def test_the_harness_tells_a_disagreement_and_a_refusal_that_is_not_one(monkeypatch):
    # Planted: a reference that plays another game, then one that raises; a
    # gpu-host that refuses a two-player table it must play.
    deal = Deal.parse(CASELLA)
    assert disagreements("play", deal, Rules()) == []
    monkeypatch.setattr(reference, "play", lambda deal, rules=Rules(): compiled.play(deal, Rules(max_tricks=3)))
    [line] = disagreements("play", deal, Rules())
    assert line.startswith("play(Deal.parse(") and "compiled returned Outcome(" in line and \
        ", reference returned Outcome(" in line
    monkeypatch.setattr(reference, "play", lambda deal, rules=Rules(): compiled.play(deal, Rules(max_tricks=0)))
    [line] = disagreements("play", deal, Rules())
    assert "reference raised ValueError: max_tricks must be a whole number of at least 1" in line
    with pytest.raises(AssertionError, match="reference raised ValueError"):
        agree("play", deal, Rules())
    # An error every engine raises alike is raised again, as the call would.
    with pytest.raises(TypeError, match="rules"):
        agree("play", deal, "no rules", engines=["compiled", "gpu-host"])
    host = get("gpu-host")
    three, two = (10, 1, 0, 0, STANDARD, 3, None), (10, 1, 0, 0, STANDARD, 2, None)
    assert refuses("gpu-host", "sample", three) and not refuses("gpu-host", "sample", two)
    assert not refuses("reference", "sample", three)
    monkeypatch.setattr(host, "sample", lambda *args: (_ for _ in ()).throw(GpuRequestError("not here")))
    assert disagreements("sample", *three, engines=["gpu-host"]) == []
    [line] = disagreements("sample", *two, engines=["gpu-host"])
    assert "compiled returned [" in line and "gpu-host raised GpuRequestError: not here" in line


# ---------------------------------------------------------------- random deals of every shape

# Deals per shape in the default run: the 26/26 games are long, the small
# decks short, so the counts are weighted to keep these tests near 10 s of the quick tier.
PER_SHAPE = {"standard": 6000, "split": 6000, "small": 20000,
             "three": 6000, "four": 6000, "limits": 10000, "loops": 10000}


def mismatches(shape, seed, n):
    """The deals of one shape on which the engines disagree, as printable lines."""
    bad = []
    for deal, rules in deals(shape, seed, n):
        bad += run("play", deal, rules)[1]
    return bad


@pytest.mark.parametrize("shape", SHAPES)
def test_engines_agree(shape):
    bad = mismatches(shape, 0, PER_SHAPE[shape])
    assert not bad, f"{len(bad)} mismatches, first: {bad[:3]}"


def test_batch_agrees_with_play():
    rng = np.random.default_rng(5)
    decks = np.array([rng.permutation([0] * 36 + [1, 2, 3, 4] * 4) for _ in range(3000)], dtype=np.uint8)
    splits = rng.integers(1, 52, size=len(decks))
    for max_tricks in (None, 40):
        rows = agree("play_batch", decks, splits, Rules(max_tricks=max_tricks))
        assert row_outcome(rows[0]).cards == rows["cards"][0]


#: A threshold per deck that makes a few hundred hits of 40,000 deals.
MIN_CARDS = {"standard": 700, "camicia": 600, "half": 200}


@pytest.mark.parametrize("deck, split", TWO_PLAYER_TABLES)
def test_random_deals_of_every_shape_as_the_compiled_engine_plays_them(deck, split):
    # Hits, the longest game and every game's length, bit for bit, on every
    # engine but the reference (too slow for 40,000 deals); each engine's
    # outcomes name it.
    args = (40_000, 2026, MIN_CARDS[deck], 7 * 10 ** 9, Deck.parse(deck), 2, split)
    played = each("sample_best", *args, engines=fast())
    assert len(played["compiled"][0]) > 20
    for name, (hits, _, _) in played.items():
        assert {outcome.engine for _, outcome in hits} == {name}


@pytest.mark.fuzz
def test_fuzz_engines_agree():
    total = int(os.environ.get("BEGGAR_FUZZ_DEALS", 10 ** 7))
    block = 20000
    jobs = [(SHAPES[i % len(SHAPES)], 1 + i, block) for i in range(max(1, total // block))]
    with ProcessPoolExecutor() as pool:
        bad = [line for lines in pool.map(mismatches, *zip(*jobs)) for line in lines]
    assert not bad, f"{len(bad)} mismatches, first: {bad[:3]}"
