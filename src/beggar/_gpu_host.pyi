"""Types of the GPU kernels' host build (beggar/_gpu_host.pyx); gpu/engine.py makes an engine of them."""

import numpy as np

NAME: str
RING: int
TOTAL: int
HISTOGRAM: int
SIZES: dict[str, int]

def sample(shape: np.ndarray, seed: int, first: int, count: int, min_cards: int, cap: int,
           lengths: np.ndarray, best: np.ndarray, hits: np.ndarray, n_hits: np.ndarray, capacity: int) -> None: ...
def census(block: np.ndarray, count: int, grab: int, threshold: int, cap: int, cards: np.ndarray,
           tricks: np.ndarray, hits: np.ndarray, n_hits: np.ndarray, capacity: int) -> None: ...
