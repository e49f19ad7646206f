"""The kernels' launches on the CPU, through beggar._gpu_host: the backend of "gpu-host".

A launch is the kernel run by one thread over the whole range, its device
memory NumPy arrays; launches are short (LAUNCH deals) so that a Ctrl-C is
felt between them.
"""

import os

from .abi import KERNELS
from .launch import Memory


class HostBackend(Memory):
    """gpu/engine.py's backend on the CPU. `capacity` below `launch` is for
    the tests of a buffer that overflows."""

    gpu = False

    def __init__(self, launch=1 << 16, capacity=1 << 16, climb_walks=16):
        from .. import _gpu_host
        self._kernels = _gpu_host
        self._memory = {}
        self.closed = False
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

    def census_grab(self, count):
        # One thread: the whole range is one run of arrangements, unranked once.
        return max(count, 1)

    def walk_cards(self, total):
        """The cards of a walk's arrays in this build (its BG_TOTAL, whatever the deck)."""
        return self.TOTAL

    def _launch(self, kernel, variant, arguments):
        self._kernels.launch(kernel, **{name: value for (name, _, _), (value, _) in zip(KERNELS[kernel], arguments)})

    def close(self):
        self.closed = True
        self._memory.clear()


# ---------------------------------------------------------------- the kind's devices (gpu.Kind)

def count():
    """gpu-host's devices: the machine's cores (a launch is one thread)."""
    return os.cpu_count() or 1


def default():
    return 0


def gpus():
    """None of its devices is a GPU."""
    return []


def usable(numbers):
    """Every core runs the kernels; none is a GPU."""
    return False


def open_device(number):
    return HostBackend()
