"""The GPU engine: its kernels' own code on the CPU (gpu-host) held to the
compiled engine, the NVRTC compile without a device, the command's word on
where the machine stands; and, where a GPU is, the device itself (-m gpu)."""

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from beggar import _engine, _gpu_host, census, engine, lengths
from beggar.deal import Deal
from beggar.decks import Deck
from beggar.engine import EngineFault
from beggar.census import _arrangements
from beggar.gpu.engine import (CAP_TRICKS, CLIMB_HIT, HIT, SUFFIX_LIMIT, GpuRequestError, RangeEngine, _counts, _Counted,
                               block_dtype, ring_of, shape_dtype, steps_between)
from beggar.gpu.host import HostBackend
from beggar.gpu.launch import BUFFER, KERNELS, Memory
from beggar.gpu.several import Several
from beggar.gpu.sizing import LaunchSizes

from helpers import bad_input, beggar, job_file, job_id, kept, one_line, start, wait_for_chunks

HOST = engine.get("gpu-host")
HOST_LENGTHS = range(lengths.BINS)

#: Every shape of random two-player deal: (deck, split).
SHAPES = [("standard", None), ("camicia", None), ("half", None), ("standard", "random"),
          ("camicia", "random"), ("standard", 19)]


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
@pytest.mark.parametrize("deck, split", SHAPES)
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


@pytest.mark.slow
def test_a_hit_buffer_that_overflows_plays_the_launch_again_in_parts():
    small = RangeEngine("gpu-host", lambda: HostBackend(launch=1 << 14, capacity=64))
    gpu = small.sample_best(50_000, 3, 300, 0, Deck.parse("standard"), 2, None)
    assert gpu == _engine.sample_best(50_000, 3, 300, 0, Deck.parse("standard"), 2, None)
    assert len(gpu[0]) > 1000
    block = small.census(10 ** 6, 40_000, Deck.parse("half"), 2, None, 10)
    assert block == _engine.census(10 ** 6, 40_000, Deck.parse("half"), 2, None, 10)
    # After an overflow the launches of that kernel and deck are smaller, so
    # that the next ones fit; other decks keep theirs.
    assert small.sizes.size(("sample", Deck.parse("standard"), None)) < 1 << 14
    assert small.sizes.size(("sample", Deck.parse("half"), None)) == 1 << 14


# ---------------------------------------------------------------- launch sizes

def test_a_launch_size_grows_by_time_from_its_second_full_launch():
    sizes = LaunchSizes(start=1024, largest=8192, capacity=1000, seconds=0.5)
    sizes.record("a", 1024, 0.01, 0)           # the first launch: it may hold the compile
    assert sizes.size("a") == 1024
    sizes.record("a", 1024, 0.01, 0)
    assert sizes.size("a") == 2048
    sizes.record("a", 100, 0.001, 0)           # the last of a call: not full, not timed
    assert sizes.size("a") == 2048
    for _ in range(5):
        sizes.record("a", sizes.size("a"), 0.01, 0)
    assert sizes.size("a") == 8192             # no more than the largest
    sizes.record("a", 8192, 3.0, 0)            # over twice the seconds aimed at
    assert sizes.size("a") == 4096
    sizes.record("a", 4096, 0.4, 0)            # within them: kept
    assert sizes.size("a") == 4096
    assert sizes.size("b") == 1024             # every key its own size


def test_a_launch_size_shrinks_at_once_after_an_overflow_and_grows_only_while_its_hits_would_fit():
    sizes = LaunchSizes(start=1 << 20, largest=1 << 30, capacity=1 << 16, seconds=0.5)
    sizes.record("dense", 1 << 20, 0.01, 1 << 19)      # 8 times the buffer: about half of it next time
    assert sizes.size("dense") == 1 << 16
    assert sizes.size("sparse") == 1 << 20
    sizes.record("dense", 1 << 16, 0.001, 1 << 15)     # the first timed launch of the key
    sizes.record("dense", 1 << 16, 0.001, 1 << 15)     # fast, but twice as many hits would overflow
    assert sizes.size("dense") == 1 << 16
    sizes.record("dense", 1 << 16, 0.001, 1 << 13)
    assert sizes.size("dense") == 1 << 17
    sizes.record("dense", 100, 0.0, 10 ** 6)           # even a short launch that overflows
    assert sizes.size("dense") == 2
    untimed = LaunchSizes(start=1 << 14, largest=1 << 14, capacity=64)
    untimed.record("a", 1 << 14, 100.0, 0)
    untimed.record("a", 1 << 14, 100.0, 0)
    assert untimed.size("a") == 1 << 14                # gpu-host: never sized by time
    untimed.record("a", 1 << 14, 0.0, 640)
    assert untimed.size("a") == 512
    untimed.record("a", 512, 100.0, 17)
    assert untimed.size("a") == 512                    # hits that would not fit twice over
    untimed.record("a", 512, 100.0, 2)
    assert untimed.size("a") == 1024                   # sparse again: grown back, whatever the time


class _FailingBackend(HostBackend):
    """gpu-host whose first launch fails as a kernel's fault would on a GPU
    (no device is lent to the suite): the engine must not keep it."""

    made = []

    def __init__(self):
        super().__init__()
        self.made.append(self)
        self.closed = False
        self.failed = len(self.made) == 1

    def sample(self, *arguments):
        if self.failed:
            raise EngineFault("CUDA the kernel bg_sample failed: CUDA_ERROR_ILLEGAL_ADDRESS")
        return super().sample(*arguments)

    def close(self):
        self.closed = True


def test_a_backend_whose_launch_failed_is_closed_and_the_next_call_makes_a_new_one():
    failing = RangeEngine("gpu-host", _FailingBackend)
    with pytest.raises(EngineFault, match="ILLEGAL_ADDRESS"):
        failing.sample_best(1000, 3, 300)
    assert failing._backend is None and _FailingBackend.made[0].closed
    assert failing.sample_best(20_000, 3, 300) == _engine.sample_best(20_000, 3, 300)
    assert len(_FailingBackend.made) == 2 and not _FailingBackend.made[1].closed


def test_several_devices_play_as_one_and_keep_one_devices_games():
    # Three gpu-host backends (each a thread of this machine) as three GPUs:
    # each launch is cut between them by their pace, and put together.
    three = RangeEngine("gpu-host", lambda: Several([HostBackend(capacity=64), HostBackend(), HostBackend()]))
    for deck, split, min_cards in (("standard", None, 700), ("16 2J", "random", 40)):
        args = (30_000, 4, min_cards, 3 * 10 ** 9, Deck.parse(deck), 2, split)
        assert three.sample_best(*args) == _engine.sample_best(*args)
    for deck, split, first, deals in (("10 2J 2Q", 7, 0, None), ("half", None, 10 ** 8, 30_000)):
        deck = Deck.parse(deck)
        deals = deals or census.count(deck)
        assert three.census(first, deals, deck, 2, split, 10) == _engine.census(first, deals, deck, 2, split, 10)


def test_a_launch_cut_by_pace_gives_each_device_its_share():
    several = Several([HostBackend(), HostBackend()])
    assert several._cut(1000) == [(0, 500), (500, 500)]
    several.paces = [3e6, 1e6]
    assert several._cut(1000) == [(0, 750), (750, 250)]
    several.paces = [None, 2e6]          # a device not yet timed takes the others' mean
    assert several._cut(10) == [(0, 5), (5, 5)]
    # Each part long enough to tell its device's pace is timed, and the
    # parts are played at once, each on its own device.
    from beggar.gpu.several import TIMED_DEALS
    fresh = Several([HostBackend(), HostBackend()])
    parts = fresh._each(lambda backend, offset, deals: (backend, offset, deals), 2 * TIMED_DEALS)
    assert parts == [(0, TIMED_DEALS, (fresh.backends[0], 0, TIMED_DEALS)),
                     (TIMED_DEALS, TIMED_DEALS, (fresh.backends[1], TIMED_DEALS, TIMED_DEALS))]
    assert all(fresh.paces)


# ---------------------------------------------------------------- given deals: perturbation, batches

CASELLA_DEAL = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"


def casella_state():
    deal = Deal.parse(CASELLA_DEAL)
    return [((tuple(deal.hands[0]), tuple(deal.hands[1])), 0)]


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

def climb_walks(climber, rules, deck, split, min_cards, walks=12, steps=1500, seed=7):
    """Walks 0 .. walks - 1 of `seed` on `climber` and on the compiled engine."""
    deck = Deck.parse(deck)
    return ([climber.climb(seed, index, steps, min_cards, rules, deck, 2, split) for index in range(walks)],
            [_engine.climb(seed, index, steps, min_cards, rules, deck, 2, split) for index in range(walks)])


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


#: Census blocks of every kind: (deck, split, first rank, deals; None: every one).
CENSUS_BLOCKS = [
    ("12 2J 2Q 2K", None, 0, None),           # a whole census, with its 15 loop deals
    ("10 2J 2Q", 7, 0, None),
    ("9 1J 1Q 1K 1A", 5, 0, None),
    ("half", None, 1_234_567_890, 200_000),
    ("camicia", None, 10 ** 13, 100_000),
]


@pytest.mark.parametrize("deck, split, first, deals", CENSUS_BLOCKS)
def test_census_blocks_as_the_compiled_engine_counts_them(deck, split, first, deals):
    deck = Deck.parse(deck)
    deals = deals or census.count(deck)
    gpu, compiled = both("census", first, deals, deck, 2, split, 10)
    assert gpu == compiled
    assert gpu.statuses["finished"] + gpu.statuses["loop"] == deals


def test_a_standard_census_block_across_a_change_of_its_64_bit_suffix():
    # The device unranks a suffix of fewer than 2^63 arrangements: a block
    # that runs past the end of one is cut there, the prefix changed.
    deck = Deck.parse("standard")
    cards = census.unrank(random.Random(4).randrange(census.count(deck)), deck)
    cards[-45:] = sorted(cards[-45:], reverse=True)
    first = census.rank(cards) - 500
    gpu, compiled = both("census", first, 1000, deck, 2, None, 5)
    assert gpu == compiled


def test_the_structs_are_laid_out_alike_in_c_and_numpy():
    from beggar.gpu.engine import CLIMB_RULES, walk_dtype
    assert _gpu_host.SIZES == {"shape": shape_dtype(_gpu_host.TOTAL).itemsize,
                               "block": block_dtype(_gpu_host.TOTAL).itemsize, "hit": HIT.itemsize,
                               "climb rules": CLIMB_RULES.itemsize, "walk": walk_dtype(_gpu_host.TOTAL).itemsize,
                               "climb hit": CLIMB_HIT.itemsize}


def test_the_gpu_engines_keep_the_engine_contract():
    import inspect
    for name in engine.FUNCTIONS:
        stated = list(inspect.signature(getattr(engine.Engine, name)).parameters.values())[1:]
        given = list(inspect.signature(getattr(HOST, name)).parameters.values())
        assert [(p.name, p.default) for p in given] == [(p.name, p.default) for p in stated]


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


# ---------------------------------------------------------------- the concurrency harness

def build_harness(folder, race=0, sanitize=False, queue_start=0):
    """tests/gpu_harness.c built with kernel.cu as installed (a race planted
    with `race`; under ThreadSanitizer with `sanitize`; the blocks' queue
    counters starting at `queue_start`): the program's path; a skip where
    there is no C compiler (or no ThreadSanitizer)."""
    compiler = shutil.which((sysconfig.get_config_var("CC") or "cc").split()[0]) or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler to build the concurrency harness with")
    program = folder / f"gpu_harness-{race}{'-tsan' if sanitize else ''}-{queue_start}"
    kernels = resources.files("beggar.gpu")
    flags = ["-O1", "-g", "-fsanitize=thread"] if sanitize else ["-O2"]
    built = subprocess.run([compiler, *flags, "-pthread", f"-DBG_RACE={race}", f"-DBG_QUEUE_START={queue_start}u",
                            f"-I{kernels}",
                            str(Path(__file__).with_name("gpu_harness.c")), "-o", str(program)],
                           capture_output=True, text=True)
    if sanitize and built.returncode != 0:
        pytest.skip(f"{compiler} cannot build with ThreadSanitizer: {built.stderr.strip()[:200]}")
    assert built.returncode == 0, built.stderr
    return program


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    return build_harness(tmp_path_factory.mktemp("harness"))


class HarnessBackend(Memory):
    """gpu/engine.py's backend on the concurrency harness: each launch is
    `blocks` forked blocks of `threads` threads, their shared memory filled
    with new garbage; its memory this process's, the kernel's arguments sent
    to the harness and its buffers read back after the launch."""

    RING = _gpu_host.RING
    TOTAL = _gpu_host.TOTAL
    HISTOGRAM = _gpu_host.HISTOGRAM
    SECONDS = None
    gpu = False

    def __init__(self, program, blocks=3, threads=32, launch=1 << 14, capacity=64, grab=16, climb_walks=16):
        self._memory = {}
        self.program = program
        self.blocks = blocks
        self.threads = threads
        self.LAUNCH = self.LARGEST = launch
        self.CAPACITY = capacity
        self.CLIMB_WALKS = climb_walks
        self.grab = grab
        self.launches = 0

    def census_grab(self, count):
        return self.grab

    def walk_cards(self, total):
        return self.TOTAL

    def _launch(self, kernel, variant, arguments):
        self.launches += 1
        sent = [value.tobytes() if how is BUFFER else (int(value) % 2 ** 64).to_bytes(8, "little")
                for value, how in arguments]
        folder = Path(self.program).parent
        into, out = folder / f"in-{os.getpid()}", folder / f"out-{os.getpid()}"
        into.write_bytes(b"".join(len(data).to_bytes(8, "little") + data for data in sent))
        ran = subprocess.run([str(self.program), kernel, str(self.blocks), str(self.threads), str(self.launches),
                              str(into), str(out)], capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0 and "ThreadSanitizer" not in ran.stderr, ran.stderr
        back, at = out.read_bytes(), 0
        for (value, how), data in zip(arguments, sent):
            if how is BUFFER:
                value[:] = np.frombuffer(back, np.uint8, len(data), at)
            at += len(data)
        assert at == len(back)
        given = {name: value for (name, _), (value, _) in zip(KERNELS[kernel], arguments)}
        counted = given["count"] if "count" in given else given["n_walks"]
        assert int(given["next"].view(np.uint64)[0]) >= counted       # every deal (or walk) was taken


def _shape(deck, split):
    """A bg_shape of `deck` and `split`, as the engine fills it."""
    shape = np.zeros(1, shape_dtype(_gpu_host.TOTAL))
    shape["total"], shape["n_courts"], shape["ring"] = deck.total, len(deck.courts), ring_of(deck)
    shape["steps"] = steps_between(deck, split)
    shape["split"] = 0 if split is None else -1 if split == "random" else split
    shape["courts"][0, :len(deck.courts)] = deck.courts
    return shape.view(np.uint8)


def _census_block(deck, split, first):
    """A bg_block of `deck` and `split` from census rank `first`, as the
    engine fills it (the longest suffix below 2^63 arrangements): (block,
    the arrangements left in its suffix)."""
    counted = _Counted(RangeEngine("gpu-host", HostBackend), deck, split,
                       census.check_block(first, 1, deck, 2, split, 10)[3], 10)
    cards = census.unrank(first, deck)
    suffix = 1
    while suffix < deck.total and _arrangements(_counts(cards[-suffix - 1:])) < SUFFIX_LIMIT:
        suffix += 1
    block = counted.block
    block["suffix"] = suffix
    block["suffix_arrangements"] = arrangements = _arrangements(_counts(cards[-suffix:]))
    block["suffix_first"] = census.rank(cards[-suffix:])
    block["suffix_counts"][0] = _counts(cards[-suffix:])
    block["prefix"][0, :deck.total - suffix] = cards[:-suffix]
    return block.view(np.uint8), arrangements - int(block["suffix_first"][0])


def _launches(backends, deck, split, count, min_cards):
    """What one sample launch and one census launch of `deck` give on each of
    `backends`: the counts, and the hits in order of offset unless they
    overflowed the buffer (which of them a full buffer keeps depends on the
    timing)."""
    deck = Deck.parse(deck)
    # A census deals every arrangement once: its split is even or a number.
    block, left = _census_block(deck, None if split == "random" else split, census.count(deck) // 3)
    given = []
    for backend in backends:
        lengths, best = np.zeros(len(HOST_LENGTHS), np.uint64), np.zeros(1, np.uint64)
        hits, n_hits = backend.sample(_shape(deck, split), 8, 10 ** 9, count, min_cards, CAP_TRICKS, lengths, best)
        cards, tricks = np.zeros(_gpu_host.HISTOGRAM, np.uint64), np.zeros(_gpu_host.HISTOGRAM, np.uint64)
        census_hits, census_n = backend.census(block, min(count, left), min_cards, CAP_TRICKS, cards, tricks)
        given.append({"lengths": lengths.tolist(), "best": int(best[0]), "n_hits": n_hits,
                      "hits": np.sort(hits[:n_hits], order="offset").tolist() if n_hits <= len(hits) else None,
                      "cards": cards.tolist(), "tricks": tricks.tolist(), "census n_hits": census_n,
                      "census hits": np.sort(census_hits[:census_n], order="offset").tolist()
                      if census_n <= len(census_hits) else None})
    return given


@pytest.mark.slow
@pytest.mark.parametrize("deck, split", [*SHAPES, ("16 2J", "random"), ("10 2J 2Q", None)])
def test_the_kernels_on_threads_of_several_blocks_launch_as_the_single_thread_build(harness, deck, split):
    # Garbage in shared memory, barriers, atomics: each launch as one thread
    # plays it, with a buffer that overflows and with one that does not.
    for capacity, min_cards in ((16, 150), (1 << 16, 600)):
        for blocks, threads in ((3, 32), (2, 8)):
            on_threads, single = _launches([HarnessBackend(harness, blocks, threads, capacity=capacity),
                                            HostBackend(capacity=capacity)], deck, split, 6000, min_cards)
            assert on_threads == single
            if capacity == 16:
                assert on_threads["n_hits"] > 0 and on_threads["census n_hits"] > 0


@pytest.mark.slow
def test_perturbation_walks_and_batches_on_threads_of_several_blocks_as_the_compiled_engine_plays_them(harness):
    from beggar import _loops
    threaded = RangeEngine("gpu-host", lambda: HarnessBackend(harness, 3, 32, launch=20_000, capacity=4))
    assert threaded.perturb(casella_state(), "standard", 6, 0, 150_000) == \
        engine.perturb(casella_state(), "standard", 6, 0, 150_000)
    start = _loops.grow("18 3J", 1, 0, 100_000, start_courts=0).loops
    assert threaded.perturb(start, "18 3J", 3, 1, 100_000) == _loops.perturb(start, "18 3J", 3, 1, 100_000)
    rng = np.random.default_rng(9)
    rows = np.array([rng.permutation([0] * 16 + [1, 1]) for _ in range(8000)], np.uint8)
    splits = rng.integers(1, 18, 8000)
    assert (threaded.play_batch(rows, splits) == _engine.play_batch(rows, splits)).all()


@pytest.mark.slow
def test_hill_climbing_on_threads_of_several_blocks_takes_the_compiled_engines_walks(harness):
    # Threads take walks from one counter, several launches a walk, in
    # blocks whose shared tables start as garbage; a buffer of 6 hits
    # overflows, and the walks that lost a hit are played again whole.
    from beggar.climbing import ClimbRules
    rules = ClimbRules(accept="late", patience=30, history=20, swap_percent=60)
    for capacity in (6, 1 << 12):
        climber = RangeEngine("gpu-host", lambda: HarnessBackend(harness, 3, 8, launch=3000, capacity=capacity,
                                                                 climb_walks=24))
        for deck, split, min_cards in (("standard", None, 450), ("16 2J", "random", 30)):
            on_threads, compiled = climb_walks(climber, rules, deck, split, min_cards, walks=24, steps=500)
            assert on_threads == compiled
            assert sum(len(walk.hits) for walk in compiled) > 24
        assert climber.backend.launches > 10


@pytest.mark.slow
def test_the_engine_on_the_concurrency_harness_is_the_compiled_engine(harness):
    threaded = RangeEngine("gpu-host", lambda: HarnessBackend(harness, capacity=64))
    for deck, split in (("standard", None), ("camicia", "random"), ("16 2J", "random")):
        args = (30_000, 5, 400, 0, Deck.parse(deck), 2, split)
        assert threaded.sample_best(*args) == _engine.sample_best(*args)
    for deck, split, first, deals in (("10 2J 2Q", 7, 0, None), ("half", None, 10 ** 6, 40_000)):
        deck = Deck.parse(deck)
        deals = deals or census.count(deck)
        assert threaded.census(first, deals, deck, 2, split, 10) == _engine.census(first, deals, deck, 2, split, 10)
    assert threaded.backend.launches > 50        # the buffer overflowed: launches played again in parts


@pytest.mark.slow
def test_a_blocks_queue_counters_never_run_past_32_bits(tmp_path):
    # Counters that start 300 deals below 2^32 pass it within a launch of
    # a few thousand deals a block: the barrier brings both ends of the
    # queue down by whole turns, so they never do, and the launch is the
    # single-thread build's.
    near = build_harness(tmp_path, queue_start=2 ** 32 - 300)
    for deck, split in (("standard", None), ("camicia", "random")):
        on_threads, single = _launches([HarnessBackend(near, 2, 32, capacity=1 << 16),
                                        HostBackend(capacity=1 << 16)], deck, split, 20_000, 600)
        assert on_threads == single


@pytest.mark.slow
@pytest.mark.parametrize("race", [1, 2])
def test_the_concurrency_harness_catches_a_planted_race(tmp_path, race):
    # 1: the 64-bit atomic additions made plain reads and writes; 2: the
    # barrier after each play phase dropped.
    racy = build_harness(tmp_path, race)
    on_threads, single = _launches([HarnessBackend(racy, 3, 32, capacity=1 << 16), HostBackend(capacity=1 << 16)],
                                   "standard", None, 20_000, 600)
    assert on_threads != single


@pytest.mark.slow
def test_the_concurrency_harness_under_threadsanitizer(tmp_path):
    # No report on the kernels as they are; the planted race is reported.
    from beggar.climbing import ClimbRules
    program = build_harness(tmp_path, sanitize=True)
    clean = HarnessBackend(program, 2, 8, capacity=16)
    on_threads, single = _launches([clean, HostBackend(capacity=16)], "camicia", "random", 2000, 150)
    assert on_threads == single
    climber = RangeEngine("gpu-host", lambda: HarnessBackend(program, 2, 8, launch=1000, capacity=16,
                                                             climb_walks=16))
    on_threads, compiled = climb_walks(climber, ClimbRules(accept="late", history=10), "16 2J", "random", 30,
                                       walks=16, steps=150)
    assert on_threads == compiled
    with pytest.raises(AssertionError, match="ThreadSanitizer: data race"):
        _launches([HarnessBackend(build_harness(tmp_path, 1, sanitize=True), 2, 8, capacity=16)], "camicia",
                  "random", 2000, 150)


# ---------------------------------------------------------------- jobs

def games_on(tmp_path, path, runs):
    """The games job file `path` keeps on each of `runs` ({name: extra
    options}), each run in an archive of its own: {name: {deal: game}}, the
    engine that played a game left out of it (a run whose options name an
    engine must have recorded that engine with every game)."""
    kept_by = {}
    for name, more in runs.items():
        archive = tmp_path / f"{name}.sqlite"
        result = beggar("search", path, *more, "--archive", archive, "--quiet")
        assert result.returncode == 0, result
        games = kept(archive)
        engines = {played.pop("engine") for played in games.values()}
        assert "--engine" not in more or engines <= {more[more.index("--engine") + 1]}, (name, engines)
        kept_by[name] = games
    return kept_by


@pytest.mark.slow
def test_a_job_on_the_gpu_engine_keeps_the_games_of_the_same_job_on_the_cpu(tmp_path):
    path = job_file(tmp_path, deals=400_000, chunk=100_000, min_cards=1800, extra='extend_cards = 0\n')
    runs = games_on(tmp_path, path, {"gpu-host": ["--engine", "gpu-host"], "compiled": ["--engine", "compiled"]})
    # The same games, each recorded with the engine that played it.
    assert runs["gpu-host"] == runs["compiled"] and len(runs["compiled"]) > 5


@pytest.mark.slow
def test_a_job_stopped_on_one_engine_goes_on_on_another(tmp_path):
    path = job_file(tmp_path, deals=1_200_000, chunk=50_000, min_cards=1500, extra='extend_cards = 0\n')
    archive = tmp_path / "a.sqlite"
    job = start("search", path, "--engine", "gpu-host", "--archive", archive, "--quiet")
    wait_for_chunks(archive, 2, job)
    job.send_signal(signal.SIGTERM)
    out, err = job.communicate(timeout=60)
    assert job.returncode == 143 and "SIGTERM" in out, (out, err)
    resumed = beggar("search", "--resume", wait_for_chunks(archive, 1), "--engine", "compiled",
                     "--archive", archive, "--quiet")
    assert resumed.returncode == 0 and "done" in resumed.stdout, resumed
    whole = beggar("search", path, "--archive", tmp_path / "b.sqlite", "--quiet")
    assert whole.returncode == 0, whole
    games = {name: kept(tmp_path / name) for name in ("a.sqlite", "b.sqlite")}
    assert {played["engine"] for played in games["a.sqlite"].values()} == {"gpu-host", "compiled"}
    for played in [*games["a.sqlite"].values(), *games["b.sqlite"].values()]:
        played["engine"] = None
    assert games["a.sqlite"] == games["b.sqlite"]


@pytest.mark.slow
def test_a_job_on_several_devices_keeps_the_games_of_one(tmp_path):
    path = job_file(tmp_path, deals=400_000, chunk=100_000, min_cards=1800,
                    extra='extend_cards = 0\nengine = "gpu-host"\ndevices = [0, 1]\n')
    runs = games_on(tmp_path, path, {"several": [], "one": ["--devices", "0"], "compiled": ["--engine", "compiled"]})
    assert runs["several"] == runs["one"] == runs["compiled"] and len(runs["one"]) > 5


def test_a_gpu_climb_on_a_cluster_is_one_line_before_the_cluster_is_reached(tmp_path):
    archive = tmp_path / "a.sqlite"
    climb = job_file(tmp_path, driver="climb")
    bad_input(beggar("search", climb, "--engine", "gpu-host", "--cluster", "tcp://127.0.0.1:9", "--archive", archive),
              "a climb job on the gpu-host engine climbs its walks in groups on one machine's devices")
    assert not archive.exists()


def test_devices_are_checked_before_a_job_is_stored(tmp_path):
    archive = tmp_path / "a.sqlite"
    bad_input(beggar("search", "--engine", "gpu-host", "--devices", "0,x", "--archive", archive),
              "--devices", "must be 'all' or device numbers such as '0,2'")
    bad_input(beggar("search", "--engine", "gpu-host", "--devices", "1,1", "--archive", archive), "--devices")
    bad_input(beggar("search", "--engine", "compiled", "--devices", "all", "--archive", archive),
              "--devices names a GPU job's devices; --engine compiled plays on the CPU")
    bad_input(beggar("search", job_file(tmp_path, extra='engine = "gpu-host"\ndevices = [-1]\n'),
                     "--archive", archive), "a device number of 'devices' must be a whole number from 0 to 63")
    assert not archive.exists()


def test_the_engine_gpu_is_cuda_by_its_older_name_and_a_job_stored_so_goes_on(tmp_path, monkeypatch):
    import json
    import sqlite3
    from beggar.search import job as jobs
    # engine.get is lazy: no driver is touched until a call plays.
    assert engine.canonical("gpu") == "cuda" and engine.get("gpu") is engine.get("cuda")
    monkeypatch.setenv("BEGGAR_ENGINE", "gpu")
    assert engine.get() is engine.get("cuda") and engine.get().NAME == "cuda"
    monkeypatch.delenv("BEGGAR_ENGINE")
    # A job an older beggar stored with engine "gpu" (run here on gpu-host, its spec then as that archive holds it).
    archive = tmp_path / "a.sqlite"
    path = job_file(tmp_path, deals=40_000, chunk=20_000, extra='engine = "gpu-host"\nextend_cards = 0\n')
    result = beggar("search", path, "--archive", archive, "--quiet", "--time", "0.001")
    assert result.returncode == 0, result
    with sqlite3.connect(archive) as db:
        (number, text), = db.execute("SELECT id, spec FROM jobs").fetchall()
        spec = {**json.loads(text), "engine": "gpu"}
        db.execute("UPDATE jobs SET spec = ? WHERE id = ?", (json.dumps(spec), number))
    assert jobs.stored(spec)["engine"] == "cuda"
    name = job_id(result.stdout)
    # Where CUDA cannot be used it says why, in one line, as a cuda job would.
    if not _has_cuda():
        one_line(beggar("search", "--resume", name, "--archive", archive), 3, "beggar search: ")
    went_on = beggar("search", "--resume", name, "--engine", "gpu", "--archive", archive, "--quiet") \
        if _has_cuda() else beggar("search", "--resume", name, "--engine", "gpu-host", "--archive", archive, "--quiet")
    assert went_on.returncode == 0, went_on
    said = went_on.stdout + went_on.stderr
    assert ("on the gpu-host engine" if not _has_cuda() else "on the cuda engine") in said, said


def _has_cuda():
    from beggar.gpu import device
    try:
        device.check()
    except EngineFault:
        return False
    return True


@pytest.mark.slow
def test_a_perturb_job_on_the_gpu_kernels_keeps_the_loops_of_one_on_the_compiled_engine(tmp_path):
    # A grow job finds the loops of a small deck; perturb jobs start from them.
    from beggar.archive import Archive
    extra = 'deck = "18 3J"\nbasin_states = 20000\nbasin_seconds = 30\n'
    grown = tmp_path / "grown.sqlite"
    result = beggar("search", job_file(tmp_path, "g", driver="grow", seed=1, deals=100_000, chunk=100_000,
                                       extra=extra + "[grow]\nstart_courts = 0\n"), "--archive", grown, "--quiet")
    assert result.returncode == 0, result
    path = job_file(tmp_path, driver="perturb", seed=3, deals=400_000, chunk=200_000, extra=extra)
    found = {}
    for name in ("gpu-host", "compiled"):
        archive = tmp_path / f"{name}.sqlite"
        shutil.copy(grown, archive)
        result = beggar("search", path, "--engine", name, "--archive", archive, "--quiet")
        assert result.returncode == 0, result
        with Archive(archive) as opened:
            found[name] = sorted((row["key"], row["basin_states"]) for row in opened.loops())
    with Archive(grown) as opened:
        assert len(found["compiled"]) > len(opened.loops())         # new loops, each with its basin
    assert found["gpu-host"] == found["compiled"]


@pytest.mark.slow
def test_a_climb_job_on_the_gpu_kernels_keeps_the_games_of_one_on_the_compiled_engine(tmp_path):
    path = job_file(tmp_path, driver="climb", deals=90_000, chunk=3_000, min_cards=1200,
                    extra='extend_cards = 0\n[climb]\naccept = "late"\npatience = 50\n')
    runs = games_on(tmp_path, path, {"gpu-host": ["--engine", "gpu-host"], "compiled": ["--engine", "compiled"]})
    assert runs["gpu-host"] == runs["compiled"] and len(runs["compiled"]) > 20


@pytest.mark.slow
def test_a_gpu_job_says_when_its_cpu_side_fell_behind(tmp_path):
    # gpu-host runs a GPU job's two stages: one process plays, others check.
    path = job_file(tmp_path, deals=200_000, chunk=50_000, min_cards=800, extra='extend_cards = 0\n')
    result = beggar("search", path, "--engine", "gpu-host", "--workers", "1", "--archive", tmp_path / "a.sqlite",
                    "--quiet")
    assert result.returncode == 0, result
    assert "on the GPU kernels on one core, 1 process checking its hits" in result.stdout
    assert "the CPU side fell behind: the GPU waited for it (nothing was dropped)" in result.stdout
    assert len(kept(tmp_path / "a.sqlite")) > 1000


@pytest.mark.slow
def test_gpu_jobs_the_gpu_does_not_play_are_one_line(tmp_path):
    for extra in ("--players 3", "--engine gpu-host --players 4"):
        bad_input(beggar("search", "--engine", "gpu-host", *extra.split()[-2:], "--archive",
                         tmp_path / "a.sqlite"), "two-player deals")
    grow = job_file(tmp_path, driver="grow")
    bad_input(beggar("search", grow, "--engine", "gpu-host", "--archive", tmp_path / "a.sqlite"),
              "the grow driver runs on the compiled engine")
    anneal = job_file(tmp_path, "anneal", driver="climb", extra='[climb]\naccept = "anneal"\n')
    bad_input(beggar("search", anneal, "--engine", "gpu-host", "--archive", tmp_path / "a.sqlite"),
              "the gpu-host engine does not climb by anneal")
    bad_input(beggar("search", "--gpu", "--engine", "compiled", "--archive", tmp_path / "a.sqlite"), "--gpu")
    assert not (tmp_path / "a.sqlite").exists()


# ---------------------------------------------------------------- the compile, without a GPU

def _bindings():
    try:
        from beggar.gpu import device
        device.nvrtc_version()
    except Exception as error:          # bindings or NVRTC missing: GpuFault, named in the reason
        pytest.skip(f"NVRTC is not installed ({error}); pip install '.[gpu]' or '.[test]' installs it")
    return device


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["sm_80", "sm_89", "sm_90"])
def test_the_kernel_compiles_for_every_named_architecture_without_a_gpu(arch):
    device = _bindings()
    for ring in (8, 32, 256):
        cubin = device.compile_kernel(arch, ring)
        assert cubin.startswith(b"\x7fELF") and b"bg_sample" in cubin and b"bg_census" in cubin


@pytest.mark.slow
def test_every_ring_fits_its_blocks_shared_memory_and_the_standard_decks_game_stays_off_the_stack():
    # ptxas's own figures: a block's static shared memory within what
    # device.block_threads sized it for, at every ring; at the standard
    # deck's, a stack frame of at most 400 bytes (Brent's snapshot and the
    # dealing's arrays) and no spills.
    device = _bindings()
    for ring in (2, 4, 8, 16, 32, 64, 128, 256):
        cards = device.cards_of(52 if ring == 32 else ring)
        log = device.compile_program("sm_90", ring, ["--ptxas-options=-v"], cards)[1]
        shared = [int(n) for n in re.findall(r"(\d+) bytes smem", log)]
        stacks = [int(n) for n in re.findall(r"(\d+) bytes stack frame", log)]
        spills = [int(n) for n in re.findall(r"(\d+) bytes spill (?:stores|loads)", log)]
        assert len(shared) == len(stacks) == len(device.KERNELS) and max(shared) <= device.SHARED, (ring, log)
        assert max(shared) > device.SHARED / 2 or device.block_threads(ring) == device.THREADS, (ring, shared)
        if ring == 32:
            assert max(stacks) <= 400 and not any(spills), log


def test_the_cache_key_holds_every_compile_option_and_every_source_file(monkeypatch):
    device = _bindings()
    key = device.cache_key("12.9", ["-a", "-b"], ["kernel", "header"])
    assert len({key, device.cache_key("12.8", ["-a", "-b"], ["kernel", "header"]),
                device.cache_key("12.9", ["-a", "-c"], ["kernel", "header"]),
                device.cache_key("12.9", ["-a"], ["kernel", "header"]),
                device.cache_key("12.9", ["-a", "-bkernel"], ["", "header"]),
                device.cache_key("12.9", ["-a", "-b"], ["kernel!", "header"]),
                device.cache_key("12.9", ["-a", "-b"], ["kernel", "header!"]),
                device.cache_key("12.9", ["-a", "-b"], ["kernel", "header", "vendor"])}) == 8
    # A change of BG_TOTAL alone is another cubin (its structs differ).
    path = device.cache_path("sm_90", 32)
    from beggar.gpu import launch
    monkeypatch.setattr(launch, "TOTAL", 128)
    assert "-DBG_TOTAL=128" in device.options("sm_90", 32) and device.cache_path("sm_90", 32) != path


@pytest.mark.slow
def test_a_damaged_cached_cubin_is_compiled_again(tmp_path, monkeypatch):
    device = _bindings()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cubin, seconds = device.cached_kernel("sm_80", 8)
    path = device.cache_path("sm_80", 8)
    assert seconds > 0 and path.parent == tmp_path / "beggar" / "gpu" and cubin == device.compile_kernel("sm_80", 8)
    assert device.cached_kernel("sm_80", 8) == (cubin, 0.0)
    stored = path.read_bytes()
    for damaged in (stored[:-100], stored[:-1] + bytes([stored[-1] ^ 1]), b"", stored[:20]):
        path.write_bytes(damaged)
        again, seconds = device.cached_kernel("sm_80", 8)
        assert again == cubin and seconds > 0
        assert path.read_bytes() == stored
    # A cubin the driver refused is compiled again on request, the cache replaced.
    assert device.cached_kernel("sm_80", 8, fresh=True)[1] > 0
    assert device.cached_kernel("sm_80", 8) == (cubin, 0.0)


@pytest.mark.slow
def test_a_cached_cubin_the_driver_refuses_is_compiled_again_and_a_fresh_one_it_refuses_is_the_fault(
        tmp_path, monkeypatch):
    # The driver's load stands in here (no GPU): the real compile and cache.
    device = _bindings()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cubin = device.cached_kernel("sm_80", 8)[0]
    given = []

    def refuses_the_first(image):
        given.append(image)
        if len(given) == 1:
            raise device.GpuFault("CUDA cuModuleLoadData failed on GPU 0: CUDA_ERROR_INVALID_IMAGE")
        return "loaded"
    assert device.loaded(refuses_the_first, "sm_80", 8) == "loaded" and given == [cubin, cubin]
    device.cache_path("sm_80", 8).unlink()
    given.clear()

    def refuses(image):
        given.append(image)
        raise device.GpuFault("CUDA cuModuleLoadData failed on GPU 0: CUDA_ERROR_INVALID_IMAGE")
    with pytest.raises(device.GpuFault, match="INVALID_IMAGE"):
        device.loaded(refuses, "sm_80", 8)
    assert given == [cubin]         # compiled once, refused once: not compiled again


@pytest.mark.gpu
def test_a_reset_after_a_fault_leaves_the_other_devices_of_the_gpu_playing():
    _device_engine()
    from beggar.gpu import device
    one, other = device.Device(0), device.Device(0)
    args = (10 ** 5, 3, 1800, 0, Deck.parse("standard"), 2, None)
    expected = _engine.sample_best(*args)
    assert RangeEngine("cuda", lambda: one).sample_best(*args) == expected
    other.close()           # as after a failed launch: the primary context reset
    assert RangeEngine("cuda", lambda: one).sample_best(*args) == expected
    one.close()


@pytest.mark.slow
def test_beggar_gpu_compiles_for_an_architecture_without_a_device():
    _bindings()
    result = beggar("gpu", "--arch", "sm_90")
    assert result.returncode == 0, result
    assert "kernel: compiles for sm_90" in result.stdout and "no device was used" in result.stdout


@pytest.mark.slow
def test_without_a_gpu_the_gpu_options_are_one_line(tmp_path):
    device = _bindings()
    try:
        device.Device()
    except device.GpuFault as error:
        listed = beggar("gpu")
        assert "CUDA: cuda-bindings" in listed.stdout and f"  {error}" in listed.stdout, listed
        archive = tmp_path / "a.sqlite"
        for command in (["search", "--gpu", "--deals", "1000"], ["census", "half", "--gpu"]):
            line = one_line(beggar(*command, "--archive", archive), 3, f"beggar {command[0]}: no GPU can be used here")
            assert f"CUDA: {error}" in line and "OpenCL: " in line
        assert not archive.exists()
    else:
        result = beggar("gpu")
        assert result.returncode == 0 and "gpu can run here" in result.stdout


def test_without_the_bindings_the_gpu_engines_name_their_extras(tmp_path, monkeypatch, capsys):
    # The bindings made unimportable in this process (a package's own .pth
    # file keeps a stand-in out of a subprocess); the command's main runs here.
    from beggar.cli import main
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)
    cuda = "NVIDIA's CUDA bindings (import of cuda.bindings halted; None in sys.modules): pip install '.[gpu]'"
    for command in (["gpu", "--arch", "sm_90"], ["search", "--gpu", "--archive", str(tmp_path / "a.sqlite")]):
        assert main(command) == 3
        error = capsys.readouterr().err.strip()
        assert len(error.splitlines()) == 1 and cuda in error, error
    monkeypatch.setitem(sys.modules, "pyopencl", None)
    assert main(["gpu"]) == 3
    listed = capsys.readouterr()
    assert "CUDA:\n  the GPU engine needs " + cuda in listed.out
    assert "OpenCL:\n  the opencl engine needs pyopencl" in listed.out
    error = listed.err.strip()
    assert len(error.splitlines()) == 1 and error.startswith("beggar gpu: no GPU engine can run here (cuda: "), error
    assert "pip install '.[opencl]' in beggar's source folder" in error
    assert not (tmp_path / "a.sqlite").exists()


def test_a_wrong_architecture_is_one_line():
    _bindings()
    one_line(beggar("gpu", "--arch", "sm_99"), 3, "cannot compile the kernel for sm_99")
    one_line(beggar("gpu", "--arch", "ninety"), 2, "--arch", "sm_90")


# ---------------------------------------------------------------- the device itself

def _device_engine():
    # engine.get("cuda") is lazy: it touches the driver only inside the call
    # under test. Ask the driver, so that a machine without a GPU skips; no
    # Device is opened here (the engine's would share its primary context).
    device = _bindings()
    try:
        device.count()
    except device.GpuFault as error:
        pytest.skip(f"no GPU here ({error})")
    return engine.get("cuda")


@pytest.mark.gpu
@pytest.mark.parametrize("deck, split", SHAPES)
def test_ten_million_random_deals_on_the_gpu_as_the_compiled_engine_plays_them(deck, split):
    gpu = _device_engine()
    args = (10 ** 7, 2026, 1800, 3 * 10 ** 9, Deck.parse(deck), 2, split)
    assert gpu.sample_best(*args) == _engine.sample_best(*args)


@pytest.mark.gpu
@pytest.mark.parametrize("deck, split, first, deals", [
    ("12 2J 2Q 2K", None, 0, None), ("10 2J 2Q", 7, 0, None), ("half", None, 10 ** 9, 10 ** 7),
    ("camicia", None, 10 ** 13, 10 ** 7)])
def test_census_blocks_on_the_gpu_as_the_compiled_engine_counts_them(deck, split, first, deals):
    gpu = _device_engine()
    deck = Deck.parse(deck)
    deals = deals or census.count(deck)
    assert gpu.census(first, deals, deck, 2, split, 10) == _engine.census(first, deals, deck, 2, split, 10)


@pytest.mark.gpu
def test_the_gpu_plays_in_any_thread_and_blocks_while_it_waits():
    gpu = _device_engine()
    args = (10 ** 6, 7, 1800, 0, Deck.parse("standard"), 2, None)
    expected = _engine.sample_best(*args)
    assert gpu.sample_best(*args) == expected
    results = []
    thread = threading.Thread(target=lambda: results.append(gpu.sample_best(*args)))
    thread.start()
    thread.join()
    assert results == [expected]
    device = gpu.backend
    device._current()
    flags = device._check(device.driver.cuCtxGetFlags(), "cuCtxGetFlags")
    assert int(flags) & int(device.driver.CUctx_flags.CU_CTX_SCHED_BLOCKING_SYNC)


@pytest.mark.gpu
def test_loops_on_the_gpu_as_the_compiled_engine_finds_them():
    gpu = _device_engine()
    args = (10 ** 6, 5, 40, 0, Deck.parse("10 2J 2Q"), 2, "random")
    assert gpu.sample_best(*args) == _engine.sample_best(*args)


@pytest.mark.gpu
def test_every_gpu_at_once_as_the_compiled_engine_plays():
    _device_engine()
    from beggar import gpu as engines
    every = engines.get("cuda", "all")
    args = (10 ** 7, 2027, 1800, 0, Deck.parse("standard"), 2, None)
    assert every.sample_best(*args) == _engine.sample_best(*args)
    deck = Deck.parse("half")
    assert every.census(10 ** 9, 10 ** 7, deck, 2, None, 10) == _engine.census(10 ** 9, 10 ** 7, deck, 2, None, 10)


@pytest.mark.gpu
def test_the_opencl_engine_on_an_opencl_gpu_as_the_compiled_engine_plays():
    from beggar.gpu import opencl
    try:
        found = [number for number, (_, device) in enumerate(opencl.devices()) if opencl.is_gpu(device)]
    except EngineFault as error:
        pytest.skip(f"no OpenCL here ({error})")
    if not found:
        pytest.skip("OpenCL lists no GPU here")
    from beggar import gpu as engines
    on_gpu = engines.get("opencl", (found[0],))
    for deck, split in SHAPES:
        args = (10 ** 7, 2026, 1800, 3 * 10 ** 9, Deck.parse(deck), 2, split)
        assert on_gpu.sample_best(*args) == _engine.sample_best(*args)
