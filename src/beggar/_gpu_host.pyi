"""Types of the GPU kernels' host build (beggar/_gpu_host.pyx); gpu/engine.py makes an engine of them."""

import numpy as np

RING: int
TOTAL: int
HISTOGRAM: int

# Whether a kernel of gpu/abi.py's KERNELS has work to do with its arguments by name, buffers as uint8 arrays.
def check(kernel: str, **given: int | np.ndarray) -> bool: ...
def climb_accept(walk: np.ndarray, history: np.ndarray, rules: np.ndarray, total: int, status: int, winner: int,
                 cards: int, tricks: int) -> None: ...
