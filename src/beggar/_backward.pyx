# cython: language_level=3
"""Backward play, compiled: every state that leads to a given one.

Same functions, signatures and results as the backward half of
`beggar.reference` (predecessors, backward); see docs/rules.md for the rule
that makes it exact: at an empty table the last trick's pile is a suffix of
its taker's hand. States are kept breadth first in one growing array, and the
search runs without the GIL.
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset
from libc.time cimport CLOCKS_PER_SEC, clock, clock_t

from .states import Found


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


cdef int queue_grow(Queue* q) noexcept nogil:
    cdef Py_ssize_t capacity = q.capacity * 2 if q.capacity else 1024
    cdef void* cards = realloc(q.cards, capacity * q.total)
    if cards == NULL:
        return -1
    q.cards = <uint8_t*>cards
    cdef void* entries = realloc(q.entries, capacity * sizeof(Entry))
    if entries == NULL:
        return -1
    q.entries = <Entry*>entries
    q.capacity = capacity
    return 0


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
    k = 0
    for hand in hands:
        for card in hand:
            state[k] = card
            k += 1
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


def predecessors(hands, leader):
    """Every two-player state at an empty table whose next trick leads to
    (hands, leader): [(hands, leader, cards laid in that trick)]; see
    reference.predecessors."""
    cdef Queue q
    memset(&q, 0, sizeof(Queue))
    q.total = len(hands[0]) + len(hands[1])
    cdef uint8_t* who = <uint8_t*>malloc(q.total + 1)
    if who == NULL:
        raise MemoryError()
    try:
        queue_push(&q, hands, leader)
        if expand(&q, 0, NULL, 0, 0, who) != 0:
            raise MemoryError()
        return [(queue_state(&q, i), q.entries[i].leader, q.entries[i].cards_to_root)
                for i in range(1, q.size)]
    finally:
        queue_free(&q)
        free(who)


def backward(roots, skips, max_states, max_seconds):
    """Breadth-first over every state that leads to one of `roots`; see
    reference.backward. Returns (states visited, [Found] balanced, stopped_by)."""
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
    if who == NULL or skip_cards == NULL or skip_len0 == NULL or skip_leader == NULL:
        free(who); free(skip_cards); free(skip_len0); free(skip_leader)
        raise MemoryError()
    try:
        for r, (hands, leader) in enumerate(roots):
            queue_push(&q, hands, leader)
            skip_leader[r] = -1
            if skips[r] is not None:
                skip_hands, skip_leader[r] = skips[r]
                skip_len0[r] = len(skip_hands[0])
                for k, card in enumerate(list(skip_hands[0]) + list(skip_hands[1])):
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
        balanced = [Found(queue_state(&q, k), q.entries[k].leader, q.entries[k].cards_to_root,
                          q.entries[k].tricks_to_root) for k in range(i) if 2 * q.entries[k].len0 == q.total]
        return i, balanced, None if i == q.size else "time" if stopped_by_time else "states"
    finally:
        queue_free(&q)
        free(who); free(skip_cards); free(skip_len0); free(skip_leader)
