"""Several devices as one backend (docs/gpu.md, Several GPUs): the parts of a
launch, played at once (a thread each), put together as one launch's results,
their offsets moved by where each part begins; a part whose hits overflowed its
buffer makes the whole launch an overflow (the engine plays it again in parts).
"""

from __future__ import annotations

import threading
import time

import numpy as np

from . import abi
from .abi import CLIMB_HIT, HIT
from .launch import TRIED, close_quietly

#: A part shorter than this is not timed: its pace says little.
TIMED_DEALS = 1 << 16


class Several:
    """`backends` (each a device's) as one backend."""

    def __init__(self, backends):
        self.backends = list(backends)
        first = self.backends[0]
        self.RING = min(backend.RING for backend in self.backends)
        self.TOTAL = min(backend.TOTAL for backend in self.backends)
        self.HISTOGRAM = first.HISTOGRAM
        self.SECONDS = first.SECONDS
        for name in ("CAPACITY", "LAUNCH", "LARGEST", "CLIMB_WALKS"):     # the devices' sums
            setattr(self, name, sum(getattr(backend, name) for backend in self.backends))
        # Deals a second of each device, as its launches have kept (None: not yet known).
        self.paces = [None] * len(self.backends)

    def _cut(self, count):
        """[(offset, deals)] of each device's part of a launch of `count` deals."""
        known = [pace for pace in self.paces if pace]
        weights = [pace or (sum(known) / len(known) if known else 1.0) for pace in self.paces]
        total = sum(weights)
        edges = [0]
        for weight in weights[:-1]:
            edges.append(edges[-1] + int(count * weight / total))
        edges.append(count)
        return [(a, b - a) for a, b in zip(edges, edges[1:])]

    def _each(self, play, count):
        """Play `play(backend, offset, deals)` for every device's part at once:
        [(offset, deals, its result)]. The first failure is raised once all have ended."""
        parts = self._cut(count)
        results = [None] * len(parts)
        errors = []

        def run(k):
            offset, deals = parts[k]
            start = time.perf_counter()
            try:
                results[k] = play(self.backends[k], offset, deals) if deals else None
            except BaseException as error:      # raised again in the caller's thread
                errors.append(error)
                return
            seconds = time.perf_counter() - start
            if deals >= TIMED_DEALS and seconds > 0:
                pace = deals / seconds
                self.paces[k] = pace if self.paces[k] is None else (self.paces[k] + pace) / 2

        threads = [threading.Thread(target=run, args=(k,)) for k in range(1, len(parts))]
        for thread in threads:
            thread.start()
        run(0)
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]
        return [(offset, deals, result) for (offset, deals), result in zip(parts, results) if deals]

    def _hits(self, played):
        """The parts' hits as one launch's (offsets moved), or an overflow."""
        n_hits = sum(result[1] for _, _, result in played)
        hits = np.zeros(self.CAPACITY, HIT)
        if any(result[1] > len(result[0]) for _, _, result in played):
            return hits, max(n_hits, self.CAPACITY + 1)
        at = 0
        for offset, _, (part, n) in played:
            hits[at:at + n] = part[:n]
            hits["offset"][at:at + n] += np.uint64(offset)
            at += n
        return hits, n_hits

    def sample(self, shape, seed, first, count, min_cards, cap, counts, best):
        def play(backend, offset, deals):
            part_counts, part_best = np.zeros_like(counts), np.zeros(1, np.uint64)
            hits = backend.sample(shape, seed, first + offset, deals, min_cards, cap, part_counts, part_best)
            return hits, part_counts, part_best

        played = self._each(play, count)
        counts[:] = sum(part_counts for _, _, (_, part_counts, _) in played)
        best[0] = 0
        low = (1 << 40) - 1
        for offset, _, (_, _, part_best) in played:
            key = int(part_best[0])
            if key:
                # bg_best_key: cards above the complement of the offset in the part.
                index = offset + low - (key & low)
                best[0] = max(int(best[0]), (key >> 40) << 40 | (low - index))
        return self._hits([(offset, deals, hits) for offset, deals, (hits, _, _) in played])

    def census(self, block, count, threshold, cap, cards, tricks):
        base = int(block.view(abi.block(self.TOTAL))["suffix_first"][0])

        def play(backend, offset, deals):
            part = block.copy()
            part.view(abi.block(self.TOTAL))["suffix_first"] = base + offset
            part_cards, part_tricks = np.zeros_like(cards), np.zeros_like(tricks)
            hits = backend.census(part, deals, threshold, cap, part_cards, part_tricks)
            return hits, part_cards, part_tricks

        played = self._each(play, count)
        cards[:] = sum(part_cards for _, _, (_, part_cards, _) in played)
        tricks[:] = sum(part_tricks for _, _, (_, _, part_tricks) in played)
        return self._hits([(offset, deals, hits) for offset, deals, (hits, _, _) in played])

    def perturb(self, pool, n_pool, total, ring, changes, reach, walk_seed, known, first, count, cap):
        def play(backend, offset, deals):
            return backend.perturb(pool, n_pool, total, ring, changes, reach, walk_seed, known, first + offset,
                                   deals, cap)
        played = self._each(play, count)
        if any(n > len(tried) for _, _, (tried, n) in played):
            return np.zeros(self.CAPACITY, TRIED), max(self.CAPACITY + 1, *(n for _, _, (_, n) in played))
        parts = []
        for offset, _, (tried, _) in played:
            tried = tried.copy()
            tried["offset"] += np.uint64(offset)
            parts.append(tried)
        tried = np.concatenate(parts)
        return tried, len(tried)

    def batch(self, rows, splits, total, ring, cap):
        results = np.zeros(len(splits), HIT)

        def play(backend, offset, deals):
            return backend.batch(rows[offset * total:(offset + deals) * total], splits[offset:offset + deals],
                                 total, ring, cap)
        for offset, deals, part in self._each(play, len(splits)):
            results[offset:offset + deals] = part
            results["offset"][offset:offset + deals] += np.uint64(offset)
        return results

    def climb(self, shape, rules, walks, history, counted, budget, cap):
        rows = (walks, history.reshape(len(walks), -1), counted.reshape(len(walks), -1))     # a row a walk

        def play(backend, offset, count):
            mine = [array[offset:offset + count].copy() for array in rows]
            return mine, *backend.climb(shape, rules, *(array.reshape(-1) for array in mine), budget, cap)

        hits_all, decks_all = [], []
        for offset, count, (mine, hits, decks, n_hits) in self._each(play, len(walks)):
            for array, held in zip(rows, mine):
                array[offset:offset + count] = held
            kept = min(n_hits, len(hits))
            part = hits[:kept].copy()
            part["walk"] += np.uint64(offset)
            hits_all.append(part)
            decks_all.append(decks[:kept])
        hits = np.concatenate(hits_all) if hits_all else np.zeros(0, CLIMB_HIT)
        decks = np.concatenate(decks_all) if decks_all else np.zeros((0, int(shape.view(np.int32)[0])), np.uint8)
        return hits, decks, len(hits)

    def walk_cards(self, total):
        return self.backends[0].walk_cards(total)

    def close(self):
        for backend in self.backends:
            close_quietly(backend)

