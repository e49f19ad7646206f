"""The kernels' launches on the CPU, through beggar._gpu_host: the backend of "gpu-host".

A launch is the kernel run by one thread over the whole range, its device
memory NumPy arrays; launches are short (LAUNCH deals) so that a Ctrl-C is
felt between them. A kernel is called by the name the host build exports,
with the arguments abi.py describes (ctypes), once the host build has
checked them.
"""

import ctypes
import functools
import operator
import os

import numpy as np

from .abi import IN, KERNELS, VALUE, VALUES
from .launch import Memory


def launch(kernel, **given):
    """The kernel `kernel` (of abi.KERNELS) of the host build over its
    arguments `given` by name, a buffer as a uint8 NumPy array, on this
    thread with the GIL released: each value held to its C type, each
    buffer to its layout, then the whole to beggar._gpu_host.check."""
    from .. import _gpu_host
    if kernel not in KERNELS:
        raise ValueError(f"gpu-host: no kernel {kernel!r}")
    described = KERNELS[kernel]
    if set(given) != {name for name, _, _ in described}:
        raise TypeError(f"gpu-host {kernel}: takes {', '.join(name for name, _, _ in described)}")
    arguments = [_value(given[name], ctype) if how == VALUE else _buffer(given[name], how != IN, kernel, name)
                 for name, how, ctype in described]
    if _gpu_host.check(kernel, **given):
        getattr(_library(), kernel)(*arguments)


def _value(value, ctype):
    value, limits = operator.index(value), np.iinfo(VALUES[ctype])
    if not limits.min <= value <= limits.max:
        raise OverflowError(f"gpu-host: {value} is not a {ctype}")
    return np.ctypeslib.as_ctypes_type(VALUES[ctype])(int(value))


def _buffer(array, written, kernel, name):
    if not isinstance(array, np.ndarray) or array.dtype != np.uint8 or array.ndim != 1 \
            or not array.flags.c_contiguous or (written and not array.flags.writeable):
        raise ValueError(f"gpu-host {kernel}: {name} must be one row of bytes" + (", writable" if written else ""))
    return ctypes.c_void_p(array.ctypes.data if array.size else None)


@functools.lru_cache(maxsize=None)
def _library():
    """The host build as a library: its kernels by name (vendor.h's BG_KERNEL on the host)."""
    from .. import _gpu_host
    return ctypes.CDLL(_gpu_host.__file__)


class HostBackend(Memory):
    """gpu/engine.py's backend on the CPU. `capacity` below `launch` is for
    the tests of a buffer that overflows."""

    gpu = False

    def __init__(self, launch=1 << 16, capacity=1 << 16, climb_walks=16):
        from .. import _gpu_host
        self._memory = {}
        self.RING = _gpu_host.RING
        self.TOTAL = _gpu_host.TOTAL
        self.HISTOGRAM = _gpu_host.HISTOGRAM
        # Launches of one size, never grown (gpu/sizing.py shrinks them
        # after an overflow): short, so that a Ctrl-C is felt between them.
        self.LAUNCH = self.LARGEST = launch
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
        launch(kernel, **{name: value for (name, _, _), (value, _) in zip(KERNELS[kernel], arguments)})

    def close(self):
        self.closed = True
        self._memory.clear()


# ---------------------------------------------------------------- the kind's devices (gpu.Kind)

def count():
    """gpu-host's devices: the machine's cores (a launch is one thread)."""
    return os.cpu_count() or 1


def default():
    return 0


def usable(numbers):
    """Every core runs the kernels; none is a GPU."""
    return False


def open_device(number):
    return HostBackend()
