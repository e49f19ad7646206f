"""The GPU kernels' results (gpu/engine.py, the kernels' launches made an
engine) on their own code on this machine's CPU (gpu-host), each the
compiled engine's bit for bit: random deals of every shape, decks that often
loop, perturbation walks, batches of given deals, hill climbing and census
blocks; what the GPU engines refuse, and the engine their outcomes name.
The contract's calls on every engine present are tests/engines.py's
(test_contract.py); the launches themselves are test_gpu_launch.py's."""

import random

import numpy as np
import pytest

from beggar import _engine, census, engine
from beggar.decks import Deck
from beggar.gpu.engine import CAP_TRICKS, GpuRequestError, RangeEngine
from beggar.gpu.host import HostBackend
from beggar.gpu.several import Several

from engines import climb_walks
from shapes import TWO_PLAYER_TABLES, casella_state

HOST = engine.get("gpu-host")


def both(call, *args):
    """The same call on gpu-host and on the compiled engine."""
    return getattr(HOST, call)(*args), getattr(_engine, call)(*args)


@pytest.mark.parametrize("deck, split, min_cards", [("standard", None, 1500), ("camicia", None, 1200),
                                                    ("half", None, 400), ("standard", "random", 1500)])
@pytest.mark.slow
def test_a_million_random_deals_of_every_shape_as_the_compiled_engine_plays_them(deck, split, min_cards):
    # Hits, longest game and every game's length, bit for bit.
    gpu, compiled = both("sample_best", 10 ** 6, 2026, min_cards, 7 * 10 ** 9, Deck.parse(deck), 2, split)
    assert gpu == compiled
    assert len(gpu[0]) > 100 and gpu[2].games == 10 ** 6


@pytest.mark.slow
@pytest.mark.parametrize("deck, split", TWO_PLAYER_TABLES)
def test_every_game_of_a_sample_is_the_compiled_engines_game(deck, split):
    gpu, compiled = both("sample_best", 20_000, 11, 0, 0, Deck.parse(deck), 2, split)
    assert [hit[1] for hit in gpu[0]] == [hit[1] for hit in compiled[0]]
    assert gpu == compiled


@pytest.mark.slow
@pytest.mark.parametrize("deck", ["16 2J", "8 2J 1Q", "20 3J 1Q", "14 2J 1K"])
@pytest.mark.parametrize("split", [None, "random"])
def test_decks_that_often_loop_give_the_compiled_engines_loops(deck, split):
    # Loops are located by the compiled engine; the kernels only see them repeat.
    gpu, compiled = both("sample_best", 30_000, 5, 40, 0, Deck.parse(deck), 2, split)
    assert gpu == compiled
    assert any(outcome.status == "loop" for _, outcome in gpu[0])


# ---------------------------------------------------------------- given deals: perturbation, batches

def test_a_perturbation_walk_on_the_gpu_kernels_finds_the_compiled_engines_loops():
    # Casella's neighbour, found by try 150,000 of walk 0 of seed 6.
    compiled = engine.perturb(casella_state(), "standard", 6, 0, 150_000)
    assert engine.perturb(casella_state(), "standard", 6, 0, 150_000, engine="gpu-host") == compiled
    assert len(compiled.loops) == 1 and compiled.tries == 150_000


def test_the_kernels_hand_back_only_the_loops_a_walk_does_not_know():
    # About 1 try in 100 of a walk from Casella's loop falls back into it:
    # the device knows that loop by its cycle hash, as the walk does, and
    # hands back only the loop that is new (and whatever reached the cap).
    from beggar import _loops
    host = HostBackend(launch=1 << 16)
    handed = []

    def launcher(pool, n_pool, total, walk_seed, first, most, known):
        count = min(most, 1 << 16)
        tried, n = host.perturb(pool, n_pool, total, 32, 2, 3, walk_seed, known, first, count, CAP_TRICKS)
        assert n == len(tried)
        handed.extend(tried)
        return count, sorted(first + int(offset) for offset in tried["offset"])
    walked = _loops.perturb(casella_state(), "standard", 6, 0, 150_000, launcher=launcher)
    assert walked == _loops.perturb(casella_state(), "standard", 6, 0, 150_000) and len(walked.loops) == 1
    # Each new cycle once (its earliest try), and no game reached the cap.
    assert len(handed) == len({int(hit["cycle"]) for hit in handed}) >= 1 and all(hit["cycle"] for hit in handed)


def test_a_walk_whose_tries_are_launched_in_any_parts_finds_the_same_loops():
    # A launcher that plays nothing and hands back every try, in parts that
    # cut across the rounds, and the kernels' launches of 5,000 tries whose
    # hit buffers of 4 overflow: the rounds and the pool are the walk's own.
    from beggar import _loops
    start = _loops.grow("18 3J", 1, 0, 100_000, start_courts=0).loops
    compiled = _loops.perturb(start, "18 3J", 3, 1, 200_000)
    sizes = iter([5_000, 11_385, 40_000, 1, 16_384] * 1000)

    def every_try(pool, n_pool, total, walk_seed, first, most, known):
        played = min(most, next(sizes))
        return played, list(range(first, first + played))
    assert _loops.perturb(start, "18 3J", 3, 1, 200_000, launcher=every_try) == compiled
    small = RangeEngine("gpu-host", lambda: HostBackend(launch=5_000, capacity=4))
    assert small.perturb(start, "18 3J", 3, 1, 200_000) == compiled
    assert len(compiled.loops) >= 2


def test_a_walk_from_a_pool_full_of_the_states_given_takes_whole_launches_and_finds_the_same_loops():
    # The shipped loops fill the pool with their states: a new loop changes
    # no round's pool, so a launch's tries are all taken across its rounds,
    # and each new cycle comes back once, by its earliest try.
    from beggar import _loops
    from beggar.cycle import key_hands
    from helpers import known_loops
    states = [(tuple(key_hands(key)), 0) for key in known_loops("standard")]
    compiled = _loops.perturb(states, "standard", 5, 3, 300_000, changes=3, reach=6)
    host = HostBackend(launch=1 << 17)
    launches, handed = [], []

    def launcher(pool, n_pool, total, walk_seed, first, most, known):
        count = min(most, 1 << 17)
        tried, n = host.perturb(pool, n_pool, total, 32, 3, 6, walk_seed, known, first, count, CAP_TRICKS)
        launches.append(first)
        handed.extend(int(cycle) for cycle in tried["cycle"])
        return count, sorted(first + int(offset) for offset in tried["offset"])
    assert _loops.perturb(states, "standard", 5, 3, 300_000, changes=3, reach=6, launcher=launcher) == compiled
    assert launches == [0, 1 << 17, 2 << 17] and len(compiled.loops) >= 10
    assert len(handed) == len(set(handed)) >= len(compiled.loops)


def test_batches_of_given_deals_as_the_compiled_engine_plays_them():
    from beggar.rules import Rules
    rng = np.random.default_rng(5)
    decks = np.array([rng.permutation([0] * 36 + [1, 2, 3, 4] * 4) for _ in range(3000)], np.uint8)
    small = np.array([rng.permutation([0] * 16 + [1, 1]) for _ in range(3000)], np.uint8)
    splits = rng.integers(1, 18, 3000)
    for rows, split in ((decks, None), (decks, 20), (small, splits)):
        for rules in (Rules(), Rules(max_cards=400), Rules(max_tricks=30), Rules(max_tricks=2000, detect_loops=False)):
            played = HOST.play_batch(rows, split, rules)
            assert (played == _engine.play_batch(rows, split, rules)).all()
    assert (HOST.play_batch(small, splits)["status"] == 1).sum() > 100      # loops, played again
    assert len(HOST.play_batch(np.zeros((0, 52), np.uint8))) == 0


# ---------------------------------------------------------------- hill climbing

@pytest.mark.parametrize("accept, fitness, steps", [
    ("equal", "cards", 400),
    pytest.param("strict", "cards", 1500, marks=pytest.mark.slow),
    pytest.param("late", "tricks", 1500, marks=pytest.mark.slow)])
def test_hill_climbing_on_the_gpu_kernels_takes_the_compiled_engines_walks(accept, fitness, steps):
    # The same hits, best game, restarts and lengths, walk for walk: on a
    # deck that loops often (its loops' steps the host's) and at every split.
    from beggar.climbing import ClimbRules
    rules = ClimbRules(accept=accept, fitness=fitness, patience=40, history=30, swap_percent=60)
    climber = RangeEngine("gpu-host", lambda: HostBackend(launch=1 << 12, climb_walks=5))
    for deck, split, min_cards in (("standard", None, 500), ("16 2J", "random", 30), ("camicia", 17, 400)):
        on_kernels, compiled = climb_walks(climber, rules, deck, split, min_cards, walks=6, steps=steps)
        assert on_kernels == compiled
        assert sum(len(walk.hits) for walk in compiled) > 20


def test_a_climb_whose_hits_outgrow_the_buffer_or_spans_devices_is_the_compiled_engines():
    # A walk whose long games found no room among a launch's hits is played
    # again whole; walks cut between two devices are put together.
    from beggar.climbing import ClimbRules
    rules = ClimbRules(accept="late", patience=30)
    tiny = RangeEngine("gpu-host", lambda: HostBackend(launch=2000, capacity=4, climb_walks=6))
    pair = RangeEngine("gpu-host", lambda: Several([HostBackend(climb_walks=3), HostBackend(climb_walks=4)]))
    for climber in (tiny, pair):
        on_kernels, compiled = climb_walks(climber, rules, "standard", None, 400, walks=8)
        assert on_kernels == compiled


# ---------------------------------------------------------------- census blocks

def test_a_standard_census_block_across_a_change_of_its_64_bit_suffix():
    # The device unranks a suffix of fewer than 2^63 arrangements: a block
    # that runs past the end of one is cut there, the prefix changed.
    deck = Deck.parse("standard")
    cards = census.unrank(random.Random(4).randrange(census.count(deck)), deck)
    cards[-45:] = sorted(cards[-45:], reverse=True)
    first = census.rank(cards) - 500
    gpu, compiled = both("census", first, 1000, deck, 2, None, 5)
    assert gpu == compiled


# ---------------------------------------------------------------- what the engines refuse, and the engine they name

def test_three_players_a_deck_too_large_and_climbing_by_anneal_are_clear_refusals():
    from beggar.climbing import ClimbRules
    with pytest.raises(GpuRequestError, match="two-player deals; 3 players play on the compiled engine"):
        HOST.sample(10, players=3)
    with pytest.raises(GpuRequestError, match="does not climb by anneal"):
        HOST.climb(1, 0, 10, 3000, ClimbRules(accept="anneal"))
    with pytest.raises(TypeError, match="ClimbRules"):
        HOST.climb(1, 0, 10, 3000, None)
    with pytest.raises(GpuRequestError, match="3 players"):
        HOST.census(0, 10, Deck.parse("6 1J 1Q 1K"), 3)


def test_outcomes_say_which_engine_played_them():
    hits, best, _ = HOST.sample_best(5000, 1, 900)
    assert {outcome.engine for _, outcome in hits} == {"gpu-host"} and best[1].engine == "gpu-host"
