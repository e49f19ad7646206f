"""Types of the GPU kernels' host build (beggar/_gpu_host.pyx); gpu/engine.py makes an engine of them."""

import numpy as np

NAME: str
RING: int
TOTAL: int
HISTOGRAM: int
FIELDS: dict[str, dict[str, tuple[int, int]]]
SIZES: dict[str, int]

# The kernels, each with its kernel's arguments in order (gpu/abi.py's KERNELS), buffers as uint8 arrays.
def sample(shape: np.ndarray, seed: int, first: int, count: int, min_cards: int, cap: int, next: np.ndarray,
           lengths: np.ndarray, best: np.ndarray, hits: np.ndarray, n_hits: np.ndarray, capacity: int) -> None: ...
def census(block: np.ndarray, count: int, grab: int, threshold: int, cap: int, next: np.ndarray, cards: np.ndarray,
           tricks: np.ndarray, hits: np.ndarray, n_hits: np.ndarray, capacity: int) -> None: ...
def perturb(pool: np.ndarray, n_pool: int, total: int, ring: int, changes: int, reach: int, walk_seed: int,
            known: np.ndarray, n_known: int, first: int, count: int, cap: int, next: np.ndarray, hits: np.ndarray,
            n_hits: np.ndarray, capacity: int, cycles: np.ndarray, n_slots: int, n_cycles: np.ndarray) -> None: ...
def batch(rows: np.ndarray, splits: np.ndarray, total: int, ring: int, count: int, cap: int, next: np.ndarray,
          results: np.ndarray) -> None: ...
def climb(shape: np.ndarray, rules: np.ndarray, n_walks: int, budget: int, cap: int, walks: np.ndarray,
          history: np.ndarray, lengths: np.ndarray, hits: np.ndarray, decks: np.ndarray,
          n_hits: np.ndarray, capacity: int, next: np.ndarray) -> None: ...
def climb_accept(walk: np.ndarray, history: np.ndarray, rules: np.ndarray, total: int, status: int, winner: int,
                 cards: int, tricks: int) -> None: ...
