"""The kernels (gpu/kernel.cu) on threads of several blocks: the concurrency
harness (tests/gpu_harness.c, built here with kernel.cu as installed) runs
each launch as forked blocks of threads, their shared memory filled with
garbage, with real barriers and atomics; each launch must give what the
single-thread build (gpu-host) gives, and the engine on it what the compiled
engine gives. A planted race is caught, and ThreadSanitizer reports none on
the kernels as they are."""

import os
import subprocess
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from beggar import _engine, _gpu_host, census, engine, lengths
from beggar.census import _arrangements
from beggar.decks import Deck
from beggar.gpu.abi import KERNELS, VALUE, VALUES
from beggar.gpu.engine import CAP_TRICKS, SUFFIX_LIMIT, RangeEngine, _counts, _Counted, shape_of
from beggar.gpu.host import HostBackend
from beggar.gpu import source
from beggar.gpu.launch import BUFFER, Memory

from engines import climb_walks
from helpers import c_compiler
from shapes import TWO_PLAYER_TABLES, casella_state

HOST_LENGTHS = range(lengths.BINS)


def harness_calls():
    """The harness's calls of the kernels (harness_calls.h), written from
    abi.KERNELS: argument k is read from the launch's k-th mapping, a buffer
    as a pointer to its C type, a value as its 8 bytes."""
    read = {np.uint64: "U64", np.int64: "I64", np.int32: "I32"}
    calls = [f'if (!strcmp(kernel, "{kernel}"))\n        {kernel}(' + ", ".join(
        f"{read[VALUES[ctype]]}({k})" if how == VALUE else f"BUFFER({k}, {ctype})"
        for k, (_, how, ctype) in enumerate(arguments)) + ");" for kernel, arguments in KERNELS.items()]
    names = ", ".join(f'"{kernel}"' for kernel in KERNELS)
    return f"#define BG_KERNEL_NAMES {names}\nstatic void bg_call(void) {{\n    " + "\n    else ".join(calls) + "\n}\n"


def build_harness(folder, race=0, sanitize=False, queue_start=0):
    """tests/gpu_harness.c built with kernel.cu as installed (a race planted
    with `race`; under ThreadSanitizer with `sanitize`; the blocks' queue
    counters starting at `queue_start`): the program's path; a skip where
    there is no C compiler (or no ThreadSanitizer)."""
    compiler = c_compiler()
    program = folder / f"gpu_harness-{race}{'-tsan' if sanitize else ''}-{queue_start}"
    (folder / "harness_calls.h").write_text(harness_calls())
    flags = ["-O1", "-g", "-fsanitize=thread"] if sanitize else ["-O2"]
    built = subprocess.run([compiler, *flags, "-pthread", f"-DBG_RACE={race}", f"-DBG_QUEUE_START={queue_start}u",
                            f"-I{folder}", *(f"-I{resources.files('beggar') / part}" for part in source.FOLDERS),
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
        given = {name: value for (name, _, _), (value, _) in zip(KERNELS[kernel], arguments)}
        counted = given["count"] if "count" in given else given["n_walks"]
        assert int(given["next"].view(np.uint64)[0]) >= counted       # every deal (or walk) was taken


def _shape(deck, split):
    """A bg_shape of `deck` and `split`, as the engine fills it."""
    return shape_of(deck, split, _gpu_host.TOTAL).view(np.uint8)


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
@pytest.mark.parametrize("deck, split", [*TWO_PLAYER_TABLES, ("16 2J", "random"), ("10 2J 2Q", None)])
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
