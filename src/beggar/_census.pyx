# cython: language_level=3
"""Census, compiled: play every arrangement of a deck in a block of ranks.

Same function, signature and results as `beggar.reference.census` (see
census.py for the order of arrangements, cycle.py for the canonical state of a loop).
The block's first arrangement comes from exact unranking in Python; the rest
follow by next-arrangement in C (c/census.h, the kernels' own), each dealt
by a table of positions made once and played by the engine of `_game.pyx`,
without the GIL.
"""

from libc.stdint cimport INT64_MAX, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

from cpython.exc cimport PyErr_CheckSignals

from ._game cimport (CHUNK, LOOP, MAX_DECK, MAX_PLAYERS, Result, Work, game_load, hands_of, loop_key,
                       play_game, to_outcome, work_free, work_init)


cdef extern from "c/census.h" nogil:
    # Step the n cards to the next arrangement in the census's order (census.next_arrangement).
    bint next_arrangement "bg_next_arrangement" (uint8_t* cards, int n)

from . import census as census_block
from .decks import STANDARD, deal_out
from .outcome import STATUSES
from .states import CensusBlock

cdef enum:
    # Game lengths counted in an array up to here; longer ones (rare) one by one.
    HISTOGRAM = 65536
    # Loop deals held before the block goes back to Python.
    LOOPS_HELD = 1024
    KEY_SIZE = MAX_DECK + MAX_PLAYERS + 1


cdef struct Kept:
    # A game kept for Python: where it stands in the block, its result, its
    # arrangement's deal, and for a loop its canonical state.
    int64_t offset
    Result result
    uint8_t deal[MAX_DECK]
    uint8_t key[KEY_SIZE]


cdef void keep_longest(Kept* longest, int* n_longest, int top, const Kept* game) noexcept nogil:
    """Put `game` among the `top` longest, longest first, the earlier on a tie."""
    cdef int i = n_longest[0]
    if top == 0 or (i == top and game.result.cards <= longest[top - 1].result.cards):
        return
    if i < top:
        n_longest[0] += 1
    else:
        i = top - 1
    while i > 0 and longest[i - 1].result.cards < game.result.cards:
        longest[i] = longest[i - 1]
        i -= 1
    longest[i] = game[0]


def census(first, deals, deck=STANDARD, players=2, split=None, top=10, lay_on=False):
    """Play the arrangements of `deck` with ranks first .. first+deals-1
    (census.py), dealt to `players` (and `split`); returns a states.CensusBlock."""
    deck, players, split, sizes = census_block.check_block(first, deals, deck, players, split, top)
    cdef int total = deck.total, n_players = players, n_top = top, n_longest = 0, n_loops, i, k
    cdef int hand_sizes[MAX_PLAYERS]
    cdef uint8_t target[MAX_DECK]       # where card i of an arrangement goes in the deal
    cdef uint8_t cards[MAX_DECK]
    cdef int64_t n_deals = deals, done = 0, block, offset
    cdef int64_t statuses[3]
    cdef int64_t* cards_seen = <int64_t*>calloc(HISTOGRAM, sizeof(int64_t))
    cdef int64_t* tricks_seen = <int64_t*>calloc(HISTOGRAM, sizeof(int64_t))
    cdef Kept* longest = <Kept*>malloc((n_top + 1) * sizeof(Kept))
    cdef Kept* loops = <Kept*>malloc(LOOPS_HELD * sizeof(Kept))
    cdef Kept* game = <Kept*>malloc(sizeof(Kept))
    cdef Work w
    cdef Result r
    long_cards, long_tricks, found_loops = [], [], []
    try:
        # work_init first, as w is set by nothing before it; a Work that fails
        # to start frees what it took, so that work_free below is harmless.
        if work_init(&w, n_players, total, lay_on) != 0 or cards_seen == NULL or tricks_seen == NULL or longest == NULL \
                or loops == NULL or game == NULL:
            raise MemoryError()
        statuses[0] = statuses[1] = statuses[2] = 0
        # Deal the card numbers themselves: slot s of the deal gets card number n.
        for slot, number in enumerate(n for hand in deal_out(range(total), sizes) for n in hand):
            target[number] = slot
        for i, card in enumerate(census_block.unrank(first, deck)):
            cards[i] = card
        for i in range(n_players):
            w.hand_sizes[i] = hand_sizes[i] = sizes[i]
        while done < n_deals:
            block = min(n_deals - done, CHUNK)
            n_loops = 0
            with nogil:
                offset = done
                while offset < done + block:
                    if offset:
                        next_arrangement(cards, total)
                    for i in range(total):
                        w.deal[target[i]] = cards[i]
                    game_load(&w.game, w.deal, hand_sizes)
                    play_game(&w, INT64_MAX, INT64_MAX, True, &r)
                    statuses[r.status] += 1
                    if r.cards < HISTOGRAM and r.tricks < HISTOGRAM:
                        cards_seen[r.cards] += 1
                        tricks_seen[r.tricks] += 1
                    else:
                        with gil:
                            long_cards.append(r.cards)
                            long_tricks.append(r.tricks)
                    offset += 1
                    if r.status == LOOP or (n_top and (n_longest < n_top
                                                       or r.cards > longest[n_top - 1].result.cards)):
                        game.offset = offset - 1
                        game.result = r
                        memcpy(game.deal, w.deal, total)
                        if r.status != LOOP:
                            keep_longest(longest, &n_longest, n_top, game)
                        else:
                            loop_key(&w, &r, game.key)
                            loops[n_loops] = game[0]
                            n_loops += 1
                            if n_loops == LOOPS_HELD:
                                break
            for k in range(n_loops):
                found_loops.append(kept(&loops[k], first, hand_sizes, n_players, True))
            done = offset
            PyErr_CheckSignals()
        cards_count = {length: cards_seen[length] for length in range(HISTOGRAM) if cards_seen[length]}
        tricks_count = {length: tricks_seen[length] for length in range(HISTOGRAM) if tricks_seen[length]}
        for length in long_cards:
            cards_count[length] = cards_count.get(length, 0) + 1
        for length in long_tricks:
            tricks_count[length] = tricks_count.get(length, 0) + 1
        return CensusBlock(first, deals, {STATUSES[s]: statuses[s] for s in range(3)}, cards_count, tricks_count,
                      [kept(&longest[k], first, hand_sizes, n_players, False)[:3] for k in range(n_longest)],
                      found_loops)
    finally:
        work_free(&w)
        free(cards_seen); free(tricks_seen); free(longest); free(loops); free(game)


cdef object kept(const Kept* game, first, const int* sizes, int players, bint with_key):
    """A kept game as (rank, Deal, Outcome[, canonical state key])."""
    cdef int size = 0, p
    entry = (first + game.offset, hands_of(game.deal, sizes, players), to_outcome(&game.result, players))
    if not with_key:
        return entry
    for p in range(players):
        # Every card, and a length for each hand still in at the loop (_game.state_key).
        size += sizes[p] + (game.result.counts[p] > 0)
    return entry + ((<const char*>game.key)[:size],)
