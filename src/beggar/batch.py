"""The many-deals interface both engines share: argument checks and the result array.

A batch result is a NumPy structured array, one row per deal. status codes
follow outcome.STATUSES; -1 stands for None (no winner, no loop).
"""

import numpy as np

from .deal import MAX_CARDS
from .outcome import STATUSES, Outcome

BATCH_DTYPE = np.dtype([
    ("status", np.int8), ("winner", np.int8),
    ("cards", np.int64), ("tricks", np.int64),
    ("count0", np.int32), ("count1", np.int32),
    ("entry_tricks", np.int64), ("entry_cards", np.int64),
    ("period_tricks", np.int64), ("period_cards", np.int64),
])


def batch_array(n):
    return np.zeros(n, dtype=BATCH_DTYPE)


def store_row(out, i, outcome):
    """Write one two-player Outcome into row i of a batch result."""
    entry = outcome.loop_entry or (-1, -1)
    period = outcome.loop_period or (-1, -1)
    out[i] = (STATUSES.index(outcome.status), -1 if outcome.winner is None else outcome.winner,
              outcome.cards, outcome.tricks, outcome.counts[0], outcome.counts[1],
              entry[0], entry[1], period[0], period[1])


def row_outcome(row, engine=None):
    """The Outcome that one row of a batch result stands for."""
    status = STATUSES[int(row["status"])]
    loop = status == "loop"
    return Outcome(
        status, None if row["winner"] < 0 else int(row["winner"]),
        int(row["cards"]), int(row["tricks"]), (int(row["count0"]), int(row["count1"])),
        (int(row["entry_tricks"]), int(row["entry_cards"])) if loop else None,
        (int(row["period_tricks"]), int(row["period_cards"])) if loop else None,
        engine=engine)


def check_batch(decks, split):
    """Validate a batch; return (uint8 C-contiguous decks, int64 splits).
    ValueError for anything but a 2-d array of integer codes 0-4, each row a
    deal of 2 to MAX_CARDS cards, and splits that leave both hands a card."""
    try:
        decks = np.asarray(decks)
    except ValueError:          # rows of different lengths
        raise ValueError("decks must be a 2-d array of card codes 0-4, one row a deal, all rows as long") from None
    if decks.ndim != 2 or decks.shape[1] < 2:
        raise ValueError(f"decks must be a 2-d array with at least 2 cards a row, not shape {decks.shape}")
    if decks.dtype.kind not in "iu":
        raise ValueError(f"decks hold card codes 0-4 as integers, not {decks.dtype}")
    if decks.shape[1] > MAX_CARDS:
        raise ValueError(f"a deal holds at most {MAX_CARDS} cards, not {decks.shape[1]}")
    if decks.size and (decks.min() < 0 or decks.max() > 4):
        raise ValueError("decks hold card codes 0-4 only")
    total = decks.shape[1]
    if split is None:
        split = total // 2
    try:
        splits = np.asarray(split)
    except ValueError:
        raise ValueError("split must be a whole number or one whole number a deal") from None
    if splits.dtype.kind not in "iu" or splits.ndim > 1 or (splits.ndim == 1 and len(splits) != len(decks)):
        raise ValueError(f"split must be a whole number or one whole number a deal ({len(decks)} of them), "
                         f"not {'an array of shape ' + str(splits.shape) if splits.ndim else repr(split)}")
    splits = np.broadcast_to(splits, (len(decks),))
    if splits.size and (splits.min() < 1 or splits.max() > total - 1):
        raise ValueError(f"split must leave both hands at least one card (1 to {total - 1})")
    return np.ascontiguousarray(decks, dtype=np.uint8), np.ascontiguousarray(splits, dtype=np.int64)
