# cython: language_level=3
"""The compiled engine: its Python API, the engine contract of engine.py.

Same functions, signatures, exceptions and results as `beggar.reference`. The
game itself (buffers, tricks, one game, loop keys, random deals) is
`_game.pyx`; backward play is in `_backward.pyx`, the random stream in
`_random.pxd`. Here: one game, a batch, a sample of random deals with its
length histogram (two-player deals 16 at a time in AVX-512 lanes, c/lanes.h,
where the processor has them), and hill climbing, each playing without the
GIL. The length bins and the climber's step are the C the kernels use too
(c/lengths.h, c/climb.h).
"""

from libc.stdint cimport INT64_MAX, int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.math cimport exp
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

from cpython.exc cimport PyErr_CheckSignals

from ._game cimport (CHUNK, FINISHED, LOOP, MAX_DECK, MAX_PLAYERS, Result, Shape, Work, deal_random, deck_from,
                     game_load, hands_of, play_game, shape_init, to_outcome, work_free, work_init)
from ._random cimport below, next32, stream_start


cdef extern from "c/lengths.h" nogil:
    enum:
        LENGTHS_EXACT "BG_LENGTHS_EXACT"
        LENGTHS_WIDTH "BG_LENGTHS_WIDTH"
        LENGTHS_TOP "BG_LENGTHS_TOP"
        LENGTHS_BINS "BG_LENGTHS_BINS"
    # The bin of lengths.py a game of `cards` cards is counted in.
    int length_bin "bg_length_bin" (int64_t cards)


cdef extern from "c/lanes.h" nogil:
    enum:
        LANES "BG_LANES"
        LANE_COURTS "BG_LANE_COURTS"
    ctypedef struct bg_lanes:
        int32_t leader[LANES]
        int32_t cards[LANES]
        int32_t tricks[LANES]
    void lanes_load "bg_lanes_load" (bg_lanes* L, int l, const uint32_t* hand0, int n0, const uint32_t* hand1, int n1)
    bint lanes_usable "bg_lanes_usable" ()
    # One trick in every lane: the lanes whose game is finished; *past, those at `limit` tricks.
    uint16_t lanes_trick "bg_lanes_trick" (bg_lanes* L, int32_t limit, uint16_t* past)

cdef extern from *:
    int __builtin_ctz(unsigned int) nogil


cdef extern from "c/climb.h" nogil:
    enum:
        # Positions in climbing.ACCEPTS, and climbing.SECONDARY_BITS.
        ACCEPT_STRICT "BG_STRICT"
        ACCEPT_ANNEAL "BG_ANNEAL"
        ACCEPT_LATE "BG_LATE"
        FITNESS_SHIFT "BG_FITNESS_SHIFT"
    int64_t fitness "bg_fitness" (int by_cards, int64_t cards, int64_t tricks)
    int propose "bg_propose" (uint8_t* candidate, const uint8_t* current, int total, int64_t* restarts,
                              int64_t stale, int64_t patience, uint64_t* rng, uint32_t swap_percent)
    # A walk between its steps, as its rule of acceptance reads it.
    ctypedef struct bg_climber:
        int64_t k
        int64_t stale
        int64_t current_value
        int64_t walk_best
    void climber_start "bg_climber_start" (bg_climber* c, int64_t* history, int size, int64_t value)
    # 1 taken, 0 not; -1: anneal's verdict on a worse candidate, its caller's draw.
    int climber_verdict "bg_climber_verdict" (bg_climber* c, int accept, const int64_t* history, int size,
                                              int64_t value)
    void climber_settle "bg_climber_settle" (bg_climber* c, int accept, int64_t* history, int size, int64_t value,
                                             bint taken)

import os

from ._backward import backward, backward_to, predecessors       # the engine's backward half
from .checks import whole
from .climbing import ACCEPTS, SECONDARY_BITS, Climb, check_climb
from .deal import MAX_CARDS, check_hands, check_play
from .decks import STANDARD, Deck, check_table
from . import lengths
from ._game import NAME
from .rules import Rules
from .shuffle import check_sample, check_seed

if FITNESS_SHIFT != SECONDARY_BITS or ACCEPTS[ACCEPT_LATE] != "late" or ACCEPTS[ACCEPT_ANNEAL] != "anneal" \
        or ACCEPTS[ACCEPT_STRICT] != "strict":
    raise ImportError("beggar._engine was built against another beggar.climbing")
if (LENGTHS_EXACT, LENGTHS_WIDTH, LENGTHS_TOP, LENGTHS_BINS) != (lengths.EXACT, lengths.WIDTH, lengths.TOP,
                                                                 lengths.BINS):
    raise ImportError("beggar._engine was built against another beggar.lengths")

cdef Py_ssize_t DEAL_CARDS = MAX_CARDS     # deal.MAX_CARDS, for C


cdef void add_counts(int64_t* counts, uint32_t* batch) noexcept nogil:
    """Add a batch's 32-bit counts (half the cache of 64-bit ones, in the hot
    loop) to the totals, and clear them."""
    cdef int i
    for i in range(LENGTHS_BINS):
        counts[i] += batch[i]
    memset(batch, 0, LENGTHS_BINS * sizeof(uint32_t))


cdef object lengths_of(const int64_t* counts):
    return lengths.Lengths(tuple(counts[i] for i in range(LENGTHS_BINS)))


cdef packed struct Row:
    # One row of batch.BATCH_DTYPE.
    int8_t status
    int8_t winner
    int64_t cards
    int64_t tricks
    int32_t count0
    int32_t count1
    int64_t entry_tricks
    int64_t entry_cards
    int64_t period_tricks
    int64_t period_cards


# ---------------------------------------------------------------- Python API

cdef int64_t limit(value):
    return INT64_MAX if value is None else value


def play(deal, rules=Rules()):
    """Play one deal under `rules` and return its Outcome."""
    check_play(deal, rules)
    # A Deal holds 2-4 hands of codes 0-4 within MAX_CARDS (deal.py checks
    # it when one is made, and it cannot be changed); one forged past that
    # stops here, before C sizes its buffers by it.
    hands = deal.hands
    cdef Py_ssize_t total = loadable(hands)
    if total < 0:
        hands = check_hands(hands)      # DealError saying what is wrong, or the hands as a Deal holds them
        total = loadable(hands)
    cdef Work w
    cdef Result r
    cdef int p, offset = 0, players = len(hands)
    cdef int64_t max_cards = limit(rules.max_cards), max_tricks = limit(rules.max_tricks)
    cdef bint detect_loops = rules.detect_loops
    if work_init(&w, players, <int>total, rules.lay_on) != 0:
        raise MemoryError()
    try:
        for p, hand in enumerate(hands):
            w.hand_sizes[p] = len(hand)
            for card in hand:
                w.deal[offset] = card
                offset += 1
        with nogil:
            game_load(&w.game, w.deal, w.hand_sizes)
            play_game(&w, max_cards, max_tricks, detect_loops, &r)
        return to_outcome(&r, players)
    finally:
        work_free(&w)


cdef Py_ssize_t loadable(hands):
    """The cards of `hands` when they are as a Deal holds them (deal.check_hands:
    2-4 tuples of ints 0-4, the first and one more holding a card, at most
    MAX_CARDS cards), else -1. In C, so that a checked Deal costs nearly nothing."""
    cdef Py_ssize_t total = 0, p, n
    cdef long code
    cdef bint others = False
    if type(hands) is not tuple or not 2 <= len(hands) <= MAX_PLAYERS:
        return -1
    for p in range(len(hands)):
        hand = hands[p]
        if type(hand) is not tuple:
            return -1
        n = len(hand)
        if n == 0 and p == 0:
            return -1
        others |= n > 0 and p > 0
        for card in hand:
            if type(card) is not int:
                return -1
            try:
                code = card
            except OverflowError:
                return -1
            if code < 0 or code > 4:
                return -1
        total += n
        if total > DEAL_CARDS:
            return -1
    return total if others else -1


def play_batch(decks, split=None, rules=Rules()):
    """Play many two-player deals given as rows of card codes.

    decks: uint8 array (n, total) of codes 0-4. split: cards in the first
    hand, an int or an array of n ints (default total // 2). Returns the
    structured array of batch.BATCH_DTYPE, one row per deal.
    """
    from .batch import batch_array, check_batch     # NumPy only where batches are used
    decks, splits = check_batch(decks, split)
    out = batch_array(len(decks))
    cdef const uint8_t[:, ::1] rows = decks
    cdef const int64_t[::1] cut = splits
    cdef Row[::1] result = out
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef int total = rows.shape[1]
    cdef int64_t max_cards = limit(rules.max_cards), max_tricks = limit(rules.max_tricks)
    cdef bint detect_loops = rules.detect_loops
    cdef Work w
    cdef Result r
    if n == 0:
        return out
    if work_init(&w, 2, total, rules.lay_on) != 0:
        raise MemoryError()
    try:
        with nogil:
            for i in range(n):
                memcpy(w.deal, &rows[i, 0], total)
                w.hand_sizes[0] = <int>cut[i]
                w.hand_sizes[1] = total - <int>cut[i]
                game_load(&w.game, w.deal, w.hand_sizes)
                play_game(&w, max_cards, max_tricks, detect_loops, &r)
                store(&result[i], &r)
    finally:
        work_free(&w)
    return out


cdef void store(Row* row, const Result* r) noexcept nogil:
    cdef bint loop = r.status == LOOP
    row.status = r.status
    row.winner = r.winner
    row.cards = r.cards
    row.tricks = r.tricks
    row.count0 = r.counts[0]
    row.count1 = r.counts[1]
    row.entry_tricks = r.entry_tricks if loop else -1
    row.entry_cards = r.entry_cards if loop else -1
    row.period_tricks = r.period_tricks if loop else -1
    row.period_cards = r.period_cards if loop else -1


def sample(n_deals, seed=1, min_cards=3000, start=0, deck=STANDARD, players=2, split=None, lay_on=False):
    """Play deals start .. start+n_deals-1 of `seed` (Deal.shuffled of `deck`,
    `players` and `split`) and return [(deal, outcome)] for each game of at
    least `min_cards` cards or a loop."""
    # No length histogram: it would be built only to be dropped.
    return _sample(n_deals, seed, min_cards, start, deck, players, split, lay_on, False)[0]


def sample_best(n_deals, seed=1, min_cards=3000, start=0, deck=STANDARD, players=2, split=None, lay_on=False):
    """sample(), the longest game played and the lengths of all: (hits, (deal,
    outcome) or None, lengths.Lengths). The earliest deal wins a tie."""
    return _sample(n_deals, seed, min_cards, start, deck, players, split, lay_on, True)


# Whether sample() plays two-player games 16 at a time (c/lanes.h): where the
# processor can, unless BEGGAR_LANES=0 says not to. A game still going after
# lane_tricks tricks is handed to one game at a time, loop detection and all:
# of the first 400,000 standard deals of seed 1, 56 pass 256 tricks and none
# 1024, so replaying one costs little.
#: Whether this processor plays lanes (AVX-512F).
LANES_USABLE = lanes_usable()
cdef bint lanes_on = LANES_USABLE and os.environ.get("BEGGAR_LANES") != "0"
cdef int lane_tricks = 1024
# Lanes count a game's cards in 32 bits: at most 255 cards a trick, so 2**20 tricks fit.
MAX_LANE_TRICKS = 2 ** 20


def set_lanes(on, tricks=1024):
    """Play sample()'s two-player deals in lockstep lanes (where this processor
    runs them), each for at most `tricks` tricks, or one game at a time; returns
    whether lanes were played before. For tests and benchmarks, which compare
    the two ways."""
    global lanes_on, lane_tricks
    if not isinstance(on, bool):
        raise ValueError(f"on must be True or False, not {on!r}")
    tricks = whole(tricks, "tricks", 1, MAX_LANE_TRICKS)
    before = lanes_on
    lanes_on = on and LANES_USABLE
    lane_tricks = tricks
    return before


cdef struct Kept:
    # What a sample keeps of the games it plays: the hits (games of threshold+
    # cards or loops, by deal number), the lengths of a batch, the longest game.
    int64_t threshold
    uint64_t* found
    Result* found_results
    int n_found
    uint32_t* batch         # NULL: no lengths counted
    Result best
    uint64_t best_index


cdef inline void keep(Kept* k, const Result* r, uint64_t index) noexcept nogil:
    if k.batch != NULL:
        k.batch[length_bin(r.cards)] += 1
    if r.status == LOOP or r.cards >= k.threshold:
        k.found[k.n_found] = index
        k.found_results[k.n_found] = r[0]
        k.n_found += 1
    # The earliest deal wins a tie (lanes finish their games out of order).
    if r.cards > k.best.cards or (r.cards == k.best.cards and index < k.best_index):
        k.best = r[0]
        k.best_index = index


cdef inline void deal_lane(Work* w, bg_lanes* L, int l, const Shape* s, uint64_t seed, uint64_t index) noexcept nogil:
    cdef uint64_t state = stream_start(seed, index)
    deal_random(w, &state, s)
    lanes_load(L, l, w.game.pieces, w.game.end[0], w.game.pieces + w.game.room, w.game.end[1])


cdef void play_lanes(Work* w, bg_lanes* L, const Shape* s, uint64_t seed, uint64_t first, int size,
                     Kept* k) noexcept nogil:
    """Deals first .. first+size-1 of `seed`, two players, played 16 at a time:
    a lane whose game ends is dealt the next deal. A game still going after
    lane_tricks tricks is played again whole, one game at a time."""
    cdef uint64_t dealt[LANES]     # the deal each lane plays
    cdef int l, p, next_deal = 0
    cdef uint32_t active = 0, done, finished
    cdef uint16_t past
    cdef uint64_t state
    cdef Result r
    memset(L, 0, sizeof(bg_lanes))     # a lane left without a deal plays an empty game, in bounds
    for l in range(LANES):
        if next_deal < size:
            dealt[l] = first + next_deal
            next_deal += 1
            deal_lane(w, L, l, s, seed, dealt[l])
            active |= 1u << l
    while active:
        finished = lanes_trick(L, lane_tricks, &past)
        done = (finished | past) & active
        while done:
            l = __builtin_ctz(done)
            done &= done - 1
            if finished >> l & 1:
                # The winner leads and holds every card.
                r.status = FINISHED
                r.winner = L.leader[l]
                r.cards = L.cards[l]
                r.tricks = L.tricks[l]
                for p in range(2):
                    r.counts[p] = 0
                r.counts[r.winner] = s.total
            else:
                state = stream_start(seed, dealt[l])
                deal_random(w, &state, s)
                play_game(w, INT64_MAX, INT64_MAX, True, &r)
            keep(k, &r, dealt[l])
            if next_deal < size:
                dealt[l] = first + next_deal
                next_deal += 1
                deal_lane(w, L, l, s, seed, dealt[l])
            else:
                active &= ~(1u << l)


cdef object _sample(n_deals, seed, min_cards, start, deck, players, split, bint lay_on, bint count_lengths):
    check_sample(n_deals, seed, min_cards, start)
    deck, players, split = check_table(deck, players, split)
    cdef uint64_t c_seed = seed, first = start, index, state
    cdef Shape shape
    cdef Work w
    cdef Result r
    cdef Kept k
    cdef bg_lanes lanes
    cdef int64_t* counts = <int64_t*>calloc(LENGTHS_BINS, sizeof(int64_t))
    cdef uint32_t* batch = <uint32_t*>calloc(LENGTHS_BINS, sizeof(uint32_t))     # a batch of CHUNK deals
    cdef int size, step
    k.threshold = min(min_cards, 2 ** 62)
    k.found = <uint64_t*>malloc(CHUNK * sizeof(uint64_t))
    k.found_results = <Result*>malloc(CHUNK * sizeof(Result))
    k.batch = batch if count_lengths else NULL
    k.best.cards = -1
    k.best_index = 0
    hits = []
    shape_init(&shape, deck, players, split)
    # The lanes play the standard trick for two, with hands of at most LANE_COURTS court cards.
    cdef bint in_lanes = lanes_on and players == 2 and not lay_on and shape.n_courts <= LANE_COURTS
    try:
        # work_init first, as w is set by nothing before it; a Work that fails
        # to start frees what it took, so that work_free below is harmless.
        if work_init(&w, players, shape.total, lay_on) != 0 or k.found == NULL or k.found_results == NULL \
                or counts == NULL or batch == NULL:
            raise MemoryError()
        done = 0
        while done < n_deals:
            size = min(n_deals - done, CHUNK)
            first = start + done
            k.n_found = 0
            with nogil:
                # Counted from `first`: first + size wraps to 0 when the
                # last deal is number 2**64 - 1.
                if in_lanes:
                    play_lanes(&w, &lanes, &shape, c_seed, first, size, &k)
                else:
                    for step in range(size):
                        index = first + step
                        state = stream_start(c_seed, index)
                        deal_random(&w, &state, &shape)
                        play_game(&w, INT64_MAX, INT64_MAX, True, &r)
                        keep(&k, &r, index)
                if count_lengths:
                    add_counts(counts, batch)
            found = range(k.n_found)
            if in_lanes:    # by deal number: lanes end their games out of order
                found = sorted(found, key=[k.found[i] for i in found].__getitem__)
            for i in found:
                hits.append((deal_of(&w, &shape, c_seed, k.found[i]), to_outcome(&k.found_results[i], players)))
            done += size
            PyErr_CheckSignals()
        longest = (deal_of(&w, &shape, c_seed, k.best_index), to_outcome(&k.best, players)) \
            if k.best.cards >= 0 else None
        return hits, longest, lengths_of(counts) if count_lengths else None
    finally:
        work_free(&w)
        free(k.found)
        free(k.found_results)
        free(counts)
        free(batch)


cdef object deal_of(Work* w, const Shape* s, uint64_t seed, uint64_t index):
    """Deal `index` of `seed` as this engine deals it (w's game is overwritten)."""
    cdef uint64_t state = stream_start(seed, index)
    deal_random(w, &state, s)
    return hands_of(w.deal, w.hand_sizes, s.players)


# ---------------------------------------------------------------- hill climbing

cdef int64_t evaluate(Work* w, const uint8_t* deck, const int* sizes, Result* r,
                      bint by_cards) noexcept nogil:
    """Play the hands of `sizes` laid one after another in `deck`; its fitness."""
    cdef int p
    memcpy(w.deal, deck, w.game.total)
    for p in range(w.game.players):
        w.hand_sizes[p] = sizes[p]
    game_load(&w.game, w.deal, w.hand_sizes)
    play_game(w, INT64_MAX, INT64_MAX, True, r)
    return fitness(by_cards, r.cards, r.tricks)


def climb(seed, index, steps, min_cards, rules, deck=STANDARD, players=2, split=None, lay_on=False):
    """Walk `index` of `seed`: `steps` deals of `deck`, `players` and `split`
    played by a hill climber under ClimbRules `rules` (see climbing.py);
    returns a Climb."""
    deck, players, split = check_climb(seed, index, steps, min_cards, rules, deck, players, split)
    cdef Shape shape
    shape_init(&shape, deck, players, split)
    cdef int total = shape.total, n_players = players
    cdef int sizes[MAX_PLAYERS]
    cdef uint64_t state = stream_start(seed, index)
    cdef int64_t n_steps = steps, played = 0, threshold = min(min_cards, 2 ** 62)
    cdef int64_t patience = rules.patience, restarts = -1
    cdef int64_t value, best_value = -1, worse
    cdef bg_climber c
    cdef int history_size = rules.history, accept = ACCEPTS.index(rules.accept), i, verdict
    cdef uint32_t swap_percent = rules.swap_percent
    cdef double temperature = rules.temperature
    cdef bint by_cards = rules.fitness == "cards", fresh
    cdef uint8_t current[MAX_DECK]
    cdef uint8_t candidate[MAX_DECK]
    cdef uint8_t best_deck[MAX_DECK]
    cdef int best_sizes[MAX_PLAYERS]
    cdef Result r, best_result
    cdef Work w
    cdef int64_t* history = <int64_t*>malloc(history_size * sizeof(int64_t))
    cdef int64_t* counts = <int64_t*>calloc(LENGTHS_BINS, sizeof(int64_t))
    c.k = c.stale = c.current_value = c.walk_best = 0
    hits = []
    try:
        if work_init(&w, n_players, total, lay_on) != 0 or history == NULL or counts == NULL:
            raise MemoryError()
        with nogil:
            while played < n_steps:
                fresh = propose(candidate, current, total, &restarts, c.stale, patience, &state, swap_percent)
                if fresh:
                    # A fresh walk: a random deal, its fitness the one to beat. Its hands,
                    # dealt as Deal.shuffled deals them, lie one after another; mutations keep their sizes.
                    deal_random(&w, &state, &shape)
                    memcpy(candidate, w.deal, total)
                    for i in range(n_players):
                        sizes[i] = w.hand_sizes[i]
                value = evaluate(&w, candidate, sizes, &r, by_cards)
                played += 1
                counts[length_bin(r.cards)] += 1
                if r.status == LOOP or r.cards >= threshold:
                    with gil:
                        hits.append((hands_of(candidate, sizes, n_players), to_outcome(&r, n_players)))
                if value > best_value:
                    best_value = value
                    best_result = r
                    memcpy(best_deck, candidate, total)
                    memcpy(best_sizes, sizes, sizeof(sizes))
                if fresh:
                    memcpy(current, candidate, total)
                    climber_start(&c, history, history_size, value)
                    continue
                verdict = climber_verdict(&c, accept, history, history_size, value)
                if verdict < 0:
                    # Anneal, a worse candidate: taken with the chance of its temperature at step k.
                    worse = (c.current_value >> FITNESS_SHIFT) - (value >> FITNESS_SHIFT)
                    verdict = <double>next32(&state) < exp(
                        -worse / (temperature / (1 + c.k / <double>patience))) * 4294967296.0
                if verdict:
                    memcpy(current, candidate, total)
                climber_settle(&c, accept, history, history_size, value, verdict)
        played_lengths = lengths_of(counts)
    finally:
        work_free(&w)
        free(history)
        free(counts)
    best = (hands_of(best_deck, best_sizes, n_players), to_outcome(&best_result, n_players)) if played else None
    return Climb(hits, best, max(restarts, 0), played_lengths)


def shuffled_deck(seed, index=0, deck=STANDARD):
    """`deck` shuffled for deal `index` of `seed`, as shuffle.shuffled_deck."""
    check_seed(seed)
    check_seed(index, "index")
    deck = Deck.parse(deck)
    cdef Shape shape
    shape_init(&shape, deck, 2, None)
    cdef uint8_t cards[MAX_DECK]
    cdef uint64_t state = stream_start(seed, index)
    deck_from(cards, &state, &shape)
    return [cards[i] for i in range(shape.total)]


def census(first, deals, deck=STANDARD, players=2, split=None, top=10, lay_on=False):
    """Play the arrangements of `deck` with ranks first .. first+deals-1
    (census.py), dealt to `players` (and `split`); returns a states.CensusBlock.
    The census plays with this engine from a module of its own, which
    cimports this one: imported here when first called."""
    from ._census import census
    return census(first, deals, deck, players, split, top, lay_on)
