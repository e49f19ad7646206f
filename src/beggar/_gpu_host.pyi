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
def perturb(pool: np.ndarray, n_pool: int, total: int, ring: int, changes: int, reach: int, walk_seed: int,
            known: np.ndarray, first: int, count: int, cap: int, hits: np.ndarray, n_hits: np.ndarray,
            capacity: int) -> None: ...
def batch(rows: np.ndarray, splits: np.ndarray, total: int, ring: int, cap: int, results: np.ndarray) -> None: ...
def climb(shape: np.ndarray, rules: np.ndarray, n_walks: int, budget: int, cap: int, walks: np.ndarray,
          history: np.ndarray, lengths: np.ndarray, hits: np.ndarray, decks: np.ndarray, n_hits: np.ndarray,
          capacity: int) -> None: ...
def climb_accept(walk: np.ndarray, history: np.ndarray, rules: np.ndarray, total: int, status: int, winner: int,
                 cards: int, tricks: int) -> None: ...
