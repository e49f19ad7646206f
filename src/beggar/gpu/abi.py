"""The kernels' interface with the host, described once: the structs they
share with it as NumPy dtypes, and each kernel's arguments in kernel.cu's
order, from which launch.Backend.run marshals every backend's launches. The
C is held to it field by field, not to a second copy (docs/architecture.md
says how tests/test_gpu_launch.py does it).
"""

from __future__ import annotations

import numpy as np

from ..cards import CODES

i32, u32, i64, u64, u8 = "<i4", "<u4", "<i8", "<u8", "u1"


def _struct(*fields):
    return np.dtype(list(fields), align=True)


#: game.h's bg_hit: a game the device hands to the host.
HIT = _struct(("offset", u64), ("cards", i64), ("tricks", i64), ("status", i32), ("winner", i32))
#: climb.h's bg_climb_rules.
CLIMB_RULES = _struct(("accept", i32), ("by_cards", i32), ("history", i32), ("swap_percent", u32),
                      ("patience", i64), ("threshold", i64), ("steps", i64))
#: kernel.cu's bg_climb_hit: a walk's long game.
CLIMB_HIT = _struct(("walk", u64), ("step", i64), ("cards", i64), ("tricks", i64), ("status", i32),
                    ("winner", i32), ("first", i32))
#: climb.h's bg_climber, within a bg_walk.
CLIMBER = _struct(("k", i64), ("stale", i64), ("current_value", i64), ("walk_best", i64))


def shape(total):
    """game.h's bg_shape for a build with BG_TOTAL = total."""
    return _struct(("total", i32), ("split", i32), ("n_courts", i32), ("ring", i32), ("steps", i32),
                   ("courts", u8, total))


def block(total):
    """census.h's bg_block for a build with BG_TOTAL = total."""
    return _struct(("total", i32), ("first_hand", i32), ("suffix", i32), ("ring", i32), ("steps", i32),
                   ("suffix_first", u64), ("suffix_arrangements", u64), ("suffix_counts", i32, CODES),
                   ("prefix", u8, total), ("target", u8, total))


def walk(cards):
    """climb.h's bg_walk for a build with BG_CARDS = cards."""
    return _struct(("rng", u64), ("played", i64), ("restarts", i64), ("climber", CLIMBER), ("best_value", i64),
                   ("best_cards", i64), ("best_tricks", i64), ("best_status", i32), ("best_winner", i32),
                   ("sizes", i32, 2), ("best_sizes", i32, 2), ("fresh", i32), ("waiting", i32), ("lost", i32),
                   ("current", u8, cards), ("candidate", u8, cards), ("best", u8, cards))


#: How an argument travels: a value (by its NumPy type), or a buffer:
VALUE = "value"
IN = "in"           # copied to the device before the launch
INOUT = "inout"     # copied to the device, and back after it
ZEROS = "zeros"     # zeroed on the device, copied back after the launch
ROOM = "room"       # one row a hit, left as it is: the rows of the hits found (n_hits) copied back

#: The C types of values, as the kernels' prototypes spell them, and their NumPy types.
VALUES = {"int": np.int32, "bg_u64": np.uint64, "bg_i64": np.int64}


def _arguments(text):
    """(name, how, C type) of each argument of a kernel, from `how type name`
    (a value's how left out), comma-separated."""
    found = []
    for argument in text.split(","):
        *how, ctype, name = argument.split()
        found.append((name, how[0] if how else VALUE, ctype))
    return tuple(found)


#: Each kernel's arguments, in kernel.cu's order: (name, how it travels, its C
#: type: a value's, or a buffer's element). One line a kernel's argument is
#: all a new one needs here.
KERNELS = {name: _arguments(text) for name, text in {
    "bg_sample": "in bg_shape shape, bg_u64 seed, bg_u64 first, bg_u64 count, bg_i64 min_cards, bg_i64 cap, "
                 "zeros bg_u64 next, zeros bg_u64 lengths, zeros bg_u64 best, room bg_hit hits, "
                 "zeros bg_u64 n_hits, bg_u64 capacity",
    "bg_census": "in bg_block block, bg_u64 count, bg_u64 grab, bg_i64 threshold, bg_i64 cap, zeros bg_u64 next, "
                 "zeros bg_u64 cards, zeros bg_u64 tricks, room bg_hit hits, zeros bg_u64 n_hits, bg_u64 capacity",
    "bg_perturb": "in bg_u8 pool, int n_pool, int total, int ring, int changes, int reach, bg_u64 walk_seed, "
                  "in bg_u64 known, int n_known, bg_u64 first, bg_u64 count, bg_i64 cap, zeros bg_u64 next, "
                  "room bg_hit hits, zeros bg_u64 n_hits, bg_u64 capacity, zeros bg_u64 cycles, bg_u64 n_slots, "
                  "zeros bg_u64 n_cycles",
    "bg_batch": "in bg_u8 rows, in int splits, int total, int ring, bg_u64 count, bg_i64 cap, zeros bg_u64 next, "
                "zeros bg_hit results",
    "bg_climb": "in bg_shape shape, in bg_climb_rules rules, bg_u64 n_walks, bg_i64 budget, bg_i64 cap, "
                "inout bg_walk walks, inout bg_i64 history, inout bg_u32 lengths, room bg_climb_hit hits, "
                "room bg_u8 decks, zeros bg_u64 n_hits, bg_u64 capacity, zeros bg_u64 next",
}.items()}
