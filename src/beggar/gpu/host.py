"""The kernels' launches on the CPU, through beggar._gpu_host: the backend of "gpu-host".

A launch is the kernel run by one thread over the whole range, in NumPy
buffers; launches are short (LAUNCH deals) so that a Ctrl-C is felt between
them.
"""

import numpy as np

from .engine import CLIMB_HIT, HIT, walk_dtype


class HostBackend:
    """gpu/engine.py's backend on the CPU. `capacity` below `launch` is for
    the tests of a buffer that overflows."""

    def __init__(self, launch=1 << 16, capacity=1 << 16, climb_walks=16):
        from .. import _gpu_host
        self._kernels = _gpu_host
        self.RING = _gpu_host.RING
        self.TOTAL = _gpu_host.TOTAL
        self.HISTOGRAM = _gpu_host.HISTOGRAM
        # Launches of one size, never grown (gpu/sizing.py shrinks them
        # after an overflow): short, so that a Ctrl-C is felt between them.
        self.LAUNCH = launch
        self.LARGEST = launch
        self.SECONDS = None
        self.CAPACITY = capacity
        # Walks of the hill climber played together (gpu/engine.py's _Climbing).
        self.CLIMB_WALKS = climb_walks

    def sample(self, shape, seed, first, count, min_cards, cap, lengths, best):
        hits = np.zeros(self.CAPACITY, HIT)
        n_hits = np.zeros(1, np.uint64)
        self._kernels.sample(shape, seed, first, count, min_cards, cap, lengths, best, hits.view(np.uint8),
                             n_hits, self.CAPACITY)
        return hits, int(n_hits[0])

    def census(self, block, count, threshold, cap, cards, tricks):
        hits = np.zeros(self.CAPACITY, HIT)
        n_hits = np.zeros(1, np.uint64)
        # One thread: the whole range is one run of arrangements, unranked once.
        self._kernels.census(block, count, max(count, 1), threshold, cap, cards, tricks, hits.view(np.uint8),
                             n_hits, self.CAPACITY)
        return hits, int(n_hits[0])

    def perturb(self, pool, n_pool, total, ring, changes, reach, walk_seed, known, first, count, cap):
        hits = np.zeros(self.CAPACITY, HIT)
        n_hits = np.zeros(1, np.uint64)
        self._kernels.perturb(pool, n_pool, total, ring, changes, reach, walk_seed, known, first, count, cap,
                              hits.view(np.uint8), n_hits, self.CAPACITY)
        return hits, int(n_hits[0])

    def batch(self, rows, splits, total, ring, cap):
        results = np.zeros(len(splits), HIT)
        self._kernels.batch(rows, splits, total, ring, cap, results.view(np.uint8))
        return results

    def climb(self, shape, rules, walks, history, lengths, budget, cap):
        hits = np.zeros(self.CAPACITY, CLIMB_HIT)
        decks = np.zeros(self.CAPACITY * int(shape.view(np.int32)[0]), np.uint8)
        n_hits = np.zeros(1, np.uint64)
        host = walk_dtype(self.TOTAL)
        if walks.dtype != host:
            raise ValueError(f"gpu-host climb: walks of {walks.dtype.itemsize} bytes, not {host.itemsize}")
        self._kernels.climb(shape, rules, len(walks), budget, cap, walks.view(np.uint8), history, lengths,
                            hits.view(np.uint8), decks, n_hits, self.CAPACITY)
        total = int(shape.view(np.int32)[0])
        return hits, decks.reshape(self.CAPACITY, total), int(n_hits[0])

    def walk_cards(self, total):
        """The cards of a walk's arrays in this build (its BG_TOTAL, whatever the deck)."""
        return self.TOTAL
