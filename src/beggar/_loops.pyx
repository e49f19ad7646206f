# cython: language_level=3
"""The loop factory's engine: build two-player loops of a deck by growth, and
find new ones next to known ones by perturbation.

A growth walk (grow) starts from a small random state that loops and
inserts the deck's missing cards one at a time where the state still loops;
perturbation (perturb) makes small changes to states on known full loops
and reports every new loop it reaches. docs/loops.md (The loop factory)
tells both, and grow's and perturb's docstrings their options.

A state is (hands, leader) at an empty table, hands top card first; the
engine holds it as the deal it stands for, the leader's hand first, and
reports it that way (leader 0). A try is one state played to its loop or to
its end. Everything a walk does between two calls back to Python (a block of
tries) runs in C without the GIL; Python is only met when a full loop or a
new largest size is reported.

Walk `walk` of seed `seed` draws from the SplitMix64 stream of index `walk`
(shuffle.py), so it is reproducible from (seed, walk) alone.
"""

from collections import namedtuple
from numbers import Integral

from libc.stdint cimport INT64_MAX, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

from cpython.exc cimport PyErr_CheckSignals

from ._game cimport (COURT_BITS, COURT_MASK, LOOP, MAX_DECK, CODES, Game, Result, Work, cycle_hash, game_load, hash_bytes,
                     hash_state, loop_key, play_game, work_free, work_init)
from ._random cimport below, stream_start


cdef extern from "c/perturb.h" nogil:
    # A two-player state as the deal it stands for: the leader's hand (n0
    # cards) first, then the other's.
    ctypedef struct bg_state:
        int n
        int n0
        uint8_t cards[1]        # MAX_DECK of them at least (BG_CARDS)
    enum:
        BG_CARDS
    # Insert `card` at `position` of 0 .. n+1: 0 .. n0 in the leader's hand
    # (n0: at its bottom), n0+1 .. n+1 in the other's (n0+1: on top).
    void insert_card "bg_state_insert" (bg_state* s, int position, uint8_t card)
    void remove_card "bg_state_remove" (bg_state* s, int at)
    # Both hands hold a card (a state with an empty hand is already over).
    bint playable "bg_state_playable" (const bg_state* s)
    # One small change of s (perturb.h says which and how it is drawn).
    void change "bg_change" (uint64_t* rng, bg_state* s, int reach)
    # Try t of a walk: a state of the pool (rows of n0 and the n cards),
    # changed 1 to `changes` times, each of kind first_kind plus a draw from
    # range(kinds); whether both its hands hold a card.
    bint perturbed "bg_perturbed" (bg_state* s, const uint8_t* pool, int n_pool, int n, uint64_t walk_seed,
                                   uint64_t t, int changes, int reach, int first_kind, int kinds)
    enum:
        BG_MOVES_SMALL
        BG_MOVES_WIDE

from .checks import MAX_COUNT, MAX_SEED, whole
from .decks import Deck

#: What a growth walk or a perturbation run found: `loops`, one state on the
#: cycle of each full loop (distinct within the call); `tries`, states played;
#: `largest`, the most cards in a looping state reached; `restarts`, walks
#: restarted; `sizes`, (tries, largest) at each new largest.
Growth = namedtuple("Growth", "loops tries largest restarts sizes")

#: A perturbation walk's moves by name, as (the first kind, how many kinds)
#: of the changes its tries draw from (c/perturb.h): "small", swaps, cards
#: moved between hands, court cards moved and the split shifted; "wide",
#: those and blocks moved, segments turned and states of two cycles spliced;
#: and each kind alone, to measure it (benchmarks/move_yield.py).
MOVES = {"small": (0, BG_MOVES_SMALL), "wide": (0, BG_MOVES_WIDE), "swap": (0, 1), "move": (1, 1), "court": (2, 1),
         "split": (3, 1), "block": (4, 1), "turn": (5, 1), "splice": (6, 1)}


def check_walk(changes, reach, moves):
    """(first kind, kinds) of the moves named `moves` (MOVES): ValueError unless
    these are options a perturbation walk takes (see perturb)."""
    whole(changes, "changes", 1, 100)
    whole(reach, "reach", 1, MAX_DECK)
    if not isinstance(moves, str) or moves not in MOVES:
        raise ValueError(f"moves must be one of {', '.join(MOVES)}, not {moves!r}")
    return MOVES[moves]

cdef enum:
    # Tries per GIL-free block: short enough that Ctrl-C is felt.
    BLOCK = 16384
    # Distinct loops remembered (by a 64-bit hash of the canonical state);
    # a power of two, probed linearly.
    SEEN_SLOTS = 1 << 16
    KEY_SIZE = MAX_DECK + 3
    # A state whose game neither ends nor loops within this many tricks is
    # taken as not looping (the engine still finds a loop seen by then).
    MAX_TRICKS = 100000
    # Perturbation: the pool of states changes are drawn from; the tries
    # whose pool is fixed (a round).
    POOL = 4096
    ROUND = 16384


if BG_CARDS < MAX_DECK:
    raise ImportError("beggar._loops was built with c/perturb.h's states of fewer cards than a deck's")


cdef struct State:
    bg_state hands      # the state as the deal it stands for (c/perturb.h)
    int64_t period      # tricks of its loop's period (states on the cycle)
    int64_t fails       # candidates grown from it that did not loop
    uint64_t loop       # loop_hash of its loop (growth only)


cdef struct Seen:
    uint64_t* slots
    int count


cdef struct Options:
    int start_courts        # court cards in a walk's first state, drawn from the deck's
    int start_plain         # plain cards in it
    int64_t patience        # failed candidates of a state before it is backtracked over
    int64_t stall           # tries without a new walk-largest before the walk restarts
    uint32_t lateral_percent  # chance (percent) that a stuck state moves sideways (a small change)
    const uint8_t* starts   # where given: the states a walk starts from instead (rows of n, n0, the cards)
    int n_starts


# ---------------------------------------------------------------- playing one state

cdef int play_state(Work* w, const State* s, Result* r) noexcept nogil:
    """Play state s to its end or its loop; returns the status."""
    memcpy(w.deal, s.hands.cards, s.hands.n)
    w.hand_sizes[0] = s.hands.n0
    w.hand_sizes[1] = s.hands.n - s.hands.n0
    game_load(&w.game, w.deal, w.hand_sizes)
    play_game(w, INT64_MAX, MAX_TRICKS, True, r)
    return r.status


cdef void read_game(const Game* g, State* s) noexcept nogil:
    """The state of game g (two players, played by court) as a deal: the leader's hand first."""
    cdef int seat, p, i, k = 0
    cdef uint32_t piece, run
    for seat in range(2):
        p = g.leader ^ seat
        for i in range(g.start[p], g.end[p]):
            piece = g.pieces[p * g.room + i]
            run = piece >> COURT_BITS
            memset(s.hands.cards + k, 0, run)
            k += run
            if piece & COURT_MASK:
                s.hands.cards[k] = piece & COURT_MASK
                k += 1
        if seat == 0:
            s.hands.n0 = k
    s.hands.n = k


cdef void advance(Work* w, State* s, int64_t tricks) noexcept nogil:
    """Move s, a state on a loop, `tricks` tricks along its cycle."""
    cdef Result r
    if tricks <= 0:
        return
    memcpy(w.deal, s.hands.cards, s.hands.n)
    w.hand_sizes[0] = s.hands.n0
    w.hand_sizes[1] = s.hands.n - s.hands.n0
    game_load(&w.game, w.deal, w.hand_sizes)
    play_game(w, INT64_MAX, tricks, False, &r)
    read_game(&w.game, s)


cdef uint64_t loop_hash(Work* w, const Result* r, int n) noexcept nogil:
    """A 64-bit hash (c/hash.h's FNV-1a) of the canonical state of the loop just played."""
    cdef uint8_t key[KEY_SIZE]
    loop_key(w, r, key)
    return hash_bytes(key, n + 2) | 1     # 0 marks an empty slot


cdef bint seen_add(Seen* seen, uint64_t h) noexcept nogil:
    """Add h; True when it was new. A full table forgets nothing and says new."""
    cdef uint64_t i = h & (SEEN_SLOTS - 1)
    if seen.count >= SEEN_SLOTS // 2:
        return True
    while seen.slots[i]:
        if seen.slots[i] == h:
            return False
        i = (i + 1) & (SEEN_SLOTS - 1)
    seen.slots[i] = h
    seen.count += 1
    return True


# ---------------------------------------------------------------- growth

cdef struct Walker:
    uint64_t rng
    int total
    int counts[CODES]       # the target deck
    Options o
    State* stack            # stack[0 .. depth-1]: the walk's states, each grown from the one before
    int depth
    int walk_largest        # cards in the walk's largest looping state
    int64_t since_best      # tries since walk_largest last grew
    int64_t tries
    int64_t restarts
    int largest             # over the whole call
    Seen seen
    State found             # the full loop just found (leader's hand first)
    Work w


cdef void missing(const Walker* k, const State* s, int* lack) noexcept nogil:
    cdef int i
    for i in range(CODES):
        lack[i] = k.counts[i]
    for i in range(s.hands.n):
        lack[s.hands.cards[i]] -= 1


cdef int pick_missing(Walker* k, const int* lack, int n_lack) noexcept nogil:
    """A card the state lacks, each missing card equally likely (so mostly
    plain cards: keeping the state a small copy of the deck, or favouring
    plain cards, measured worse; see benchmarks/loop_factory.py)."""
    cdef int x = <int>below(&k.rng, n_lack), c
    for c in range(CODES):
        if x < lack[c]:
            return c
        x -= lack[c]
    return 0


cdef void fresh_start(Walker* k) noexcept nogil:
    """A random state of o.start_courts court cards drawn from the deck's and
    o.start_plain plain cards (fewer when the deck has fewer), shuffled and
    split at random; start_courts 0: of every card of the deck. Where the
    walk was given starts, one of them drawn instead."""
    cdef State* s = &k.stack[0]
    cdef int c, i, j, n = 0, plain = k.o.start_plain, courts = 0, draw = k.o.start_courts
    cdef uint8_t card
    cdef uint8_t pool[MAX_DECK]
    cdef const uint8_t* row
    if k.o.n_starts:
        row = k.o.starts + <int>below(&k.rng, k.o.n_starts) * (MAX_DECK + 2)
        s.hands.n = row[0]
        s.hands.n0 = row[1]
        memcpy(s.hands.cards, row + 2, row[0])
        s.period = 0
        s.fails = 0
        return
    for c in range(1, CODES):
        for i in range(k.counts[c]):
            pool[courts] = c
            courts += 1
    # A partial shuffle of the court cards: the first start_courts are drawn.
    if draw == 0:
        draw = courts
        plain = k.counts[0]
    for i in range(min(draw, courts)):
        j = i + <int>below(&k.rng, courts - i)
        card = pool[i]
        pool[i] = pool[j]
        pool[j] = card
        s.hands.cards[n] = pool[i]
        n += 1
    for i in range(min(plain, k.counts[0])):
        s.hands.cards[n] = 0
        n += 1
    for i in range(n - 1, 0, -1):
        j = <int>below(&k.rng, i + 1)
        card = s.hands.cards[i]
        s.hands.cards[i] = s.hands.cards[j]
        s.hands.cards[j] = card
    s.hands.n = n
    s.hands.n0 = 1 + <int>below(&k.rng, n - 1)
    s.period = 0
    s.fails = 0


cdef int push_loop(Walker* k, const Result* r) noexcept nogil:
    """Push a state of the cycle of the loop just played (k.w.first stands on
    it) onto the walk's stack, unless it holds every card: a full loop is
    reported (once) and grown no further. Returns grow_block's bits."""
    cdef State* top = &k.stack[k.depth]
    cdef int event = 0
    read_game(&k.w.first, top)
    top.period = r.period_tricks
    top.loop = loop_hash(&k.w, r, top.hands.n)
    top.fails = 0
    if top.hands.n > k.walk_largest:
        k.walk_largest = top.hands.n
        k.since_best = 0
    if top.hands.n > k.largest:
        k.largest = top.hands.n
        event |= 2
    if top.hands.n < k.total:
        k.depth += 1
        return event
    if seen_add(&k.seen, top.loop):
        k.found = top[0]
        event |= 1
    if k.depth:
        k.stack[k.depth - 1].fails += 1
    return event


cdef int grow_block(Walker* k, int64_t budget) noexcept nogil:
    """Play up to `budget` tries of the walk. Returns 0 when the budget is
    spent, else as soon as something is to report: bit 1, a new full loop
    (in k.found); bit 2, a new largest size of the call. The walk carries on
    from where it stopped at the next call."""
    cdef State cand
    cdef State* top
    cdef Result r
    cdef int lack[CODES]
    cdef int card, event = 0, status, i
    cdef bint lateral
    cdef uint64_t h
    cdef int64_t end = k.tries + budget
    while k.tries < end:
        if k.depth == 0 or k.since_best >= k.o.stall:
            if k.depth > 0 or k.walk_largest:
                # The walk had a loop and stalled, or backtracked over its
                # first state: it restarts. (Resuming from the walk's best
                # state instead measured no better.)
                k.restarts += 1
            # A fresh walk: find a small state that loops.
            fresh_start(k)
            k.tries += 1
            status = play_state(&k.w, &k.stack[0], &r)
            if k.o.start_courts == 0:
                # From the top down: a random state of the whole deck loses
                # a random card until it loops (each play a try).
                while status != LOOP and k.stack[0].hands.n > 2 and k.tries < end:
                    remove_card(&k.stack[0].hands, <int>below(&k.rng, <uint32_t>k.stack[0].hands.n))
                    if not playable(&k.stack[0].hands):
                        k.stack[0].hands.n0 = 1 if k.stack[0].hands.n0 == 0 else k.stack[0].hands.n - 1
                    k.tries += 1
                    status = play_state(&k.w, &k.stack[0], &r)
            k.depth = 0
            k.walk_largest = 0
            if status == LOOP:
                event = push_loop(k, &r)
            if event:
                return event
            continue
        top = &k.stack[k.depth - 1]
        if top.fails >= k.o.patience:
            # Stuck: backtrack to the state it grew from.
            k.depth -= 1
            continue
        # A candidate: a state of top's cycle with one missing card inserted
        # anywhere, or, once top has failed patience/2 times, sometimes a
        # small change of it instead (a sideways move to a loop of the same
        # size, from which growth may go on).
        cand = top[0]
        advance(&k.w, &cand, <int64_t>below(&k.rng, <uint32_t>top.period))
        lateral = top.fails > k.o.patience // 2 and below(&k.rng, 100) < k.o.lateral_percent
        if lateral:
            for i in range(1 + <int>below(&k.rng, 2)):
                change(&k.rng, &cand.hands, 3)
        else:
            missing(k, &cand, lack)
            card = pick_missing(k, lack, k.total - cand.hands.n)
            insert_card(&cand.hands, <int>below(&k.rng, <uint32_t>(cand.hands.n + 2)), <uint8_t>card)
        k.tries += 1
        k.since_best += 1
        if not playable(&cand.hands):
            top.fails += 1
            continue
        status = play_state(&k.w, &cand, &r)
        if status != LOOP:
            top.fails += 1
            continue
        if lateral:
            # A sideways move to another loop takes top's place: the stack
            # only grows with the state.
            h = loop_hash(&k.w, &r, cand.hands.n)
            if h == top.loop:
                top.fails += 1
                continue
            read_game(&k.w.first, top)
            top.period = r.period_tricks
            top.loop = h
            top.fails = 0
            continue
        event = push_loop(k, &r)
        if event:
            return event
    return 0


def _start_row(state, deck, number):
    """A growth walk's start (hands, leader) as a row of MAX_DECK + 2 bytes:
    n, n0 (the leader's cards), the cards from the leader's hand on;
    ValueError unless it is two hands, each of a card at least, of some of
    `deck`'s cards (not all of them: a full state needs no growth)."""
    try:
        hands, leader = state
        cards = [*hands[leader], *hands[1 - leader]] if len(hands) == 2 and leader in (0, 1) else None
        n0 = len(hands[leader]) if cards else 0
    except (TypeError, ValueError, IndexError):
        cards = None
    if not cards or not 0 < n0 < len(cards) or any(isinstance(c, bool) or not isinstance(c, Integral)
                                                   or not 0 <= c <= 4 for c in cards):
        raise ValueError(f"start {number}: a start is (hands, leader), two hands of a card at least, cards of codes "
                         f"0-4, leader 0 or 1, not {state!r}")
    if any(cards.count(c) > deck.counts[c] for c in range(CODES)) or len(cards) == deck.total:
        raise ValueError(f"start {number}: its cards are not some of deck {deck}'s, fewer than all")
    return bytes([len(cards), n0, *cards, *[0] * (MAX_DECK - len(cards))])


cdef object state_of(const State* s):
    """A State as (hands, leader), the leader's hand first."""
    return ((tuple(s.hands.cards[i] for i in range(s.hands.n0)),
             tuple(s.hands.cards[i] for i in range(s.hands.n0, s.hands.n))), 0)


def check_deck(deck):
    """The target deck, checked for growth: a Deck (or its name or notation)
    of at most MAX_DECK cards with two court cards at least."""
    deck = Deck.parse(deck)
    if sum(deck.counts[1:]) < 2:
        raise ValueError(f"deck {deck}: a loop needs two court cards at least, so nothing can be grown")
    return deck


def check_growth(start_courts, start_plain, patience, stall, lateral_percent):
    """ValueError unless these are options a growth walk takes (see grow)."""
    whole(start_courts, "start_courts", 0, MAX_DECK)
    if start_courts == 1:
        # Its every start would be played and dropped: the walk would never begin.
        raise ValueError("start_courts must be 0 (top down) or 2 and more: a state with one court card never loops")
    whole(start_plain, "start_plain", 0, MAX_DECK)
    whole(patience, "patience", 1, MAX_COUNT)
    whole(stall, "stall", 1, MAX_COUNT)
    whole(lateral_percent, "lateral_percent", 0, 100)


def grow(deck, seed, walk, tries, *, start_courts=4, start_plain=12, patience=400, stall=20000,
         lateral_percent=50, starts=()):
    """Growth walk `walk` of `seed` toward full loops of `deck`, at most `tries`
    states played; returns a Growth. The keyword options steer the walk; the
    defaults are the measured best.

    start_courts, start_plain: the cards of a walk's first state (court cards
    drawn at random from the deck's); start_courts 0: the first state is a
    random state of the whole deck that loses random cards until it loops
    (top down: it reaches plain-rich loops, 22 plain cards of 24 on camicia,
    that growth from court cards does not); patience: failed candidates of a state
    before the walk backtracks over it; stall: tries without a larger loop
    before the walk restarts; lateral_percent: how often a state that has
    failed patience/2 times tries a sideways move instead of an insertion;
    starts: states (hands, leader) of some of the deck's cards that every
    walk starts from instead, one drawn at each start (growth by insertion
    from given loops: a smaller deck's, or a full loop's with cards taken
    out); start_courts and start_plain are then unused."""
    deck = check_deck(deck)
    whole(seed, "seed", 0, MAX_SEED)
    whole(walk, "walk", 0, MAX_SEED)
    whole(tries, "tries", 1, MAX_COUNT)
    check_growth(start_courts, start_plain, patience, stall, lateral_percent)
    rows = b"".join(_start_row(state, deck, number) for number, state in enumerate(starts))
    cdef const unsigned char[::1] start_rows = rows or b"\0"
    cdef int64_t limit = tries, block
    cdef int event
    cdef Walker* k = <Walker*>calloc(1, sizeof(Walker))     # zeroed: whatever is not allocated frees as NULL
    if k == NULL:
        raise MemoryError()
    loops, sizes = [], []
    try:
        k.stack = <State*>malloc((deck.total + 1) * sizeof(State))
        k.seen.slots = <uint64_t*>calloc(SEEN_SLOTS, sizeof(uint64_t))
        if k.stack == NULL or k.seen.slots == NULL or work_init(&k.w, 2, deck.total, False) != 0:
            raise MemoryError()
        k.total = deck.total
        for i in range(CODES):
            k.counts[i] = deck.counts[i]
        k.rng = stream_start(seed, walk)
        k.o.start_courts = start_courts
        k.o.start_plain = start_plain
        k.o.patience = patience
        k.o.stall = stall
        k.o.lateral_percent = lateral_percent
        k.o.starts = &start_rows[0]
        k.o.n_starts = len(rows) // (MAX_DECK + 2)
        while k.tries < limit:
            block = min(limit - k.tries, BLOCK)
            with nogil:
                event = grow_block(k, block)
            if event & 2:
                sizes.append((k.tries, k.largest))
            if event & 1:
                loops.append(state_of(&k.found))
            PyErr_CheckSignals()
        return Growth(loops, k.tries, k.largest, k.restarts, sizes)
    finally:
        work_free(&k.w)
        free(k.stack)
        free(k.seen.slots)
        free(k)


# ---------------------------------------------------------------- perturbation

cdef struct Perturber:
    uint64_t walk_seed      # try t draws from the stream stream_start(walk_seed, t)
    uint64_t pool_rng       # where a full pool puts a new loop's states
    uint8_t* pool           # states on the loops known so far, changes are drawn from them: rows of
                            # total + 1 bytes, n0 then the cards (perturb.h's bg_perturbed reads them)
    int n_pool
    int total               # the deck's cards
    int n_given             # the first n_given of the pool are the states given
    int changes             # changes per try: 1 .. changes
    int reach               # a court card moves 1 .. reach places
    int first_kind          # the kinds of change drawn from (MOVES)
    int kinds
    Seen seen
    Seen cycles             # the cycle hash of every loop seen: a try that falls into one is no news
    Work w
    uint64_t* known         # the same, listed (a GPU's launches leave them out)
    int n_known


cdef inline void copy_state(State* to, const State* s) noexcept nogil:
    """A state's cards and sizes (not the whole struct: a deck holds far
    fewer cards than MAX_DECK)."""
    to.hands.n = s.hands.n
    to.hands.n0 = s.hands.n0
    to.period = s.period
    to.fails = s.fails
    to.loop = s.loop
    memcpy(to.hands.cards, s.hands.cards, s.hands.n)


cdef void put_row(Perturber* p, int at, const State* s) noexcept nogil:
    """State s as row `at` of the pool."""
    cdef uint8_t* row = p.pool + at * (p.total + 1)
    row[0] = s.hands.n0
    memcpy(row + 1, s.hands.cards, p.total)


cdef void add_loop(Perturber* p, const State* first, int64_t period, bint pooled) noexcept nogil:
    """A loop new to the walk, from `first`, a state on its cycle: its cycle
    hash (c/hash.h: the least hash of its states) joins
    the known ones, and where `pooled` its states join the pool (a full pool
    keeps the states given and puts each in a random place among the rest)."""
    cdef State s
    cdef uint64_t least = 0, h
    cdef int64_t k
    cdef int at
    copy_state(&s, first)
    for k in range(period):
        if k:
            advance(&p.w, &s, 1)
        h = hash_state(s.hands.cards, s.hands.n, s.hands.n0)
        least = h if k == 0 or h < least else least
        if not pooled:
            continue
        if p.n_pool < POOL:
            put_row(p, p.n_pool, &s)
            p.n_pool += 1
        elif p.n_pool > p.n_given:
            at = p.n_given + <int>below(&p.pool_rng, <uint32_t>(p.n_pool - p.n_given))
            put_row(p, at, &s)
    seen_add(&p.cycles, least)
    if p.n_known < SEEN_SLOTS // 2:
        p.known[p.n_known] = least
        p.n_known += 1


cdef int tried(Perturber* p, uint64_t t, State* found, int64_t* period) noexcept nogil:
    """Play try t; 1 when its game falls into a loop new to the walk (then
    `found` is a state on its cycle, of `period` tricks, and it is seen)."""
    cdef Result r
    cdef State cand
    if not perturbed(&cand.hands, p.pool, p.n_pool, p.total, p.walk_seed, t, p.changes, p.reach, p.first_kind, p.kinds) \
            or play_state(&p.w, &cand, &r) != LOOP:
        return 0
    # Most loops a try falls into are the walk's own (the loop it was changed
    # from): known by their cycle hash, with no canonical state worked out.
    if not seen_add(&p.cycles, cycle_hash(&p.w, r.period_tricks)):
        return 0
    if not seen_add(&p.seen, loop_hash(&p.w, &r, cand.hands.n)):
        return 0
    read_game(&p.w.first, found)
    period[0] = r.period_tricks
    return 1


cdef int load_state(State* s, state, deck, int number) except -1:
    """The Python state (hands, leader) as a State, the leader's hand first;
    ValueError unless it is a two-player state of exactly `deck`'s cards."""
    try:
        hands, leader = state
        hands = [list(hands[0]), list(hands[1])] if len(hands) == 2 else None
    except (TypeError, ValueError, IndexError):
        hands = leader = None
    if hands is None or isinstance(leader, bool) or not isinstance(leader, Integral) or leader not in (0, 1):
        raise ValueError(f"state {number}: a state is (hands, leader) with two hands and leader 0 or 1, "
                         f"not {state!r}")
    cards = hands[leader] + hands[1 - leader]
    if any(isinstance(c, bool) or not isinstance(c, Integral) or not 0 <= c <= 4 for c in cards):
        raise ValueError(f"state {number}: cards are codes 0-4 (0 plain, 1 J, 2 Q, 3 K, 4 A)")
    counts = tuple(cards.count(c) for c in range(CODES))
    if counts != deck.counts:
        raise ValueError(f"state {number}: its cards are not those of deck {deck} "
                         f"(it holds {' '.join(map(str, counts))} of plain, J, Q, K, A)")
    if not hands[0] or not hands[1]:
        raise ValueError(f"state {number}: a hand is empty, so the game is already over")
    s.hands.n = len(cards)
    s.hands.n0 = len(hands[leader])
    s.fails = 0
    for i, c in enumerate(cards):
        s.hands.cards[i] = c
    return 0


def cycle_hashes(states, deck):
    """The cycle hash of the loop each of `states` falls into (each (hands,
    leader), two players, the cards of `deck`): the least state hash of its
    cycle, by which perturb() knows a loop. ValueError for a state whose
    game does not loop."""
    deck = check_deck(deck)
    cdef Work w
    cdef State s
    cdef Result r
    if work_init(&w, 2, deck.total, False) != 0:
        raise MemoryError()
    hashes = []
    try:
        for number, state in enumerate(states):
            load_state(&s, state, deck, number)
            if play_state(&w, &s, &r) != LOOP:
                raise ValueError(f"state {number}: its game does not loop")
            hashes.append(cycle_hash(&w, r.period_tricks))
    finally:
        work_free(&w)
    return hashes


def perturb(states, deck, seed, index, tries, *, changes=2, reach=3, moves="small", known=(), launcher=None):
    """Run `index` of `seed`: small changes of states on known full loops of
    `deck` (`states`, each (hands, leader), on a loop's cycle or leading to
    one), at most `tries` played; every loop reached that is not one of
    theirs, nor one of `known` (cycle hashes: cycle_hashes), is reported
    once. A loop of `known` is as one of theirs, but for the pool: its
    states are not drawn from. The pool that changes are drawn from holds the
    states of the cycles of the loops given, and of each loop found (POOL at
    most: then those of the loops given, and a random part of the rest).

    Try t draws from the stream of (stream_start(seed, index), t) alone: a
    state of the pool, changed 1 to `changes` times (c/perturb.h's
    bg_perturbed, a court card moving up to `reach` places, each change of
    a kind of `moves`: MOVES). The tries go in rounds of ROUND, the pool
    fixed within a round: the loops a round finds join it when the round
    ends, in the order of their tries. So a walk's tries can be played in
    any order, or all at once on a GPU, and find the same loops.

    `launcher`, when given, plays the tries instead of this engine (a GPU
    engine's, gpu/engine.py): launcher(pool, n_pool, total, walk_seed, first,
    most, known) plays tries first .. first + n - 1 (n <= most, its choice),
    `pool` rows of n0 and the cards, `known` the sorted cycle hashes
    (c/hash.h) of the loops already seen, and returns (n, the tries whose
    game falls into a loop not known or reached its cap, sorted). Each is
    played again here, so the loops reported are this engine's. Returns a
    Growth (restarts 0; sizes empty: every state has the deck's cards)."""
    deck = check_deck(deck)
    whole(seed, "seed", 0, MAX_SEED)
    whole(index, "index", 0, MAX_SEED)
    whole(tries, "tries", 1, MAX_COUNT)
    first_kind, kinds = check_walk(changes, reach, moves)
    if launcher is not None and moves != "small":
        raise ValueError(f"the GPU engines' walks make the small moves only, not {moves!r}: play wide moves on "
                         "the compiled engine")
    states = list(states) if not isinstance(states, (str, bytes)) else None
    if not states:
        raise ValueError("perturb needs states on known loops of the deck, and none were given")
    known = list(known)
    if any(isinstance(h, bool) or not isinstance(h, Integral) or not 0 < h < 2 ** 64 for h in known):
        raise ValueError("known loops are given by their cycle hashes, whole numbers from 1 to 2^64 - 1")
    cdef Perturber* p = <Perturber*>calloc(1, sizeof(Perturber))     # zeroed: whatever is not allocated frees as NULL
    if p == NULL:
        raise MemoryError()
    # A round's new loops: one a try at most.
    cdef State* found = <State*>malloc(ROUND * sizeof(State))
    cdef int64_t* periods = <int64_t*>malloc(ROUND * sizeof(int64_t))
    cdef State s
    cdef Result r
    cdef int64_t limit = tries, t = 0, end, u
    cdef int n_found, k
    loops = []
    try:
        p.total = deck.total
        p.pool = <uint8_t*>malloc(POOL * (deck.total + 1))
        p.seen.slots = <uint64_t*>calloc(SEEN_SLOTS, sizeof(uint64_t))
        p.cycles.slots = <uint64_t*>calloc(SEEN_SLOTS, sizeof(uint64_t))
        p.known = <uint64_t*>malloc(SEEN_SLOTS // 2 * sizeof(uint64_t))
        if p.pool == NULL or p.seen.slots == NULL or p.cycles.slots == NULL or p.known == NULL or found == NULL \
                or periods == NULL or work_init(&p.w, 2, deck.total, False) != 0:
            raise MemoryError()
        for number, state in enumerate(states):
            load_state(&s, state, deck, number)
            if play_state(&p.w, &s, &r) != LOOP:
                raise ValueError(f"state {number}: its game does not loop, so it is on no loop to perturb")
            if seen_add(&p.seen, loop_hash(&p.w, &r, s.hands.n)):
                # The pool takes every state of the cycle of each loop given
                # (as many as it holds).
                read_game(&p.w.first, &s)
                add_loop(p, &s, r.period_tricks, True)
        p.n_given = p.n_pool
        for h in known:
            if seen_add(&p.cycles, h) and p.n_known < SEEN_SLOTS // 2:
                p.known[p.n_known] = h
                p.n_known += 1
        p.changes = changes
        p.reach = reach
        p.first_kind, p.kinds = first_kind, kinds
        p.walk_seed = stream_start(seed, index)
        p.pool_rng = stream_start(p.walk_seed ^ 0xFFFFFFFFFFFFFFFFULL, 0)
        while t < limit:
            n_found = 0
            if launcher is None:
                end = min(limit, t + ROUND)
                with nogil:
                    for u in range(t, end):
                        if tried(p, u, &found[n_found], &periods[n_found]):
                            n_found += 1
            else:
                end = t + _launched(p, launcher, deck.total, t, limit - t, found, periods, &n_found)
            for k in range(n_found):
                loops.append(state_of(&found[k]))
                add_loop(p, &found[k], periods[k], True)
            t = end
            PyErr_CheckSignals()
        return Growth(loops, limit, deck.total, 0, [])
    finally:
        work_free(&p.w)
        free(p.pool)
        free(p.seen.slots)
        free(p.cycles.slots)
        free(p.known)
        free(p)
        free(found)
        free(periods)


def tries(pool, walk_seed, first, count, *, changes=2, reach=3, moves="small"):
    """The states of tries first .. first + count - 1 of a perturbation walk
    whose pool is `pool` (a uint8 array of rows: n0, then the cards of a
    state, each holding a court card) and whose stream is `walk_seed`, as
    every engine derives them (c/perturb.h): a uint8 array of rows of the
    same form. A try with an empty hand is no game; its row is there all the
    same. For the walk's own tests and studies: perturb plays them."""
    import numpy as np
    whole(walk_seed, "walk_seed", 0, MAX_SEED)
    whole(first, "first", 0, MAX_SEED)
    whole(count, "count", 0, MAX_COUNT)
    first_kind, kinds = check_walk(changes, reach, moves)
    rows = np.ascontiguousarray(pool, np.uint8)
    if rows.ndim != 2 or len(rows) < 1 or not 3 <= rows.shape[1] <= MAX_DECK + 1:
        raise ValueError(f"a pool is rows of n0 and 2 to {MAX_DECK} cards, at least one row, not an array of "
                         f"shape {np.shape(pool)}")
    cards = rows[:, 1:]
    n = cards.shape[1]
    if (cards > 4).any() or not (cards != 0).any(axis=1).all() or (rows[:, 0] < 1).any() or (rows[:, 0] >= n).any():
        raise ValueError("a pool's rows are n0 (1 to the cards less one), then cards of codes 0-4 with a court card")
    if moves != "small" and (np.sort(cards, axis=1) != np.sort(cards[0])).any():
        raise ValueError("a pool of wide moves holds states of one deck: a splice takes the cards of one state "
                         "in the order of another")
    out = np.zeros((count, n + 1), np.uint8)
    cdef const uint8_t[:, ::1] given = rows
    cdef uint8_t[:, ::1] made = out
    cdef bg_state s
    cdef uint64_t c_seed = walk_seed, c_first = first
    cdef int n_pool = len(rows), c_n = n, c_changes = changes, c_reach = reach
    cdef int c_first_kind = first_kind, c_kinds = kinds
    cdef int64_t k, c_count = count
    with nogil:
        for k in range(c_count):
            perturbed(&s, &given[0, 0], n_pool, c_n, c_seed, c_first + <uint64_t>k, c_changes, c_reach, c_first_kind, c_kinds)
            made[k, 0] = s.n0
            memcpy(&made[k, 1], s.cards, c_n)
    return out


cdef int64_t _launched(Perturber* p, launcher, int total, int64_t first, int64_t most, State* found,
                       int64_t* periods, int* n_found) except -1:
    """Tries first onward played by `launcher` (see perturb): those it hands
    back played again here. Where a new loop's states would change the pool
    (it has room, or holds states of loops found), up to the end of the first
    round that found one: the rounds after it start from another pool, and
    are played again. A pool that holds only the states given (full of
    them) is every round's: the launch's tries are all taken, however many
    rounds they span, up to the ROUND-th new loop (the room for them).
    Returns the tries done; the loops are in found[:n_found]."""
    import numpy as np
    pool = np.frombuffer((<const char*>p.pool)[:p.n_pool * (total + 1)], np.uint8)
    cdef int i
    known = np.unique(np.array([p.known[i] for i in range(p.n_known)], np.uint64))
    played, hits = launcher(pool, p.n_pool, total, p.walk_seed, first, most, known)
    played = int(played)
    if not 0 < played <= most:
        raise RuntimeError(f"a perturbation launch played {played} tries of the {most} asked for")
    cdef int64_t done = played, u, round_end = -1
    cdef bint pool_grows = p.n_pool < POOL or p.n_pool > p.n_given
    for hit in hits:
        u = hit
        if round_end >= 0 and u >= round_end:
            break
        if not first <= u < first + played:
            raise RuntimeError(f"a perturbation launch of tries {first} .. {first + played - 1} handed back try {u}")
        if tried(p, <uint64_t>u, &found[n_found[0]], &periods[n_found[0]]):
            n_found[0] += 1
            if pool_grows and round_end < 0:
                round_end = (u // ROUND + 1) * ROUND        # rounds are counted from try 0
            elif n_found[0] == ROUND:
                round_end = u + 1
    if round_end >= 0:
        done = min(done, round_end - first)
    return done
