"""What the backends share: the marshalling of each kernel's arguments
(abi.KERNELS, Backend.run), the kernels' build options and block sizes, what
a perturbation launch hands back, the fault of a device that cannot be used.
A backend (cuda.py's, opencl.py's, host.py's, the tests' concurrency harness)
is a Backend over a device's memory calls.
"""

from __future__ import annotations

import contextlib

import numpy as np

from ..contract import EngineFault
from .abi import CLIMB_HIT, HIT, IN, INOUT, KERNELS, ROOM, VALUES, ZEROS

#: Threads per block, at most: four warps, whose games (both hands and a
#: dealt game waiting in the queue: 6 * ring + 16 bytes a thread) and counts
#: fit the 48 KB of static shared memory a block may have with hands of up
#: to 32 pieces, several blocks a multiprocessor. A deck of more court cards
#: gets fewer threads a block (block_threads).
THREADS = 128
#: Static shared memory a block may have, and what a block holds besides
#: its threads' games: its counts, the launch's shape or census block
#: (kernel.cu's bg_block_memory).
SHARED = 48 * 1024
SHARED_FIXED = 6 * 1024
#: The most cards of a deck the kernels are compiled for (sizes.h's BG_TOTAL).
TOTAL = 256


class GpuFault(EngineFault):
    """The machine cannot run a GPU engine: no bindings, no driver, no
    device, a compile or launch that failed (a fault: exit 3)."""


def block_threads(ring, shared=SHARED):
    """Threads a block of the kernels for hands of `ring` pieces: THREADS,
    halved while their shared memory would not fit `shared` bytes."""
    threads = THREADS
    while threads > 1 and threads * (6 * ring + 16) + SHARED_FIXED > shared:
        threads //= 2
    return threads


def cards_of(total):
    """The cards a kernel for decks of `total` cards deals (the length of
    its local arrays): a power of two, at least 16, so that few kernels serve
    every deck."""
    return max(16, 1 << (int(total) - 1).bit_length())


def defines(ring, cards, threads):
    """The compile options that size the kernels, the same for every compiler."""
    return [f"-DBG_RING={ring}", f"-DBG_TOTAL={TOTAL}", f"-DBG_CARDS={cards}", f"-DBG_BLOCK={threads}"]


def variant(launch):
    """(ring, cards) of the kernels for a bg_shape or bg_block: both begin
    with the deck's cards, and have the ring fourth."""
    fields = launch.view(np.int32)
    return int(fields[3]), cards_of(int(fields[0]))


#: A buffer among the arguments as a backend's _launch is given them (the rest are (value, NumPy type)).
BUFFER = None


#: A perturbation try the device hands back: its offset in the launch, and
#: the hash of the new cycle its game reached (0: a game that reached the cap).
TRIED = np.dtype([("offset", "<u8"), ("cycle", "<u8")])


class Backend:
    """A device's launches of the kernels. Subclasses give device memory by
    name: _buffer(name, size) (at least `size` bytes, kept between launches),
    _to_device(name, array) (a buffer holding a copy), _zeros(name, size)
    (its first `size` bytes zero); _to_host(array, name, size) (the first
    `size` bytes, never 0, copied back into `array`); kernels(ring,
    cards) (the kernels built at the first call, the device ready for this
    thread: {name: (kernel, blocks, threads a block)}); and _launch(kernel,
    variant, arguments) ((buffer, BUFFER) or (value, NumPy type) each),
    which waits for the kernel's end. `closed` is set once the device may
    not be used again."""

    #: The most places in a hand's ring (sizes.h's BG_RING of the host build).
    RING = 256
    TOTAL = TOTAL
    #: A census counts lengths below this on the device (game.h's BG_HISTOGRAM).
    HISTOGRAM = 1 << 16
    #: Hits a launch can hand back; more and the launch is played again in parts.
    CAPACITY = 1 << 16
    # Deals a launch plays (gpu/sizing.py): the first size, the most, and
    # the seconds a launch aims at, so that a Ctrl-C waits no longer than
    # about that.
    LAUNCH = 1 << 22
    LARGEST = 1 << 32
    SECONDS = 0.5
    # Walks of the hill climber played together (gpu/engine.py's _Climbing):
    # a thread each, a GPU's worth.
    CLIMB_WALKS = 1 << 14
    #: Whether the device is a GPU.
    gpu = True
    closed = False

    def run(self, kernel, variant, **given):
        """Launch `kernel` of the kernels for `variant` (ring, cards) with the
        arguments KERNELS names, each `given` by name: a value, or a NumPy
        array for a buffer: IN and INOUT copied to the device, ZEROS sized
        by it, and after the launch ZEROS and INOUT copied back into it,
        then of each ROOM as many rows as n_hits says (at most its rows).
        A ZEROS buffer not given is one word (`next`, `n_hits`), `capacity`
        not given is CAPACITY; returns n_hits (None for a kernel without)."""
        self.kernels(*variant)      # built, and the device ready in this thread, before its memory is touched
        given = {"capacity": self.CAPACITY, **given}
        arguments = []
        for name, how, ctype in KERNELS[kernel]:
            value = given.setdefault(name, np.zeros(1, np.uint64)) if name in ("next", "n_hits") else given[name]
            if how in (IN, INOUT):
                arguments.append((self._to_device(name, value), BUFFER))
            elif how == ZEROS:
                arguments.append((self._zeros(name, value.nbytes), BUFFER))
            elif how == ROOM:
                arguments.append((self._buffer(name, value.nbytes), BUFFER))
            else:
                arguments.append((value, VALUES[ctype]))
        self._launch(kernel, variant, arguments)
        for name, how, _ in KERNELS[kernel]:
            if how in (ZEROS, INOUT) and given[name].nbytes:
                self._to_host(given[name], name, given[name].nbytes)
        n_hits = int(given["n_hits"][0]) if "n_hits" in given else None
        for name, how, _ in KERNELS[kernel]:
            if how == ROOM and min(n_hits, len(given[name])):
                self._to_host(given[name], name, min(n_hits, len(given[name])) * given[name][:1].nbytes)
        return n_hits

    def sample(self, shape, seed, first, count, min_cards, cap, counts, best):
        """The kernel bg_sample over deals first .. first + count - 1 of
        `seed`: the lengths into `counts`, the best key into `best`;
        returns (hits, n_hits)."""
        hits = np.zeros(self.CAPACITY, HIT)
        return hits, self.run("bg_sample", variant(shape), shape=shape, seed=seed, first=first, count=count,
                              min_cards=min_cards, cap=cap, lengths=counts, best=best, hits=hits)

    def census(self, block, count, threshold, cap, cards, tricks):
        """The kernel bg_census over the first `count` deals of `block`: the
        histograms into `cards` and `tricks`; returns (hits, n_hits)."""
        hits = np.zeros(self.CAPACITY, HIT)
        return hits, self.run("bg_census", variant(block), block=block, count=count, threshold=threshold,
                              grab=self.census_grab(count), cap=cap, cards=cards, tricks=tricks, hits=hits)

    def census_grab(self, count):
        """Census arrangements a thread takes at a time in a launch of `count`,
        unranked once."""
        return 64

    def perturb(self, pool, n_pool, total, ring, changes, reach, walk_seed, known, first, count, cap):
        """The kernel bg_perturb over tries first .. first + count - 1 of a
        walk (a pool of `n_pool` rows, the sorted `known` cycle hashes):
        (TRIED rows, their number) from its hits (games that reached the
        cap) and its table of new cycles (kernel.cu's bg_new_cycle: rows of
        the hash and the complement of the earliest try), or, when more
        than CAPACITY of either came, (CAPACITY empty rows, a number above
        it: the launch is played again in parts)."""
        hits = np.zeros(self.CAPACITY, HIT)
        # Twice the slots of the new cycles a launch may hand back: the table stays at most half full.
        cycles, n_cycles = np.zeros((2 * self.CAPACITY, 2), np.uint64), np.zeros(1, np.uint64)
        n_hits = self.run("bg_perturb", (ring, cards_of(total)), pool=pool, n_pool=n_pool, total=total,
                          ring=ring, changes=changes, reach=reach, walk_seed=walk_seed, n_known=len(known),
                          known=known if len(known) else np.zeros(1, np.uint64),    # no buffer is empty
                          first=first, count=count, cap=cap, hits=hits, cycles=cycles, n_slots=len(cycles),
                          n_cycles=n_cycles)
        if max(n_hits, int(n_cycles[0])) > self.CAPACITY:
            return np.zeros(self.CAPACITY, TRIED), max(n_hits, int(n_cycles[0]))
        held = cycles[cycles[:, 0] != 0]
        tried = np.zeros(n_hits + len(held), TRIED)
        tried["offset"][:n_hits] = hits["offset"][:n_hits]
        tried["offset"][n_hits:] = ~held[:, 1]
        tried["cycle"][n_hits:] = held[:, 0]
        return tried, len(tried)

    def batch(self, rows, splits, total, ring, cap):
        """The kernel bg_batch over the deals of `rows`: one bg_hit a deal."""
        results = np.zeros(len(splits), HIT)
        self.run("bg_batch", (ring, cards_of(total)), rows=rows, splits=np.ascontiguousarray(splits, np.int32),
                 total=total, ring=ring, count=len(splits), cap=cap, results=results)
        return results

    def climb(self, shape, rules, walks, history, counted, budget, cap):
        """The kernel bg_climb over `walks` (climb.h's bg_walk of this build's
        cards), each on by up to `budget` steps: `walks`, `history` and
        `counted` (their lengths) brought up to date; returns (hits, their
        deals, n_hits)."""
        total = int(shape.view(np.int32)[0])
        hits, decks = np.zeros(self.CAPACITY, CLIMB_HIT), np.zeros((self.CAPACITY, total), np.uint8)
        return hits, decks, self.run("bg_climb", variant(shape), shape=shape, rules=rules, n_walks=len(walks),
                                     budget=budget, cap=cap, walks=walks, history=history, lengths=counted,
                                     hits=hits, decks=decks)

    def walk_cards(self, total):
        """The cards of a walk's arrays in the kernels for decks of `total` cards."""
        return cards_of(total)


class Memory(Backend):
    """A backend whose device memory is this process's: NumPy arrays by name
    (host.py's, the tests' harness)."""

    def _buffer(self, name, size):
        held = self._memory.get(name)
        if held is None or held.nbytes < size:
            held = self._memory[name] = np.zeros(max(size, 8), np.uint8)
        return held[:size]

    def _to_device(self, name, array):
        held = self._buffer(name, array.nbytes)
        held[:] = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        return held

    def _zeros(self, name, size):
        held = self._buffer(name, size)
        held[:] = 0
        return held

    def _to_host(self, array, name, size):
        array.reshape(-1).view(np.uint8)[:size] = self._memory[name][:size]

    def kernels(self, ring, cards=TOTAL):
        return {}


def close_quietly(backend):
    """Close a backend that failed, if it has anything to close: a dead
    context may refuse even its release."""
    with contextlib.suppress(Exception):
        getattr(backend, "close", lambda: None)()
