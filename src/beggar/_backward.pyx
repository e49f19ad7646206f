# cython: language_level=3
"""Backward play, compiled: every state that leads to a given one.

Same functions, signatures and results as the backward half of
`beggar.reference` (predecessors, backward, backward_to); see docs/rules.md for the rule
that makes it exact: at an empty table the last trick's pile is a suffix of
its taker's hand. States are kept breadth first in one growing array, and the
search runs without the GIL.
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset
from libc.time cimport CLOCKS_PER_SEC, clock, clock_t

from itertools import chain

from .states import GUIDES, Reached, check_bounds, check_search, check_sizes, check_state


cdef struct Entry:
    # One state of a backward search, beside its cards.
    int64_t cards_to_root
    int64_t tricks_to_root
    int32_t len0        # cards in hand 0; hand 1 holds the rest
    int8_t leader


cdef struct Queue:
    # States of a backward search, breadth first: state i holds hand 0 then
    # hand 1 in cards[i * total ...].
    int total
    Py_ssize_t size
    Py_ssize_t capacity
    uint8_t* cards
    Entry* entries


cdef int grow_arrays(Py_ssize_t* capacity, int total, uint8_t** cards, void** entries,
                     size_t entry_size) noexcept nogil:
    """Double a search's two arrays (`total` cards and one entry per state),
    or give them 1024 states; -1 when memory runs out (the old arrays kept)."""
    cdef Py_ssize_t wanted = capacity[0] * 2 if capacity[0] else 1024
    cdef void* grown = realloc(cards[0], wanted * total)
    if grown == NULL:
        return -1
    cards[0] = <uint8_t*>grown
    grown = realloc(entries[0], wanted * entry_size)
    if grown == NULL:
        return -1
    entries[0] = grown
    capacity[0] = wanted
    return 0


cdef int queue_grow(Queue* q) noexcept nogil:
    return grow_arrays(&q.capacity, q.total, &q.cards, <void**>&q.entries, sizeof(Entry))


cdef void queue_free(Queue* q) noexcept nogil:
    free(q.cards)
    free(q.entries)


cdef int expand(Queue* q, Py_ssize_t i, const uint8_t* skip, int skip_len0, int skip_leader,
                uint8_t* who) noexcept nogil:
    """Append every predecessor of state i to the queue (as reference.predecessors),
    but the state `skip` (NULL: none). Returns -1 when memory runs out."""
    cdef int total = q.total, taker = q.entries[i].leader, first, player, owed, court_player, size, k
    cdef int length[2]
    cdef int new_length[2]
    cdef int laid[2]
    cdef const uint8_t* hand[2]
    cdef uint8_t* state
    cdef uint8_t* out[2]
    cdef const uint8_t* pile
    cdef bint valid, running_out
    length[0] = q.entries[i].len0
    length[1] = total - length[0]
    hand[0] = q.cards + i * total
    hand[1] = hand[0] + length[0]
    running_out = length[taker ^ 1] == 0
    for size in range(1, length[taker] + 1):
        pile = hand[taker] + length[taker] - size
        for first in range(2):
            player = first
            owed = 0
            court_player = -1
            laid[0] = laid[1] = 0
            valid = False
            for k in range(size):
                who[k] = player
                laid[player] += 1
                if pile[k]:
                    owed = pile[k]
                    court_player = player
                    player ^= 1
                elif owed:
                    owed -= 1
                    if owed == 0:
                        valid = k == size - 1 and court_player == taker
                        break
                else:
                    player ^= 1
            else:
                valid = running_out and player != taker
            if not valid or laid[taker ^ 1] == 0:
                continue
            if q.size == q.capacity and queue_grow(q) != 0:
                return -1
            hand[0] = q.cards + i * total        # the queue may have moved
            hand[1] = hand[0] + length[0]
            pile = hand[taker] + length[taker] - size
            state = q.cards + q.size * total
            # Each player's cards from the trick go back on top of his hand.
            new_length[taker] = laid[taker] + length[taker] - size
            new_length[taker ^ 1] = laid[taker ^ 1] + length[taker ^ 1]
            out[0] = state
            out[1] = state + new_length[0]
            for k in range(size):
                out[who[k]][0] = pile[k]
                out[who[k]] += 1
            memcpy(out[taker], hand[taker], length[taker] - size)
            memcpy(out[taker ^ 1], hand[taker ^ 1], length[taker ^ 1])
            q.entries[q.size].len0 = new_length[0]
            q.entries[q.size].leader = first
            if skip != NULL and q.entries[q.size].len0 == skip_len0 and first == skip_leader \
                    and memcmp(state, skip, total) == 0:
                continue
            q.entries[q.size].cards_to_root = q.entries[i].cards_to_root + size
            q.entries[q.size].tricks_to_root = q.entries[i].tricks_to_root + 1
            q.size += 1
    return 0


cdef int queue_push(Queue* q, hands, int leader) except -1:
    """Append a state given as Python hands (two sequences of codes)."""
    cdef int k
    if q.size == q.capacity and queue_grow(q) != 0:
        raise MemoryError()
    cdef uint8_t* state = q.cards + q.size * q.total
    for k, card in enumerate(chain(*hands)):
        state[k] = card
    q.entries[q.size].len0 = len(hands[0])
    q.entries[q.size].leader = leader
    q.entries[q.size].cards_to_root = 0
    q.entries[q.size].tricks_to_root = 0
    q.size += 1
    return 0


cdef object queue_state(Queue* q, Py_ssize_t i):
    cdef const uint8_t* state = q.cards + i * q.total
    cdef int n = q.entries[i].len0
    return (tuple(state[k] for k in range(n)), tuple(state[k] for k in range(n, q.total)))


def backward(roots, skips, max_states, max_seconds):
    """Breadth-first over every state that leads to one of `roots`; see
    reference.backward. Returns (states visited, [Reached] balanced, stopped_by)."""
    # Checked before any buffer is sized: every state is copied in at the
    # size of the first root's.
    roots, skips = check_search(roots, skips, 2)
    max_states, max_seconds = check_bounds(max_states, max_seconds)
    cdef Queue q
    memset(&q, 0, sizeof(Queue))
    q.total = len(roots[0][0][0]) + len(roots[0][0][1])
    cdef Py_ssize_t i = 0, limit = max_states, n_roots = len(roots)
    cdef uint8_t* who = <uint8_t*>malloc(q.total + 1)
    cdef uint8_t* skip_cards = <uint8_t*>malloc(max(1, n_roots) * q.total)
    cdef int* skip_len0 = <int*>malloc(max(1, n_roots) * sizeof(int))
    cdef int* skip_leader = <int*>malloc(max(1, n_roots) * sizeof(int))
    cdef int failed = 0, stopped_by_time = 0
    cdef clock_t deadline = clock() + <clock_t>(max_seconds * CLOCKS_PER_SEC)
    try:
        if who == NULL or skip_cards == NULL or skip_len0 == NULL or skip_leader == NULL:
            raise MemoryError()
        for r, (hands, leader) in enumerate(roots):
            queue_push(&q, hands, leader)
            skip_leader[r] = -1
            if skips[r] is not None:
                skip_hands, skip_leader[r] = skips[r]
                skip_len0[r] = len(skip_hands[0])
                for k, card in enumerate(chain(*skip_hands)):
                    skip_cards[r * q.total + k] = card
        with nogil:
            while i < q.size and i < limit:
                if i % 4096 == 0 and clock() > deadline:
                    stopped_by_time = 1
                    break
                if i < n_roots and skip_leader[i] >= 0:
                    failed = expand(&q, i, skip_cards + i * q.total, skip_len0[i], skip_leader[i], who)
                else:
                    failed = expand(&q, i, NULL, 0, 0, who)
                if failed:
                    break
                i += 1
        if failed:
            raise MemoryError()
        balanced = [Reached(queue_state(&q, k), q.entries[k].leader, q.entries[k].cards_to_root,
                          q.entries[k].tricks_to_root) for k in range(i) if 2 * q.entries[k].len0 == q.total]
        return i, balanced, None if i == q.size else "time" if stopped_by_time else "states"
    finally:
        queue_free(&q)
        free(who); free(skip_cards); free(skip_len0); free(skip_leader)


# Backward play for any table of 2 to 4 seats, players out included
# (reference.predecessors, reference.backward_to).

from ._game cimport MAX_PLAYERS as SEATS     # the seats of the largest table (decks.MAX_PLAYERS)

cdef struct Seated:
    # One state of a table's backward search, beside its cards.
    int64_t cards_to_root
    int64_t tricks_to_root
    int32_t length[SEATS]   # cards in each seat's hand, 0 for a player who is out
    int8_t leader


cdef struct Table:
    # States of a table's backward search, in the order found: state i holds
    # seat 0's hand, then seat 1's ..., in cards[i * total ...].
    int total
    int players
    Py_ssize_t size
    Py_ssize_t capacity
    uint8_t* cards
    Seated* entries


cdef struct Frame:
    # Where the replay of a pile stands: the next card's index, who lays it,
    # the penalty owed and to whom, who is still in (a bit per seat), and
    # the cards each seat has laid.
    int k
    int player
    int owed
    int court_player
    int still_in
    int laid[SEATS]


cdef struct Ranked:
    int32_t rank
    int64_t index


cdef struct Scratch:
    # Reused by every expansion: the state expanded, who laid each card of
    # the pile, the frames of the replay still to follow.
    uint8_t* state
    uint8_t* who
    Frame* frames


cdef int table_grow(Table* t) noexcept nogil:
    return grow_arrays(&t.capacity, t.total, &t.cards, <void**>&t.entries, sizeof(Seated))


cdef void table_free(Table* t) noexcept nogil:
    free(t.cards)
    free(t.entries)


cdef inline int next_in(int still_in, int player, int players) noexcept nogil:
    player = (player + 1) % players
    while not (still_in >> player) & 1:
        player = (player + 1) % players
    return player


cdef inline int popcount(int bits) noexcept nogil:
    cdef int n = 0
    while bits:
        n += bits & 1
        bits >>= 1
    return n


cdef int32_t rank_of(const int32_t* length, int leader, int players, int guide,
                     const int* sizes) noexcept nogil:
    """The guide's rank of a state (reference._GUIDE_RANKS): lower goes first."""
    cdef int p, smallest, away
    if guide == 1:
        smallest = length[0]
        for p in range(1, players):
            if length[p] < smallest:
                smallest = length[p]
        return -smallest
    if guide == 2:
        away = 0
        for p in range(players):
            smallest = length[(leader + p) % players] - sizes[p]
            away += smallest if smallest >= 0 else -smallest
        return away
    return 0


cdef int emit(Table* t, Py_ssize_t i, Scratch* s, Frame* f, int size, int first, int back_in,
              const uint8_t* skip, const int32_t* skip_length, int skip_leader) noexcept nogil:
    """Append the predecessor that the replay `f` of the last `size` cards of
    the taker's hand found, unless it is `skip`. -1 when memory runs out."""
    cdef int players = t.players, total = t.total, taker = t.entries[i].leader, p, k
    cdef int32_t length[SEATS]
    cdef int32_t new_length[SEATS]
    cdef const uint8_t* hand[SEATS]
    cdef uint8_t* out[SEATS]
    cdef const uint8_t* pile
    cdef uint8_t* state
    for p in range(players):
        if (back_in >> p) & 1 and f.laid[p] == 0:
            return 0            # a player out now who was in laid a card
    k = 0
    for p in range(players):
        length[p] = t.entries[i].length[p]
        hand[p] = s.state + k
        k += length[p]
        new_length[p] = f.laid[p] + length[p]
    new_length[taker] -= size
    if new_length[taker] == 0:
        return 0
    if t.size == t.capacity and table_grow(t) != 0:
        return -1
    pile = hand[taker] + length[taker] - size
    state = t.cards + t.size * total
    k = 0
    for p in range(players):
        out[p] = state + k
        k += new_length[p]
    # Each player's cards from the trick go back on top of his hand.
    for k in range(size):
        out[s.who[k]][0] = pile[k]
        out[s.who[k]] += 1
    for p in range(players):
        memcpy(out[p], hand[p], length[p] - (size if p == taker else 0))
    if skip != NULL and first == skip_leader and memcmp(state, skip, total) == 0:
        for p in range(players):
            if new_length[p] != skip_length[p]:
                break
        else:
            return 0
    for p in range(players):
        t.entries[t.size].length[p] = new_length[p]
    for p in range(players, SEATS):
        t.entries[t.size].length[p] = 0
    t.entries[t.size].leader = first
    t.entries[t.size].cards_to_root = t.entries[i].cards_to_root + size
    t.entries[t.size].tricks_to_root = t.entries[i].tricks_to_root + 1
    t.size += 1
    return 0


cdef int expand_table(Table* t, Py_ssize_t i, Scratch* s, const uint8_t* skip, const int32_t* skip_length,
                      int skip_leader) noexcept nogil:
    """Append every predecessor of state i, in reference.predecessors' order,
    but the state `skip` (NULL: none). -1 when memory runs out."""
    cdef int players = t.players, taker = t.entries[i].leader, size, first, mask, p, bit, n_out = 0
    cdef int out_seat[SEATS]
    cdef int back_in, still_in, depth, card
    cdef bint resume
    cdef Frame f
    cdef const uint8_t* pile
    cdef int32_t length_taker = t.entries[i].length[taker]
    cdef int offset = 0
    memcpy(s.state, t.cards + i * t.total, t.total)
    for p in range(players):
        if p < taker:
            offset += t.entries[i].length[p]
        if t.entries[i].length[p] == 0:
            out_seat[n_out] = p
            n_out += 1
    for size in range(1, length_taker + 1):
        pile = s.state + offset + length_taker - size
        for first in range(players):
            for mask in range(1 << n_out):
                back_in = 0
                for bit in range(n_out):
                    if (mask >> bit) & 1:
                        back_in |= 1 << out_seat[bit]
                still_in = back_in
                for p in range(players):
                    if t.entries[i].length[p]:
                        still_in |= 1 << p
                if not (still_in >> first) & 1 or popcount(still_in) < 2:
                    continue
                memset(&f, 0, sizeof(Frame))
                f.player = first
                f.court_player = -1
                f.still_in = still_in
                depth = 0
                resume = False
                while True:
                    # Follow the replay in f until its way ends, then the latest
                    # one put aside (resume: from its branch point, laying).
                    while True:
                        if not resume and (back_in >> f.player) & 1 and f.laid[f.player]:
                            # He may have had no card left: followed first, and
                            # laying on is put aside.
                            s.frames[depth] = f
                            depth += 1
                            f.still_in &= ~(1 << f.player)
                            if popcount(f.still_in) == 1:
                                if f.k == size and (f.still_in >> taker) & 1:
                                    if emit(t, i, s, &f, size, first, back_in, skip, skip_length,
                                            skip_leader) != 0:
                                        return -1
                                break
                            f.player = next_in(f.still_in, f.player, players)
                            continue
                        resume = False
                        if f.k == size:
                            break
                        card = pile[f.k]
                        s.who[f.k] = f.player
                        f.laid[f.player] += 1
                        f.k += 1
                        if card:
                            f.owed = card
                            f.court_player = f.player
                            f.player = next_in(f.still_in, f.player, players)
                        elif f.owed:
                            f.owed -= 1
                            if f.owed == 0:
                                if f.k == size and f.court_player == taker:
                                    if emit(t, i, s, &f, size, first, back_in, skip, skip_length,
                                            skip_leader) != 0:
                                        return -1
                                break
                        else:
                            f.player = next_in(f.still_in, f.player, players)
                    if depth == 0:
                        break
                    depth -= 1
                    f = s.frames[depth]
                    resume = True
    return 0


cdef int table_push(Table* t, hands, int leader) except -1:
    """Append a state given as Python hands (one sequence of codes per seat)."""
    cdef int k, p
    if t.size == t.capacity and table_grow(t) != 0:
        raise MemoryError()
    cdef uint8_t* state = t.cards + t.size * t.total
    for k, card in enumerate(chain(*hands)):
        state[k] = card
    for p in range(SEATS):
        t.entries[t.size].length[p] = len(hands[p]) if p < len(hands) else 0
    t.entries[t.size].leader = leader
    t.entries[t.size].cards_to_root = 0
    t.entries[t.size].tricks_to_root = 0
    t.size += 1
    return 0


cdef object table_state(Table* t, Py_ssize_t i):
    cdef const uint8_t* state = t.cards + i * t.total
    cdef int p, k = 0, n
    hands = []
    for p in range(t.players):
        n = t.entries[i].length[p]
        hands.append(tuple(state[k + j] for j in range(n)))
        k += n
    return tuple(hands)


cdef object table_found(Table* t, Py_ssize_t i):
    return Reached(table_state(t, i), t.entries[i].leader, t.entries[i].cards_to_root,
                 t.entries[i].tricks_to_root)


cdef int scratch_new(Scratch* s, int total) noexcept:
    s.state = <uint8_t*>malloc(total + 1)
    s.who = <uint8_t*>malloc(total + 1)
    s.frames = <Frame*>malloc((total + SEATS + 2) * sizeof(Frame))
    return -1 if s.state == NULL or s.who == NULL or s.frames == NULL else 0


cdef void scratch_free(Scratch* s) noexcept:
    free(s.state)
    free(s.who)
    free(s.frames)


def predecessors(hands, leader):
    """Every state at an empty table whose next trick leads to (hands,
    leader), any number of players from 2 to 4: [(hands, leader, cards laid
    in that trick)]; see reference.predecessors."""
    hands, leader = check_state(hands, leader)
    cdef Table t
    cdef Scratch s
    memset(&t, 0, sizeof(Table))
    t.players = len(hands)
    t.total = sum(len(hand) for hand in hands)
    try:
        if scratch_new(&s, t.total) != 0:
            raise MemoryError()
        table_push(&t, hands, leader)
        if expand_table(&t, 0, &s, NULL, NULL, 0) != 0:
            raise MemoryError()
        return [(table_state(&t, i), t.entries[i].leader, t.entries[i].cards_to_root) for i in range(1, t.size)]
    finally:
        table_free(&t)
        scratch_free(&s)


cdef inline bint ranked_before(Ranked a, Ranked b) noexcept nogil:
    return a.rank < b.rank or (a.rank == b.rank and a.index < b.index)


cdef void heap_push(Ranked* heap, Py_ssize_t* n, Ranked item) noexcept nogil:
    cdef Py_ssize_t i = n[0], parent
    n[0] += 1
    while i > 0:
        parent = (i - 1) // 2
        if not ranked_before(item, heap[parent]):
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = item


cdef Ranked heap_pop(Ranked* heap, Py_ssize_t* n) noexcept nogil:
    cdef Ranked top = heap[0], last
    cdef Py_ssize_t i = 0, child
    n[0] -= 1
    last = heap[n[0]]
    while True:
        child = 2 * i + 1
        if child >= n[0]:
            break
        if child + 1 < n[0] and ranked_before(heap[child + 1], heap[child]):
            child += 1
        if not ranked_before(heap[child], last):
            break
        heap[i] = heap[child]
        i = child
    heap[i] = last
    return top



def backward_to(roots, skips, sizes, guide, max_states, max_seconds):
    """Best first over every state that leads to one of `roots`, as the
    `guide` ranks them; see reference.backward_to. Returns (states visited,
    [Reached] with `sizes`, stopped_by, the Reached with the largest smallest hand
    or None)."""
    if not isinstance(guide, str) or guide not in GUIDES:
        raise ValueError(f"guide must be one of {', '.join(GUIDES)}, not {guide!r}")
    sizes = check_sizes(sizes)
    roots, skips = check_search(roots, skips, len(sizes))
    max_states, max_seconds = check_bounds(max_states, max_seconds)
    cdef int code = GUIDES.index(guide)
    cdef Table t
    cdef Scratch s
    cdef int players = len(sizes), p, smallest, most = 0, matches
    cdef int target[SEATS]
    cdef Py_ssize_t visited = 0, limit = max_states, n_roots = len(roots), heap_n = 0, heap_cap = 0
    cdef Py_ssize_t best = -1, made, k, index
    cdef Ranked item
    cdef Ranked* heap = NULL
    cdef void* grown
    cdef int failed = 0, stopped_by_time = 0
    cdef clock_t deadline = clock() + <clock_t>(max_seconds * CLOCKS_PER_SEC)
    memset(&t, 0, sizeof(Table))
    memset(&s, 0, sizeof(Scratch))
    t.players = players
    t.total = sum(len(hand) for hand in roots[0][0])
    for p in range(players):
        target[p] = sizes[p]
    cdef uint8_t* skip_cards = <uint8_t*>malloc(max(1, n_roots) * t.total)
    cdef int32_t* skip_length = <int32_t*>malloc(max(1, n_roots) * SEATS * sizeof(int32_t))
    cdef int* skip_leader = <int*>malloc(max(1, n_roots) * sizeof(int))
    hits = []
    try:
        if scratch_new(&s, t.total) != 0 or skip_cards == NULL or skip_length == NULL or skip_leader == NULL:
            raise MemoryError()
        for r, (hands, leader) in enumerate(roots):
            table_push(&t, hands, leader)
            skip_leader[r] = -1
            if skips[r] is not None:
                skip_hands, skip_leader[r] = skips[r]
                for p, hand in enumerate(skip_hands):
                    skip_length[r * SEATS + p] = len(hand)
                for k, card in enumerate(chain(*skip_hands)):
                    skip_cards[r * t.total + k] = card
        made = 0
        with nogil:
            while True:
                # Rank every state found since the last visit.
                while made < t.size:
                    if heap_n == heap_cap:
                        heap_cap = heap_cap * 2 if heap_cap else 1024
                        grown = realloc(heap, heap_cap * sizeof(Ranked))
                        if grown == NULL:
                            failed = 1
                            break
                        heap = <Ranked*>grown
                    item.rank = rank_of(t.entries[made].length, t.entries[made].leader, players, code, target)
                    item.index = made
                    heap_push(heap, &heap_n, item)
                    made += 1
                if failed or heap_n == 0 or visited == limit:
                    break
                if visited % 4096 == 0 and clock() > deadline:
                    stopped_by_time = 1
                    break
                index = heap_pop(heap, &heap_n).index
                visited += 1
                smallest = t.entries[index].length[0]
                matches = 1
                for p in range(players):
                    if t.entries[index].length[p] < smallest:
                        smallest = t.entries[index].length[p]
                    if t.entries[index].length[(t.entries[index].leader + p) % players] != target[p]:
                        matches = 0
                if smallest > most:
                    most = smallest
                    best = index
                if matches:
                    with gil:
                        hits.append(table_found(&t, index))
                if index < n_roots and skip_leader[index] >= 0:
                    failed = expand_table(&t, index, &s, skip_cards + index * t.total,
                                          skip_length + index * SEATS, skip_leader[index])
                else:
                    failed = expand_table(&t, index, &s, NULL, NULL, 0)
                if failed:
                    break
        if failed:
            raise MemoryError()
        stopped_by = None if heap_n == 0 else "time" if stopped_by_time else "states"
        return visited, hits, stopped_by, None if best < 0 else table_found(&t, best)
    finally:
        table_free(&t)
        scratch_free(&s)
        free(heap)
        free(skip_cards); free(skip_length); free(skip_leader)
