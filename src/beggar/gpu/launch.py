"""What the device backends share: the kernels' build options and block
sizes, their arguments and buffers, and the fault of a device that cannot
be used.

A backend is gpu/engine.py's: `sample(...)` and `census(...)` with the
kernels' arguments and NumPy arrays for their results. The CUDA backend
(device.py) and the OpenCL backend (opencl.py) are this class over their
API's few calls: device memory by name, copies both ways, and one launch
that waits for its end.
"""

from __future__ import annotations

import numpy as np

from .. import lengths
from ..contract import EngineFault
from .engine import CLIMB_HIT, HIT

#: Threads per block, at most: four warps, whose games (both hands, the
#: pile, a dealt game waiting in the queue: 8 * ring + 16 bytes a thread)
#: and counts fit the 48 KB of static shared memory a block may have with
#: hands of up to 32 pieces, several blocks a multiprocessor. A deck of more
#: court cards gets fewer threads a block (block_threads).
THREADS = 128
#: Static shared memory a block may have, and what a block holds besides
#: its threads' games: its counts, the launch's shape or census block
#: (kernel.cu's bg_block_memory).
SHARED = 48 * 1024
SHARED_FIXED = 6 * 1024
#: Census arrangements a thread takes at a time, unranked once.
CENSUS_GRAB = 64
#: Hits a launch can hand back; more and the launch is played again in parts.
CAPACITY = 1 << 16
KERNELS = ("bg_sample", "bg_census", "bg_perturb", "bg_batch", "bg_climb")
#: The most cards of a deck the kernels are compiled for (sizes.h's BG_TOTAL).
TOTAL = 256
#: The most places in a hand's ring (sizes.h's BG_RING of the host build).
RING = 256
#: A census counts lengths below this on the device (game.h's BG_HISTOGRAM).
HISTOGRAM = 1 << 16


class GpuFault(EngineFault):
    """The machine cannot run a GPU engine: no bindings, no driver, no
    device, a compile or launch that failed (a fault: exit 3)."""


def block_threads(ring, shared=SHARED):
    """Threads a block of the kernels for hands of `ring` pieces: THREADS,
    halved while their shared memory would not fit `shared` bytes."""
    threads = THREADS
    while threads > 1 and threads * (8 * ring + 16) + SHARED_FIXED > shared:
        threads //= 2
    return threads


def cards_of(total):
    """The cards a kernel for decks of `total` cards deals (the length of
    its local arrays): a power of two, at least 16, so that few kernels serve
    every deck."""
    cards = 16
    while cards < total:
        cards *= 2
    return cards


def defines(ring, cards, threads):
    """The compile options that size the kernels, the same for every compiler."""
    return [f"-DBG_RING={ring}", f"-DBG_TOTAL={TOTAL}", f"-DBG_CARDS={cards}", f"-DBG_BLOCK={threads}"]


def variant(launch):
    """(ring, cards) of the kernels for a bg_shape or bg_block: both begin
    with the deck's cards, and have the ring fourth."""
    fields = launch.view(np.int32)
    return int(fields[3]), cards_of(int(fields[0]))


#: A buffer among a launch's arguments (the rest are (value, NumPy type)).
BUFFER = None


class Backend:
    """A device's launches of the kernels. Subclasses give device memory by
    name (_buffer, _to_device, _zeros), the copy back (_to_host) and the
    launch (_launch); `closed` is set once the device may not be used again."""

    RING = RING
    TOTAL = TOTAL
    HISTOGRAM = HISTOGRAM
    CAPACITY = CAPACITY
    # Deals a launch plays (gpu/sizing.py): the first size, the most, and
    # the seconds a launch aims at, so that a Ctrl-C waits no longer than
    # about that.
    LAUNCH = 1 << 22
    LARGEST = 1 << 32
    SECONDS = 0.5
    # Walks of the hill climber played together (gpu/engine.py's _Climbing):
    # a thread each, a GPU's worth.
    CLIMB_WALKS = 1 << 14

    def sample(self, shape, seed, first, count, min_cards, cap, counts, best):
        """The kernel bg_sample over deals first .. first + count - 1 of
        `seed`: the lengths into `counts`, the best key into `best`;
        returns (hits, n_hits)."""
        u64, i64 = np.uint64, np.int64
        self.kernels(*variant(shape))      # built, and the device ready in this thread, before its memory is touched
        self._launch("bg_sample", variant(shape), [
            (self._to_device("shape", shape), BUFFER), (seed, u64), (first, u64), (count, u64),
            (min_cards, i64), (cap, i64), (self._zeros("next", 8), BUFFER),
            (self._zeros("lengths", lengths.BINS * 8), BUFFER), (self._zeros("best", 8), BUFFER),
            (self._buffer("hits", self.CAPACITY * HIT.itemsize), BUFFER), (self._zeros("n_hits", 8), BUFFER),
            (self.CAPACITY, u64)])
        self._to_host(counts, "lengths")
        self._to_host(best, "best")
        return self._hits()

    def census(self, block, count, threshold, cap, cards, tricks):
        """The kernel bg_census over the first `count` deals of `block`: the
        histograms into `cards` and `tricks`; returns (hits, n_hits)."""
        u64, i64 = np.uint64, np.int64
        self.kernels(*variant(block))
        self._launch("bg_census", variant(block), [
            (self._to_device("block", block), BUFFER), (count, u64), (CENSUS_GRAB, u64), (threshold, i64),
            (cap, i64), (self._zeros("next", 8), BUFFER), (self._zeros("cards", cards.nbytes), BUFFER),
            (self._zeros("tricks", tricks.nbytes), BUFFER),
            (self._buffer("hits", self.CAPACITY * HIT.itemsize), BUFFER), (self._zeros("n_hits", 8), BUFFER),
            (self.CAPACITY, u64)])
        self._to_host(cards, "cards")
        self._to_host(tricks, "tricks")
        return self._hits()

    def perturb(self, pool, n_pool, total, ring, changes, reach, walk_seed, known, first, count, cap):
        """The kernel bg_perturb over tries first .. first + count - 1 of a
        walk (a pool of `n_pool` rows, the sorted `known` cycle hashes);
        returns (hits, n_hits)."""
        u64, i32 = np.uint64, np.int32
        self.kernels(ring, cards_of(total))
        n_known = len(known)
        known = known if n_known else np.zeros(1, np.uint64)        # no buffer is empty
        self._launch("bg_perturb", (ring, cards_of(total)), [
            (self._to_device("pool", pool), BUFFER), (n_pool, i32), (total, i32), (ring, i32), (changes, i32),
            (reach, i32), (walk_seed, u64), (self._to_device("known", known), BUFFER), (n_known, i32),
            (first, u64), (count, u64), (cap, np.int64), (self._zeros("next", 8), BUFFER),
            (self._buffer("hits", self.CAPACITY * HIT.itemsize), BUFFER), (self._zeros("n_hits", 8), BUFFER),
            (self.CAPACITY, u64)])
        return self._hits()

    def batch(self, rows, splits, total, ring, cap):
        """The kernel bg_batch over the deals of `rows`: one bg_hit a deal."""
        self.kernels(ring, cards_of(total))
        results = np.zeros(len(splits), HIT)
        self._launch("bg_batch", (ring, cards_of(total)), [
            (self._to_device("rows", rows), BUFFER), (self._to_device("splits", splits), BUFFER),
            (total, np.int32), (ring, np.int32), (len(splits), np.uint64), (cap, np.int64),
            (self._zeros("next", 8), BUFFER), (self._buffer("results", results.nbytes), BUFFER)])
        self._to_host(results, "results")
        return results

    def climb(self, shape, rules, walks, history, counted, budget, cap):
        """The kernel bg_climb over `walks` (climb.h's bg_walk of this build's
        cards), each on by up to `budget` steps: `walks`, `history` and
        `counted` (their lengths) brought up to date; returns (hits, their
        deals, n_hits)."""
        u64, i64 = np.uint64, np.int64
        total = int(shape.view(np.int32)[0])
        self.kernels(*variant(shape))
        self._launch("bg_climb", variant(shape), [
            (self._to_device("shape", shape), BUFFER), (self._to_device("climb rules", rules), BUFFER),
            (len(walks), u64), (budget, i64), (cap, i64), (self._to_device("walks", walks), BUFFER),
            (self._to_device("history", history), BUFFER), (self._to_device("climb lengths", counted), BUFFER),
            (self._buffer("climb hits", self.CAPACITY * CLIMB_HIT.itemsize), BUFFER),
            (self._buffer("decks", self.CAPACITY * total), BUFFER), (self._zeros("n_hits", 8), BUFFER),
            (self.CAPACITY, u64), (self._zeros("next", 8), BUFFER)])
        self._to_host(walks, "walks")
        self._to_host(history, "history")
        self._to_host(counted, "climb lengths")
        n_hits = np.zeros(1, np.uint64)
        self._to_host(n_hits, "n_hits")
        kept = min(int(n_hits[0]), self.CAPACITY)
        hits, decks = np.zeros(self.CAPACITY, CLIMB_HIT), np.zeros((self.CAPACITY, total), np.uint8)
        self._to_host(hits, "climb hits", kept * CLIMB_HIT.itemsize)
        self._to_host(decks, "decks", kept * total)
        return hits, decks, int(n_hits[0])

    def walk_cards(self, total):
        """The cards of a walk's arrays in the kernels for decks of `total` cards."""
        return cards_of(total)

    def _hits(self):
        n_hits = np.zeros(1, np.uint64)
        self._to_host(n_hits, "n_hits")
        hits = np.zeros(self.CAPACITY, HIT)
        self._to_host(hits, "hits", min(int(n_hits[0]), self.CAPACITY) * HIT.itemsize)
        return hits, int(n_hits[0])

    # ------------------------------------------------------------ the API's calls

    def _buffer(self, name, size):
        """Device memory of at least `size` bytes named `name`, kept between launches."""
        raise NotImplementedError

    def _to_device(self, name, array):
        """Buffer `name` holding a copy of `array`."""
        raise NotImplementedError

    def _zeros(self, name, size):
        """Buffer `name`, its first `size` bytes zero."""
        raise NotImplementedError

    def _to_host(self, array, name, size=None):
        """Copy the first `size` bytes (all of `array` when None) of buffer `name` into `array`."""
        raise NotImplementedError

    def kernels(self, ring, cards=TOTAL):
        """The kernels for hands of `ring` pieces and decks of at most `cards`
        cards, built at the first call, the device made ready for this
        thread's calls: {name: (kernel, blocks, threads a block)}."""
        raise NotImplementedError

    def _launch(self, kernel, variant, arguments):
        """Launch `kernel` of the kernels for `variant` (ring, cards) with
        `arguments` ((buffer, BUFFER) or (value, NumPy type) each) and wait
        for its end."""
        raise NotImplementedError
