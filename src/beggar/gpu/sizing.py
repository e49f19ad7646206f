"""How many deals a launch of the GPU engine plays, per kernel and deck.

A launch should be long enough that its start and copies cost little, short
enough that a Ctrl-C is felt soon (a launch cannot be stopped), and hold
few enough hits that they fit its buffer: a launch whose hits overflow is
played again in parts, nearly twice the device's time. So each kernel and
deck (their games differ in length and in how many are hits) has its own
size, grown, halved and cut after an overflow as docs/gpu.md says. Only
launches of the full size are timed (the last of a call and the parts of an
overflow say little), and never the first of a key: it may include the
compile and the load of the kernels.
"""

from __future__ import annotations


class LaunchSizes:
    """The launch sizes of one backend, by key (a kernel and a deck).

    start     the size of a key's first launch
    largest   the most deals a launch plays
    capacity  the hits a launch's buffer holds
    seconds   what a launch aims to take; None: never sized by time (a
              backend that keeps its launches short itself, gpu-host):
              its launches grow back to the largest while their hits fit
    """

    def __init__(self, start, largest, capacity, seconds=None):
        self.start = min(start, largest)
        self.largest = largest
        self.capacity = capacity
        self.seconds = seconds
        self._sizes = {}
        self._timed = set()

    def size(self, key):
        """Deals the next launch of `key` plays (at most)."""
        return self._sizes.get(key, self.start)

    def record(self, key, count, seconds, n_hits):
        """A launch of `key` played `count` deals in `seconds` and found
        `n_hits` hits (more than the capacity: it overflowed)."""
        size = self.size(key)
        if n_hits > self.capacity:
            fits = max(count * self.capacity // (2 * n_hits), 1)
            # The largest power of two at most fits, within the size.
            self._sizes[key] = max(1, min(size, 1 << (fits.bit_length() - 1)))
            return
        if count != size:
            return
        if key not in self._timed:
            self._timed.add(key)
            return
        timed = self.seconds is not None
        if (not timed or 2 * seconds < self.seconds) and 4 * n_hits <= self.capacity and size < self.largest:
            self._sizes[key] = min(2 * size, self.largest)
        elif timed and seconds > 2 * self.seconds and size > 1:
            self._sizes[key] = size // 2
