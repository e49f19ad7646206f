# cython: language_level=3
"""The compiled engine's game: the rules of docs/rules.md, as fast as the
machine allows, for the compiled modules that play games (`_engine.pyx`,
`_census.pyx`, `_loops.pyx`: their C-level contract is `_game.pxd`).

Games run in C over plain structs, without the GIL and without allocating:
the buffers of a Work are allocated once per call. Games step from court card
to court card over hands held as pieces (a run of plain cards and the court
card that ends it), two-player games in a loop of their own. Loop detection
is Brent's algorithm at empty tables, with one snapshot, so a game that ends
pays almost nothing for it; a loop it finds is then located exactly by
replaying the deal. Random deals are dealt here too, by the steps of c/deal.h.
"""

from libc.stdint cimport INT64_MAX, int64_t, uint8_t, uint32_t, uint64_t, uintptr_t
from libc.stddef cimport ptrdiff_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy, memmove, memset


cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil


cdef extern from "c/deal.h" nogil:     # the random deal's steps, as every compiled dealer takes them
    int draw_place "bg_draw_place" (uint8_t* places, int i, int total, uint64_t* state)
    int first_hand "bg_first_hand" (int split, int total, uint64_t* state)
    void deal_two "bg_deal_two" (uint8_t* out, const uint8_t* deck, int total, int first)

from . import cards, decks
from .deal import Deal
from .outcome import STATUSES, Outcome

if (MAX_PLAYERS, MAX_DECK, CODES) != (decks.MAX_PLAYERS, decks.MAX_DECK, cards.CODES):
    raise ImportError("beggar._game was built against another beggar.decks")

#: The engine's name in every Outcome it gives (engine.NAME of the compiled engine).
NAME = "compiled"


# ---------------------------------------------------------------- buffers

cdef int work_init(Work* w, int players, int total, bint lay_on) noexcept nogil:
    """Allocate the buffers of a Work for deals of `players` hands and `total`
    cards, played under the standard trick or lay-on."""
    cdef int i
    cdef size_t room = ROOM_FACTOR * (<size_t>total + 1) + PILE_SLACK
    cdef size_t game_size = players * room + total + 1 + PILE_SLACK
    w.deal = <uint8_t*>malloc(max(total, 64))       # deal_two_in_word zeroes 64
    w.piece_memory = <uint32_t*>malloc(4 * game_size * sizeof(uint32_t))
    if w.deal == NULL or w.piece_memory == NULL:
        work_free(w)
        return -1
    cdef Game* games[4]
    games[0] = &w.game
    games[1] = &w.snap
    games[2] = &w.first
    games[3] = &w.second
    for i in range(4):
        games[i].players = players
        games[i].total = total
        games[i].room = <int>room
        games[i].lay_on = lay_on
        games[i].pieces = w.piece_memory + i * game_size
        games[i].pile_pieces = games[i].pieces + players * room
    return 0


cdef void work_free(Work* w) noexcept nogil:
    free(w.deal)
    free(w.piece_memory)
    w.deal = NULL
    w.piece_memory = NULL


cdef void game_copy(Game* dst, const Game* src) noexcept nogil:
    """Copy the state of src into dst (same shape); dst keeps its own buffers."""
    cdef int p, size
    for p in range(src.players):
        size = src.end[p] - src.start[p]
        memcpy(dst.pieces + p * dst.room, src.pieces + p * src.room + src.start[p],
               size * sizeof(uint32_t))
        dst.start[p] = 0
        dst.end[p] = size
    dst.leader = src.leader
    dst.cards = src.cards
    dst.tricks = src.tricks


cdef int held(const Game* g, int p) noexcept nogil:
    """Cards in hand p."""
    cdef int i, cards = 0
    cdef uint32_t piece
    for i in range(g.start[p], g.end[p]):
        piece = g.pieces[p * g.room + i]
        cards += (piece >> COURT_BITS) + ((piece & COURT_MASK) != 0)
    return cards


cdef inline bint game_equal(const Game* a, const Game* b) noexcept nogil:
    """Same state at an empty table. The leader and the first hand's length
    are compared first, in one test without branches: they nearly always
    differ. (Scalar on purpose: a vector load of the indexes just stored by a
    trick would stall.)"""
    if (a.leader ^ b.leader) | ((a.end[0] - a.start[0]) ^ (b.end[0] - b.start[0])):
        return False
    return same_hands(a, b)


cdef bint same_hands(const Game* a, const Game* b) noexcept nogil:
    """Every hand holds the same cards. Pieces describe a hand uniquely, so
    they are compared as they are."""
    cdef int p, size
    for p in range(a.players):
        size = a.end[p] - a.start[p]
        if size != b.end[p] - b.start[p]:
            return False
    for p in range(a.players):
        size = a.end[p] - a.start[p]
        if memcmp(a.pieces + p * a.room + a.start[p], b.pieces + p * b.room + b.start[p],
                  size * sizeof(uint32_t)) != 0:
            return False
    return True


# ---------------------------------------------------------------- one trick

cdef inline void join_pile(uint32_t* tail, const uint32_t* pile, int n) noexcept nogil:
    """Put a pile of n pieces under a hand whose trailing piece is `tail`: the
    pile's first run joins the hand's trailing plain cards, its other pieces
    follow (the hand has room for them and PILE_SLACK more)."""
    cdef int i
    tail[0] += pile[0]
    # Most piles have one to four more pieces: copied without a loop or a
    # call, whatever lies beyond them is overwritten later.
    tail[1] = pile[1]
    tail[2] = pile[2]
    tail[3] = pile[3]
    tail[4] = pile[4]
    for i in range(PILE_SLACK + 1, n):
        tail[i] = pile[i]


cdef inline int leave_ring(int* ring, int players_in, int i) noexcept nogil:
    """Take ring[i], who is out, from the ring of the players still in (kept
    twice over, so that a turn k places on is ring[at + k] without a modulo).
    Returns how many are still in."""
    cdef int j
    players_in -= 1
    for j in range(i, players_in):
        ring[j] = ring[j + 1]
    for j in range(players_in):
        ring[players_in + j] = ring[j]
    return players_in


cdef bint trickn(Game* g) noexcept nogil:
    """Play one trick for 2-4 players with elimination from an empty table,
    stepping from court card to court card; True when the game is finished.

    While no penalty runs, the players still in lay in turn; the one at place
    k of the turn (the player to move at 0) meets the end of his head piece's
    run at turn run * (players in) + k: the first to get there lays his court
    card, or is out if his run was his last. Everyone before him laid plain
    cards only, so their runs just shrink. A payer then lays plain cards until
    the penalty is paid, his court card comes, or he runs out (and the next
    player still in owes the rest). The pile is built of the same pieces.
    Under lay-on the player to move lays his head piece alone."""
    cdef int players = g.players, room = g.room
    cdef int p, k, first, at = 0, players_in = 0, span, n = 0, taker, court_player = 0, payer
    cdef int ring[2 * MAX_PLAYERS]
    cdef uint32_t* head[MAX_PLAYERS]
    cdef uint32_t* pile = g.pile_pieces
    cdef uint32_t* hand
    cdef uint32_t piece, run, owed, pending = 0, turn, first_turn, earlier
    cdef int64_t laid = 0
    cdef int size
    cdef bint lay_on = g.lay_on      # a local: the stores through head[] may alias *g
    for p in range(players):
        head[p] = g.pieces + p * room + g.start[p]
        if g.end[p] - g.start[p] > 1 or head[p][0] != 0:
            if p == g.leader:
                at = players_in
            ring[players_in] = p
            players_in += 1
    for k in range(players_in):
        ring[players_in + k] = ring[k]
    while True:
        # No penalty runs; ring[at] lays next. Who meets his run's end first?
        # Under lay-on he lays alone: a turn of one player.
        span = 1 if lay_on else players_in
        first_turn = 0xFFFFFFFF
        first = 0
        for k in range(span):
            # Without a branch: which one comes first is a coin toss.
            turn = (head[ring[at + k]][0] >> COURT_BITS) * span + k
            earlier = -<uint32_t>(turn < first_turn)
            first_turn ^= (first_turn ^ turn) & earlier
            first ^= (first ^ k) & <int>earlier
        # By then each player laid the first one's run of plain cards, and one
        # more if his turn comes before the first one's (the first one's head
        # piece is left with its court card alone).
        run = first_turn // span
        for k in range(span):
            head[ring[at + k]][0] -= (run + (k < first)) << COURT_BITS
        pending += first_turn
        laid += first_turn
        at += first
        if at >= players_in:
            at -= players_in
        payer = ring[at]
        piece = head[payer][0]
        if piece & COURT_MASK == 0:
            # He runs out: out of the game, and the next player still in lays.
            players_in = leave_ring(ring, players_in, at)
            if players_in == 1:
                taker = ring[0]
                break
            if at >= players_in:
                at -= players_in
            continue
        head[payer] += 1
        pile[n] = pending << COURT_BITS | (piece & COURT_MASK)
        n += 1
        pending = 0
        laid += 1
        court_player = payer
        owed = piece & COURT_MASK
        # A penalty runs: payers lay until it is paid or a court card comes.
        while True:
            at += 1
            if at >= players_in:
                at -= players_in
            payer = ring[at]
            piece = head[payer][0]
            run = piece >> COURT_BITS
            if run >= owed:
                head[payer][0] = piece - (owed << COURT_BITS)
                pending += owed
                laid += owed
                taker = court_player
                break
            pending += run
            laid += run
            if piece & COURT_MASK == 0:     # the payer runs out: the next one owes the rest
                head[payer][0] = 0
                owed -= run
                players_in = leave_ring(ring, players_in, at)
                if players_in == 1:
                    taker = ring[0]
                    break
                at -= 1         # the next one now stands where he stood
                continue
            head[payer] += 1
            pile[n] = pending << COURT_BITS | (piece & COURT_MASK)
            n += 1
            pending = 0
            laid += 1
            court_player = payer
            owed = piece & COURT_MASK
        break
    pile[n] = pending << COURT_BITS
    n += 1
    for p in range(players):
        g.start[p] = <int>(head[p] - (g.pieces + p * room))
    # The taker puts the pile under his hand: its first run joins his trailing
    # plain cards, its other pieces follow.
    hand = g.pieces + taker * room
    if g.end[taker] + n + PILE_SLACK > room:
        size = g.end[taker] - g.start[taker]
        memmove(hand, hand + g.start[taker], size * sizeof(uint32_t))
        g.start[taker] = 0
        g.end[taker] = size
    join_pile(hand + g.end[taker] - 1, pile, n)
    g.end[taker] += n - 1
    g.leader = taker
    g.cards += laid
    g.tricks += 1
    for p in range(players):
        if p != taker and (g.end[p] - g.start[p] > 1 or g.pieces[p * room + g.start[p]] != 0):
            return False
    return True


cdef int run_by_court(Game* g, Game* snap, int64_t max_cards, int64_t max_tricks,
                      int64_t* period) noexcept nogil:
    """Play two-player tricks from g's state, stepping from court card to court
    card, until the game is finished (FINISHED), the state repeats the Brent
    state (LOOP, with *period set; `snap` is the snapshot buffer for Brent's
    algorithm as in run_tricks; NULL: no loop detection), or a limit is
    reached (STOPPED). g holds the state reached.

    Plain cards are interchangeable, so each step lays a whole run of them at
    once: while no penalty runs, the players lay plain cards in turn until one
    of them reaches his next court card (or runs out); a payer lays plain cards
    until the penalty is paid, his next court card comes up, or he runs out.
    The pile is built of the same pieces and joined to the taker's hand.

    The whole game stays in local variables, and the hands are followed by
    pointers to their head pieces, swapped as the turn changes sides: nothing
    waits on a value just stored in memory. Both coin tosses of a trick (who
    meets a court card first, who takes the pile) are worked out without
    branches; only the end of a penalty is a branch.
    """
    cdef int room = g.room, leader = g.leader, n, i, event
    cdef uint32_t* lead = g.pieces + leader * room + g.start[leader]
    cdef uint32_t* other = g.pieces + (leader ^ 1) * room + g.start[leader ^ 1]
    cdef uintptr_t lead_end = <uintptr_t>(g.pieces + leader * room + g.end[leader])
    cdef uintptr_t other_end = <uintptr_t>(g.pieces + (leader ^ 1) * room + g.end[leader ^ 1])
    cdef uint32_t* pile = g.pile_pieces
    cdef uint32_t* first
    cdef uint32_t* second
    cdef uint32_t* taker_hand
    cdef uint32_t* other_hand
    cdef uint32_t* hand
    cdef uint32_t lead_piece, other_piece, a, b, owed, piece, run, laid, x, late, taker_other
    cdef uintptr_t swap
    cdef int64_t cards = g.cards, tricks = g.tricks, power = BRENT_START, steps = 0
    # The snapshot's leader and hand lengths, as they stand in `lead`/`other`
    # terms; leader -1 until the first snapshot is taken, which no state matches.
    cdef int snap_leader = -1
    cdef ptrdiff_t snap_lead_length = 0, snap_other_length = 0
    while True:
        lead_piece = lead[0]
        other_piece = other[0]
        a = lead_piece >> COURT_BITS
        b = other_piece >> COURT_BITS
        # Laid in turn, the leader's court card (or his running out) comes at
        # card 2a + 1, the other's at card 2b + 2. Whoever meets his first
        # lays x plain cards before it, the second player x + late.
        late = a > b
        # Selected with masks: written as conditionals, they become branches.
        swap = -<uintptr_t>late
        x = a ^ ((a ^ b) & <uint32_t>swap)
        first = <uint32_t*>(<uintptr_t>lead ^ ((<uintptr_t>lead ^ <uintptr_t>other) & swap))
        second = <uint32_t*>(<uintptr_t>other ^ ((<uintptr_t>lead ^ <uintptr_t>other) & swap))
        owed = (lead_piece ^ ((lead_piece ^ other_piece) & <uint32_t>swap)) & COURT_MASK
        # The second player's head piece, kept in a register for the first payment.
        piece = (other_piece ^ ((lead_piece ^ other_piece) & <uint32_t>swap)) - ((x + late) << COURT_BITS)
        second[0] = piece
        pile[0] = (2 * x + late) << COURT_BITS | owed
        laid = 2 * x + late
        n = 1
        if owed == 0:       # first runs out: the second player takes the pile
            first[0] = 0
            taker_other = late ^ 1
            taker_hand = second
            other_hand = first
        else:
            # The second player owes; taker_hand is the court player's.
            taker_other = late
            taker_hand = first + 1
            other_hand = second
            laid += 1
            while True:
                run = piece >> COURT_BITS
                if run >= owed:     # paid in full with plain cards
                    other_hand[0] = piece - (owed << COURT_BITS)
                    pile[n] = owed << COURT_BITS
                    laid += owed
                    break
                if piece & COURT_MASK == 0:     # the payer runs out
                    other_hand[0] = 0
                    pile[n] = piece
                    laid += run
                    break
                # He lays his run and the court card after it: the pile gets
                # the very piece, and the other player now owes.
                pile[n] = piece
                n += 1
                laid += run + 1
                owed = piece & COURT_MASK
                taker_other ^= 1
                other_hand, taker_hand = taker_hand, other_hand + 1
                piece = other_hand[0]
            n += 1
        # The taker leads the next trick: his side becomes the leader's.
        leader ^= taker_other
        swap = (lead_end ^ other_end) & -<uintptr_t>taker_other
        lead_end ^= swap
        other_end ^= swap
        lead = taker_hand
        other = other_hand
        # He puts the pile under his hand: its first run joins his trailing
        # plain cards, its other pieces follow.
        hand = g.pieces + leader * room
        if lead_end + (n + PILE_SLACK) * sizeof(uint32_t) > <uintptr_t>(hand + room):
            i = <int>((<uint32_t*>lead_end) - lead)
            memmove(hand, lead, i * sizeof(uint32_t))
            lead = hand
            lead_end = <uintptr_t>(hand + i)
        join_pile((<uint32_t*>lead_end) - 1, pile, n)
        lead_end += (n - 1) * sizeof(uint32_t)
        cards += laid
        tricks += 1
        # Finished when the other hand is down to its trailing piece, and that is empty.
        if <uintptr_t>(other + 1) == other_end and other[0] == 0:
            event = FINISHED
            break
        if snap != NULL:
            steps += 1
            # Leader and hand lengths first, in one test on registers: they
            # nearly always differ from the snapshot's.
            if (leader ^ snap_leader) | (((<uint32_t*>lead_end) - lead) ^ snap_lead_length) \
                    | (((<uint32_t*>other_end) - other) ^ snap_other_length) == 0:
                store_sides(g, leader, lead, lead_end, other, other_end, cards, tricks)
                if same_hands(g, snap):
                    period[0] = steps
                    event = LOOP
                    break
            if steps == power:
                snap_leader = leader
                snap_lead_length = (<uint32_t*>lead_end) - lead
                snap_other_length = (<uint32_t*>other_end) - other
                store_sides(g, leader, lead, lead_end, other, other_end, cards, tricks)
                game_copy(snap, g)
                power <<= 1
                steps = 0
        if cards >= max_cards or tricks >= max_tricks:
            event = STOPPED
            break
    store_sides(g, leader, lead, lead_end, other, other_end, cards, tricks)
    return event


cdef inline void store_sides(Game* g, int leader, uint32_t* lead, uintptr_t lead_end,
                             uint32_t* other, uintptr_t other_end,
                             int64_t cards, int64_t tricks) noexcept nogil:
    """Write run_by_court's local state back into g."""
    cdef uint32_t* base = g.pieces + leader * g.room
    g.leader = leader
    g.start[leader] = <int>(lead - base)
    g.end[leader] = <int>((<uint32_t*>lead_end) - base)
    base = g.pieces + (leader ^ 1) * g.room
    g.start[leader ^ 1] = <int>(other - base)
    g.end[leader ^ 1] = <int>((<uint32_t*>other_end) - base)
    g.cards = cards
    g.tricks = tricks


cdef inline bint trick(Game* g) noexcept nogil:
    """Play one trick from an empty table; True when the game is finished."""
    cdef int64_t unused
    if g.players == 2 and not g.lay_on:
        return run_by_court(g, NULL, INT64_MAX, g.tricks + 1, &unused) == FINISHED
    return trickn(g)


# ---------------------------------------------------------------- one game

cdef void set_counts(Result* r, const Game* g) noexcept nogil:
    cdef int p
    for p in range(g.players):
        r.counts[p] = held(g, p)


cdef void end_finished(Result* r, const Game* g) noexcept nogil:
    # The winner leads and holds every card: counted, not summed from his
    # pieces (most games end here, and the sum is a walk over a hand).
    cdef int p
    r.status = FINISHED
    r.winner = g.leader
    r.cards = g.cards
    r.tricks = g.tricks
    for p in range(g.players):
        r.counts[p] = 0
    r.counts[g.leader] = g.total


cdef void end_stopped(Result* r, const Game* g) noexcept nogil:
    cdef int p, most = -1, winner = -1
    for p in range(g.players):
        if held(g, p) > most:
            most = held(g, p)
            winner = p
        elif held(g, p) == most:
            winner = -1
    r.status = STOPPED
    r.winner = winner
    r.cards = g.cards
    r.tricks = g.tricks
    set_counts(r, g)


cdef int64_t loop_entry(Work* w, int64_t period) noexcept nogil:
    """Given the loop's period in tricks, replay the deal twice, `period` tricks
    apart, to the first state they share: that is the entry. Leaves w.first at
    the entry and w.second at the first repeat; returns the entry trick."""
    cdef int64_t i
    game_load(&w.first, w.deal, w.hand_sizes)
    game_load(&w.second, w.deal, w.hand_sizes)
    for i in range(period):
        trick(&w.second)
    while not game_equal(&w.first, &w.second):
        trick(&w.first)
        trick(&w.second)
    return w.first.tricks


cdef void end_loop(Result* r, Work* w, int64_t period) noexcept nogil:
    loop_entry(w, period)
    r.status = LOOP
    r.winner = -1
    r.cards = w.second.cards
    r.tricks = w.second.tricks
    set_counts(r, &w.second)
    r.entry_tricks = w.first.tricks
    r.entry_cards = w.first.cards
    r.period_tricks = period
    r.period_cards = w.second.cards - w.first.cards


cdef int state_key(const Game* g, uint8_t* key) noexcept nogil:
    """Write the state at an empty table as cycle.state_key orders states:
    from the leader's seat on, each hand's length and its cards. Returns the
    key's length."""
    cdef int p, seat, i, k = 0, size
    cdef uint32_t piece, run
    for seat in range(g.players):
        p = (g.leader + seat) % g.players
        size = held(g, p)
        if size == 0: continue     # a player who is out is no part of the state (cycle.py)
        key[k] = <uint8_t>size
        k += 1
        for i in range(g.start[p], g.end[p]):
            piece = g.pieces[p * g.room + i]
            run = piece >> COURT_BITS
            memset(key + k, 0, run)
            k += run
            if piece & COURT_MASK:
                key[k] = piece & COURT_MASK
                k += 1
    return k


cdef void loop_key(Work* w, const Result* r, uint8_t* key) noexcept nogil:
    """The canonical state of the loop that the deal in w.deal falls into
    (its result `r`, a loop, of at most MAX_DECK cards): the least state of
    its cycle in cycle.state_key's order, written to `key`."""
    cdef uint8_t state[MAX_DECK + MAX_PLAYERS + 1]
    cdef int64_t i
    cdef int size
    game_load(&w.first, w.deal, w.hand_sizes)
    for i in range(r.entry_tricks):
        trick(&w.first)
    size = state_key(&w.first, key)
    for i in range(r.period_tricks - 1):
        trick(&w.first)
        state_key(&w.first, state)
        if memcmp(state, key, size) < 0:
            memcpy(key, state, size)


cdef uint64_t game_hash(const Game* g) noexcept nogil:
    """A two-player state's hash (c/hash.h): the pieces of the leader's
    hand, a mark, then the other hand's and a mark."""
    cdef uint64_t h = FNV_START
    cdef int seat, p, i
    for seat in range(2):
        p = g.leader ^ seat
        for i in range(g.start[p], g.end[p]):
            h = hash_word(h, g.pieces[p * g.room + i])
        h = hash_word(h, HAND_MARK)
    return h


cdef uint64_t cycle_hash(Work* w, int64_t period) noexcept nogil:
    """A two-player loop's cycle hash (c/hash.h), played by court: the
    least game_hash of the states of its cycle of `period` tricks, walked
    from w.first (where play_game leaves a loop's entry). w.first goes round
    to where it was."""
    cdef uint64_t least = game_hash(&w.first), h
    cdef int64_t k
    for k in range(1, period + 1):
        trick(&w.first)
        h = game_hash(&w.first)
        least = h if h < least else least
    return least


cdef void end_at_limit(Result* r, Work* w) noexcept nogil:
    """The limit was reached at trick T before Brent saw a loop. A state seen
    twice by trick T means the state at T lies on a loop whose period is at
    most T: play on from T for up to T tricks looking for it again. If it comes
    back, locate the loop; it counts when its first repeat is at or before T."""
    cdef Game* g = &w.game
    cdef int64_t limit_tricks = g.tricks, period
    game_copy(&w.snap, g)
    game_copy(&w.first, g)
    while w.first.tricks - limit_tricks < limit_tricks:
        if trick(&w.first):
            break
        if game_equal(&w.first, &w.snap):
            period = w.first.tricks - limit_tricks
            if loop_entry(w, period) + period <= limit_tricks:
                end_loop(r, w, period)
                return
            break
    end_stopped(r, g)


cdef int run_tricks(Game* g, Game* snap, int64_t max_cards, int64_t max_tricks,
                    int64_t* period) noexcept nogil:
    """run_by_court's contract, for every kind of game: play tricks until the
    game is finished, repeats a state (snap NULL: no loop detection), or
    reaches a limit (INT64_MAX: none).

    Loops are found by Brent's algorithm: a snapshot of the state is taken
    after BRENT_START tricks and again whenever the tricks since the last one
    reach a doubling power; a state equal to the snapshot closes a loop whose
    period is the tricks since it was taken. Starting late is still exact (a
    state before the loop never repeats) and spares most games that end any
    comparison at all."""
    cdef int64_t power = BRENT_START, steps = 0
    cdef bint have_snap = False
    if g.players == 2 and not g.lay_on:
        return run_by_court(g, snap, max_cards, max_tricks, period)
    while True:
        if trick(g):
            return FINISHED
        if snap != NULL:
            steps += 1
            if have_snap and game_equal(g, snap):
                period[0] = steps
                return LOOP
            if steps == power:
                game_copy(snap, g)
                have_snap = True
                power <<= 1
                steps = 0
        if g.cards >= max_cards or g.tricks >= max_tricks:
            return STOPPED


cdef void play_game(Work* w, int64_t max_cards, int64_t max_tricks, bint detect_loops,
                    Result* r) noexcept nogil:
    """Play the game in w.game, freshly loaded from w.deal, to its end; limits
    are INT64_MAX (none) or >= 1."""
    cdef Game* g = &w.game
    cdef int64_t period
    event = run_tricks(g, &w.snap if detect_loops else NULL, max_cards, max_tricks, &period)
    if event == FINISHED:
        end_finished(r, g)
    elif event == LOOP:
        end_loop(r, w, period)
    elif detect_loops:
        end_at_limit(r, w)
    else:
        end_stopped(r, g)


# ---------------------------------------------------------------- random deals

cdef uint8_t IDENTITY[MAX_DECK]     # 0, 1, 2, ...: where a shuffle starts


cdef void fill_identity() noexcept:
    cdef int i
    for i in range(MAX_DECK):
        IDENTITY[i] = i


fill_identity()


cdef void deck_from(uint8_t* deck, uint64_t* state, const Shape* s) noexcept nogil:
    """The deck shuffled with the next draws of `state`, as shuffle.deck_from:
    a random free position for each court card in turn."""
    cdef uint8_t positions[MAX_DECK]
    cdef int i, total = s.total
    cdef uint64_t random = state[0]     # in a register: byte stores may alias memory
    memset(deck, 0, total)
    memcpy(positions, IDENTITY, total)
    for i in range(s.n_courts):
        deck[draw_place(positions, i, total, &random)] = s.courts[i]
    state[0] = random


cdef void deal_two_in_word(Work* w, uint64_t* state, const Shape* s) noexcept nogil:
    """deal_random for two players and at most 64 cards (every deck people
    play): the court cards' places are bits of one word in a register, and
    neither a deck nor its plain cards are written out, only the court cards,
    into w.deal (zeroed) and the pieces. Hand h holds the alternate deal's
    places h, h + 2, ... (card 2k + h is its card k), and the longer hand
    the places past them too (card i is its card i - short_hand)."""
    cdef uint8_t positions[64]
    cdef uint8_t code[64]       # read only where `courts` has a bit
    cdef uint64_t random = state[0], courts = 0, bits, alternate
    cdef int i, h, place, index, last, n, total = s.total, first, short_hand
    cdef uint32_t* pieces
    cdef uint8_t* out
    memcpy(positions, IDENTITY, 64)
    for i in range(s.n_courts):
        place = draw_place(positions, i, total, &random)
        code[place] = s.courts[i]
        courts |= (<uint64_t>1) << place
    first = first_hand(s.split, total, &random)
    state[0] = random
    w.hand_sizes[0] = first
    w.hand_sizes[1] = total - first
    short_hand = min(first, total - first)
    alternate = <uint64_t>-1 if short_hand == 32 else ((<uint64_t>1) << (2 * short_hand)) - 1
    memset(w.deal, 0, 64)       # a constant size, a few stores; work_init gives w.deal room for 64
    for h in range(2):
        bits = courts & alternate & (<uint64_t>0x5555555555555555 << h)
        if w.hand_sizes[h] > short_hand:
            bits |= courts & ~alternate
        pieces = w.game.pieces + h * w.game.room
        out = w.deal + h * first
        n = 0
        last = -1
        while bits:
            i = __builtin_ctzll(bits)
            bits &= bits - 1
            index = i >> 1 if i < 2 * short_hand else i - short_hand
            pieces[n] = <uint32_t>(index - last - 1) << COURT_BITS | code[i]
            out[index] = code[i]
            n += 1
            last = index
        pieces[n] = <uint32_t>(w.hand_sizes[h] - 1 - last) << COURT_BITS
        w.game.start[h] = 0
        w.game.end[h] = n + 1
    w.game.leader = 0
    w.game.cards = 0
    w.game.tricks = 0


cdef void deal_random(Work* w, uint64_t* state, const Shape* s) noexcept nogil:
    """The next random deal of `state` (Deal.shuffled): into w.deal, hands one
    after another, and loaded into w.game. Cards go one at a time, the leader
    first, a full hand skipped."""
    if s.players == 2 and s.total <= 64:
        deal_two_in_word(w, state, s)
        return
    cdef uint8_t deck[MAX_DECK]
    cdef int p, i, index, n_players = s.players, total = s.total
    cdef int offset[MAX_PLAYERS]
    deck_from(deck, state, s)
    if n_players == 2:
        # The split's first hand, or one drawn, or even; both hands take cards
        # alternately, then the longer the rest.
        w.hand_sizes[0] = first_hand(s.split, total, state)
        w.hand_sizes[1] = total - w.hand_sizes[0]
        deal_two(w.deal, deck, total, w.hand_sizes[0])
    else:
        for p in range(n_players):      # as evenly as possible, the leader first
            w.hand_sizes[p] = total // n_players + (p < total % n_players)
        offset[0] = 0
        for p in range(1, n_players):
            offset[p] = offset[p - 1] + w.hand_sizes[p - 1]
        p = index = 0       # card i goes to hand p, as its card number `index`
        for i in range(total):
            w.deal[offset[p] + index] = deck[i]
            p += 1
            if p == n_players:
                p = 0
                index += 1
    game_load(&w.game, w.deal, w.hand_sizes)


cdef object shape_init(Shape* s, deck, players, split):
    """Fill `s` from a checked (decks.Deck, players, split)."""
    s.total = deck.total
    s.players = players
    s.split = 0 if split is None else -1 if split == "random" else split
    s.n_courts = len(deck.courts)
    for i, court in enumerate(deck.courts):
        s.courts[i] = court


# ---------------------------------------------------------------- Python values

cdef object to_outcome(const Result* r, int players):
    status = STATUSES[r.status]
    loop = r.status == LOOP
    return Outcome(
        status, None if r.winner < 0 else r.winner, r.cards, r.tricks,
        tuple(r.counts[p] for p in range(players)),
        (r.entry_tricks, r.entry_cards) if loop else None,
        (r.period_tricks, r.period_cards) if loop else None,
        engine=NAME)


cdef object hands_of(const uint8_t* cards, const int* sizes, int players):
    """The deal whose hands of `sizes` lie one after another in `cards`."""
    cdef int p, offset = 0
    hands = []
    for p in range(players):
        hands.append([cards[offset + i] for i in range(sizes[p])])
        offset += sizes[p]
    return Deal.from_codes(hands)
