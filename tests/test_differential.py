"""The two engines agree, outcome for outcome, on seeded random deals of every shape.

The default run plays a little over 10^5 deals; `pytest -m fuzz` plays 10^7
(BEGGAR_FUZZ_DEALS changes that) in worker processes.
"""

import os
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from beggar import Rules, reference
from beggar import _engine as compiled
from beggar.batch import row_outcome
from shapes import SHAPES, deals

# Deals per shape in the default run: the 26/26 games are long, the small
# decks short, so the counts are weighted to keep the whole run near a minute.
PER_SHAPE = {"standard": 12000, "split": 12000, "small": 40000,
             "three": 12000, "four": 12000, "limits": 20000, "loops": 20000}


def mismatches(shape, seed, n):
    """The deals of one shape on which the engines disagree, as printable lines.
    Two-player games are also played on the compiled card-by-card path."""
    bad = []
    for deal, rules in deals(shape, seed, n):
        expected = reference.play(deal, rules)
        for by_court in (True, False):
            got = compiled._play(deal, rules, by_court)
            if got != expected:
                bad.append(f"{deal} {rules}: reference {expected}, compiled {got} (by_court={by_court})")
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
        rows = compiled.play_batch(decks, splits, Rules(max_tricks=max_tricks))
        expected = reference.play_batch(decks, splits, Rules(max_tricks=max_tricks))
        assert np.array_equal(rows, expected)
        assert row_outcome(rows[0]).cards == expected["cards"][0]


@pytest.mark.fuzz
def test_fuzz_engines_agree():
    total = int(os.environ.get("BEGGAR_FUZZ_DEALS", 10 ** 7))
    block = 20000
    jobs = [(SHAPES[i % len(SHAPES)], 1 + i, block) for i in range(max(1, total // block))]
    with ProcessPoolExecutor() as pool:
        bad = [line for lines in pool.map(mismatches, *zip(*jobs)) for line in lines]
    assert not bad, f"{len(bad)} mismatches, first: {bad[:3]}"
