# cython: language_level=3
"""The GPU engine's kernels on the CPU: the engine "gpu-host".

gpu/kernel.cu and the headers it includes, compiled here as host C with one
thread, so the test suite plays the GPU's own code on every machine and
holds it to the compiled engine. The kernels are exported by name for
gpu/host.py to call (docs/architecture.md, The kernels' interface described
once): Cython would write each call from its own copy of the prototype, so
what is spelled here per kernel is only what its `check` reads.
"""

from libc.stdint cimport int64_t, uint32_t, uint64_t

cdef extern from "gpu/kernel.cu" nogil:
    enum:
        BG_CODES
    # The fields read here to check a launch's arguments (the headers have them all).
    ctypedef struct bg_shape:
        int total
        int split
        int n_courts
        int ring
        int steps
        unsigned char courts[1]     # BG_TOTAL of them
    ctypedef struct bg_block:
        int total
        int first_hand
        int suffix
        int ring
        int steps
        uint64_t suffix_first
        uint64_t suffix_arrangements
        int suffix_counts[BG_CODES]
        unsigned char prefix[1]     # BG_TOTAL of them
        unsigned char target[1]
    ctypedef struct bg_hit:
        pass
    enum:
        BG_RING
        BG_TOTAL
        BG_LENGTHS_EXACT
        BG_LENGTHS_WIDTH
        BG_LENGTHS_TOP
        BG_LENGTHS_BINS
        BG_HISTOGRAM
    ctypedef struct bg_climb_rules:
        int accept
        int by_cards
        int history
        uint32_t swap_percent
        int64_t patience
        int64_t threshold
        int64_t steps
    ctypedef struct bg_climber:
        int64_t k
        int64_t stale
    ctypedef struct bg_walk:
        int64_t played
        int64_t restarts
        bg_climber climber
        int sizes[2]
        unsigned char current[1]        # BG_TOTAL of them
        unsigned char candidate[1]
    ctypedef struct bg_climb_hit:
        pass
    void bg_climb_accept(bg_walk* w, int64_t* history, const bg_climb_rules* rules, int total, int status,
                         int winner, int64_t cards, int64_t tricks)

from . import lengths
from .census import _arrangements

#: The most places in a hand's ring and the most cards of a deck this build takes.
RING = BG_RING
TOTAL = BG_TOTAL
HISTOGRAM = BG_HISTOGRAM

if (BG_LENGTHS_EXACT, BG_LENGTHS_WIDTH, BG_LENGTHS_TOP, BG_LENGTHS_BINS) != (lengths.EXACT, lengths.WIDTH,
                                                                         lengths.TOP, lengths.BINS):
    raise ImportError("beggar._gpu_host was built against another beggar.lengths")


def check(str kernel, **given):
    """Whether the kernel `kernel` has work to do with its arguments `given`
    by name (buffers as the bytes of NumPy arrays): ValueError where it would
    read or write outside its buffers or its build's sizes."""
    if kernel not in _CHECKS:
        raise ValueError(f"gpu-host: no kernel {kernel!r}")
    return _CHECKS[kernel](given)


def _check_sample(dict g):
    """bg_sample over deals first .. first+count-1 of `seed`: `shape` is one
    bg_shape, `hits` room for `capacity` bg_hit."""
    cdef const unsigned char[::1] shape = g["shape"]
    if shape.shape[0] != sizeof(bg_shape) or len(g["hits"]) < g["capacity"] * sizeof(bg_hit) \
            or len(g["lengths"]) != BG_LENGTHS_BINS * 8 or not words(g, ("next", "best", "n_hits")):
        raise ValueError("gpu-host sample: buffers of the wrong size")
    check_shape(<const bg_shape*>&shape[0])
    if g["cap"] < 1:
        raise ValueError(f"gpu-host sample: cap must be 1 or more, not {g['cap']}")
    return True


def _check_census(dict g):
    """bg_census over the first `count` deals of `block` (one bg_block);
    `hits` has room for `capacity` bg_hit."""
    cdef const unsigned char[::1] block = g["block"]
    if block.shape[0] != sizeof(bg_block) or len(g["hits"]) < g["capacity"] * sizeof(bg_hit) \
            or len(g["cards"]) != BG_HISTOGRAM * 8 or len(g["tricks"]) != BG_HISTOGRAM * 8 \
            or not words(g, ("next", "n_hits")):
        raise ValueError("gpu-host census: buffers of the wrong size")
    check_block(<const bg_block*>&block[0], g["count"])
    if g["grab"] < 1 or g["cap"] < 1:
        # A grab of 0 would take the same empty run of deals for ever.
        raise ValueError(f"gpu-host census: grab and cap must be 1 or more, not {g['grab']} and {g['cap']}")
    return True


def _check_perturb(dict g):
    """bg_perturb over tries first .. first+count-1 of a walk whose pool is
    `n_pool` rows of total + 1 bytes, `n_known` sorted hashes in `known`;
    `hits` has room for `capacity` bg_hit, `cycles` is a table of `n_slots`
    (a power of two) of two words."""
    cdef const unsigned char[::1] pool = g["pool"]
    cdef const unsigned char[::1] known = g["known"]
    cdef int n_pool = g["n_pool"], total = g["total"], n_known = g["n_known"]
    cdef uint64_t n_slots = g["n_slots"]
    if len(g["hits"]) < g["capacity"] * sizeof(bg_hit) or not words(g, ("next", "n_hits", "n_cycles")) \
            or n_known < 0 or known.shape[0] < 8 * n_known or known.shape[0] % 8 or n_slots < 1 \
            or n_slots & (n_slots - 1) or len(g["cycles"]) != 16 * n_slots:
        raise ValueError("gpu-host perturb: buffers of the wrong size")
    check_rows(pool, n_pool, total + 1, g["ring"], 1, "perturb", "pool")
    if g["changes"] < 1 or g["reach"] < 1 or g["cap"] < 1:
        raise ValueError(f"gpu-host perturb: changes, reach and cap must be 1 or more, not {g['changes']}, "
                         f"{g['reach']}, {g['cap']}")
    for i in range(n_pool):
        if not 1 <= pool[i * (total + 1)] <= total - 1:
            raise ValueError(f"gpu-host perturb: state {i} of the pool has a first hand of {pool[i * (total + 1)]} "
                             f"of {total} cards")
    cdef const uint64_t* hashes = <const uint64_t*>&known[0] if known.shape[0] else NULL
    for i in range(1, n_known):
        if hashes[i - 1] >= hashes[i]:
            raise ValueError("gpu-host perturb: the known loops' hashes are not sorted and distinct")
    return True


def _check_batch(dict g):
    """bg_batch over the `count` deals of `rows` (total cards each, the first
    hand splits[i], int32): results[i] (a bg_hit) the game of row i."""
    cdef const unsigned char[::1] splits = g["splits"]
    cdef uint64_t count = g["count"]
    cdef int total = g["total"]
    if len(g["results"]) != count * sizeof(bg_hit) or splits.shape[0] != 4 * count or not words(g, ("next",)) \
            or g["cap"] < 1:
        raise ValueError("gpu-host batch: buffers of the wrong size, or a cap below 1")
    check_rows(g["rows"], count, total, g["ring"], 0, "batch", "deal")
    cdef const int* cuts = <const int*>&splits[0] if count else NULL
    for i in range(count):
        if not 1 <= cuts[i] <= total - 1:
            raise ValueError(f"gpu-host batch: deal {i} has a first hand of {cuts[i]} of {total} cards")
    return count != 0


def _check_climb(dict g):
    """bg_climb over walks 0 .. n_walks - 1 (`walks`: bg_walk each, `history`
    and `lengths` their rows of int64 and uint32), each on by up to `budget`
    steps; `hits` has room for `capacity` bg_climb_hit, `decks` for their
    deals."""
    cdef const unsigned char[::1] shape = g["shape"]
    cdef const unsigned char[::1] rules = g["rules"]
    cdef const unsigned char[::1] walks = g["walks"]
    cdef uint64_t n_walks = g["n_walks"], capacity = g["capacity"]
    if shape.shape[0] != sizeof(bg_shape) or rules.shape[0] != sizeof(bg_climb_rules):
        raise ValueError("gpu-host climb: a shape or rules of the wrong size")
    check_shape(<const bg_shape*>&shape[0])
    cdef const bg_shape* s = <const bg_shape*>&shape[0]
    cdef const bg_climb_rules* r = <const bg_climb_rules*>&rules[0]
    if walks.shape[0] != n_walks * sizeof(bg_walk) or len(g["history"]) != 8 * n_walks * r.history \
            or len(g["lengths"]) != 4 * n_walks * BG_LENGTHS_BINS \
            or len(g["hits"]) < capacity * sizeof(bg_climb_hit) or len(g["decks"]) < capacity * s.total \
            or not words(g, ("n_hits", "next")):
        raise ValueError("gpu-host climb: buffers of the wrong size")
    if g["budget"] < 1 or g["cap"] < 1:
        raise ValueError(f"gpu-host climb: budget and cap must be 1 or more, not {g['budget']} and {g['cap']}")
    check_rules(r)
    if s.n_courts == s.total and any(s.courts[i] != s.courts[0] for i in range(s.n_courts)) == 0:
        # A swap draws until it finds two cards of different rank.
        raise ValueError("gpu-host climb: a deck of one rank of card: no swap can be drawn")
    check_walks(<const bg_walk*>&walks[0] if n_walks else NULL, n_walks, s)
    return n_walks != 0


_CHECKS = {"bg_sample": _check_sample, "bg_census": _check_census, "bg_perturb": _check_perturb,
           "bg_batch": _check_batch, "bg_climb": _check_climb}


cdef bint words(dict g, tuple names):
    """Each buffer named is one 64-bit word."""
    return all(len(g[name]) == 8 for name in names)


def climb_accept(unsigned char[::1] walk, int64_t[::1] history, const unsigned char[::1] rules, int total,
                 int status, int winner, int64_t cards, int64_t tricks):
    """climb.h's step of a walk (one bg_walk) whose candidate's game the host
    played: it ended with `status` after `cards` and `tricks` (exact)."""
    if walk.shape[0] != sizeof(bg_walk) or rules.shape[0] != sizeof(bg_climb_rules) \
            or history.shape[0] != (<const bg_climb_rules*>&rules[0]).history or not 2 <= total <= BG_TOTAL:
        raise ValueError("gpu-host climb_accept: buffers of the wrong size")
    check_rules(<const bg_climb_rules*>&rules[0])
    cdef const bg_walk* w = <const bg_walk*>&walk[0]
    if w.climber.k < 0 or w.played < 0 or w.restarts < 0 or not (1 <= w.sizes[0] <= total - 1 and w.sizes[0] + w.sizes[1] == total):
        raise ValueError("gpu-host climb_accept: a walk that has not begun, or hands that are not the deck's")
    for i in range(total):
        if w.candidate[i] > 4:
            raise ValueError(f"gpu-host climb_accept: card {i} of the walk's candidate is {w.candidate[i]}, not a code 0-4")
    bg_climb_accept(<bg_walk*>&walk[0], &history[0], <const bg_climb_rules*>&rules[0], total, status, winner, cards,
                    tricks)


cdef int check_rules(const bg_climb_rules* r) except -1:
    """The climber's rules as the kernels play them (anneal is the host's)."""
    if r.accept not in (0, 1, 3) or r.by_cards not in (0, 1) or not 1 <= r.history <= 100000 \
            or r.swap_percent > 100 or r.patience < 1 or r.threshold < 0 or r.steps < 0:
        raise ValueError(f"gpu-host climb: rules it does not play (accept {r.accept}, history {r.history}, "
                         f"swap_percent {r.swap_percent}, patience {r.patience}, threshold {r.threshold}, "
                         f"steps {r.steps}; anneal is the host's)")
    return 0


cdef int check_walks(const bg_walk* walks, uint64_t n, const bg_shape* s) except -1:
    """Walks that the kernels can take on: begun ones hold the shape's deck in
    hands of its size (a mutation of a deck without a court card, or of one
    card, would draw for ever), fresh ones have played nothing."""
    cdef uint64_t i
    cdef int k, total = s.total
    cdef int counts[BG_CODES]
    cdef int want[BG_CODES]
    cdef const bg_walk* w
    for k in range(BG_CODES):
        want[k] = 0
    want[0] = total - s.n_courts
    for k in range(s.n_courts):
        want[s.courts[k]] += 1
    for i in range(n):
        w = walks + i
        if w.restarts < -1 or w.played < 0 or w.climber.k < 0 or w.climber.stale < 0:
            raise ValueError(f"gpu-host climb: walk {i} has counts below 0")
        if w.restarts < 0:
            if w.played:
                raise ValueError(f"gpu-host climb: walk {i} has played {w.played} deals and never begun")
            continue
        if not (1 <= w.sizes[0] <= total - 1 and w.sizes[0] + w.sizes[1] == total):
            raise ValueError(f"gpu-host climb: walk {i}'s hands of {w.sizes[0]} and {w.sizes[1]} cards are not "
                             f"a deal of {total}")
        for k in range(BG_CODES):
            counts[k] = 0
        for k in range(total):
            if w.current[k] > 4:
                raise ValueError(f"gpu-host climb: card {k} of walk {i} is {w.current[k]}, not a code 0-4")
            counts[w.current[k]] += 1
        for k in range(BG_CODES):
            if counts[k] != want[k]:
                raise ValueError(f"gpu-host climb: walk {i} does not hold the shape's cards")
    return 0


cdef int check_rows(const unsigned char[::1] rows, Py_ssize_t n, int stride, int ring, int skip, str kernel,
                    str what) except -1:
    """Rows of `stride` bytes (the first `skip` of them not cards): n of them,
    every card a code, at least one row, their court cards within the ring."""
    cdef Py_ssize_t i
    cdef int k, courts, total = stride - skip
    if not 2 <= total <= BG_TOTAL or n < 0 or rows.shape[0] != n * stride or (kernel == "perturb" and n < 1):
        raise ValueError(f"gpu-host {kernel}: {n} {what}s of {total} cards in {rows.shape[0]} bytes: not a "
                         f"launch this build plays (at most {BG_TOTAL} cards)")
    for i in range(n):
        courts = 0
        for k in range(skip, stride):
            if rows[i * stride + k] > 4:
                raise ValueError(f"gpu-host {kernel}: card {k - skip} of {what} {i} is {rows[i * stride + k]}, "
                                 "not a code 0-4")
            courts += rows[i * stride + k] != 0
        if not ring_fits(ring, courts) or (skip and not courts):
            # A state of the pool with no court card would make a change that
            # moves one look for it for ever.
            raise ValueError(f"gpu-host {kernel}: ring {ring} for {what} {i}'s {courts} court cards")
    return 0


# A launch's shape or block is made by gpu/engine.py from a checked deck; one
# made otherwise is checked here before the kernel reads by it: every size
# within the build's arrays, every card a code, a ring a power of two.

cdef bint ring_fits(int ring, int courts) noexcept:
    return 2 <= ring <= BG_RING and ring & (ring - 1) == 0 and courts + 1 <= ring


cdef int check_shape(const bg_shape* s) except -1:
    cdef int i
    if not 2 <= s.total <= BG_TOTAL or not 1 <= s.n_courts <= s.total or not ring_fits(s.ring, s.n_courts) \
            or not (s.split in (0, -1) or 1 <= s.split <= s.total - 1) or not 1 <= s.steps <= 1024:
        raise ValueError(f"gpu-host sample: a shape of {s.total} cards, {s.n_courts} court cards, ring {s.ring}, "
                         f"split {s.split}, steps {s.steps}: not one this build plays (at most {BG_TOTAL} cards, "
                         f"ring {BG_RING}, 1 to 1024 steps)")
    for i in range(s.n_courts):
        if not 1 <= s.courts[i] <= 4:
            raise ValueError(f"gpu-host sample: court card {i} of the shape is {s.courts[i]}, not a code 1-4")
    return 0


cdef int check_block(const bg_block* b, uint64_t count) except -1:
    cdef int i, courts = 0
    if not 2 <= b.total <= BG_TOTAL or not 1 <= b.first_hand <= b.total - 1 or not 0 <= b.suffix <= b.total \
            or not 1 <= b.steps <= 1024:
        raise ValueError(f"gpu-host census: a block of {b.total} cards, first hand {b.first_hand}, suffix "
                         f"{b.suffix}, steps {b.steps}: not one this build plays (at most {BG_TOTAL} cards, "
                         "1 to 1024 steps)")
    for i in range(BG_CODES):
        if b.suffix_counts[i] < 0:
            raise ValueError(f"gpu-host census: the block's suffix counts {b.suffix_counts[i]} cards of code {i}")
        courts += b.suffix_counts[i] if i else 0
    if sum(b.suffix_counts[i] for i in range(BG_CODES)) != b.suffix:
        raise ValueError(f"gpu-host census: the block's suffix counts {[b.suffix_counts[i] for i in range(BG_CODES)]} "
                         f"are not its {b.suffix} cards")
    # The device unranks within the suffix's arrangements: their number
    # must be the suffix counts', and the block's deals among them.
    arrangements = _arrangements([b.suffix_counts[i] for i in range(BG_CODES)])
    if b.suffix_arrangements != arrangements or arrangements >= 2 ** 63 \
            or b.suffix_first + count > arrangements:
        raise ValueError(f"gpu-host census: deals {b.suffix_first} .. {b.suffix_first + count} of a suffix of "
                         f"{b.suffix_arrangements} arrangements (its counts have {arrangements}; fewer than 2^63)")
    for i in range(b.total - b.suffix):
        if b.prefix[i] > 4:
            raise ValueError(f"gpu-host census: card {i} of the block's prefix is {b.prefix[i]}, not a code 0-4")
        courts += b.prefix[i] != 0
    places = set()
    for i in range(b.total):
        if b.target[i] >= b.total or b.target[i] in places:
            raise ValueError(f"gpu-host census: card {i} goes to place {b.target[i]} of a deal of {b.total}, "
                             "not a place of its own")
        places.add(b.target[i])
    if not ring_fits(b.ring, courts):
        raise ValueError(f"gpu-host census: ring {b.ring} for {courts} court cards: not a power of two "
                         f"from {courts + 1} to {BG_RING}")
    return 0
