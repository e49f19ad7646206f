"""The compiled game's C-level contract, for the compiled modules that play
games (`_engine.pyx`, `_census.pyx`, `_loops.pyx`; `_backward.pyx` takes its
bound of seats): its structs, and the functions that set up, load, deal and
play a game. Everything here is defined in `_game.pyx`, but game_load, inline
below."""

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t


cdef enum:
    MAX_PLAYERS = 4
    # The codes a card plays as (cards.CODES): 0 plain, 1-4 what a court card pays.
    CODES = 5
    # Random deals: at most decks.MAX_DECK cards.
    MAX_DECK = 255
    # Deals per GIL-free stretch in sample(): short enough that Ctrl-C is felt.
    CHUNK = 65536

cdef enum:
    FINISHED = 0
    LOOP = 1
    STOPPED = 2

cdef struct Game:
    int players
    int total
    int room            # elements of buffer per hand: ROOM_FACTOR * (total + 1) + PILE_SLACK
    bint lay_on         # the trick of Rules.lay_on (here, where the struct had padding)
    uint32_t* pieces    # hand p is pieces[p * room + start[p] .. p * room + end[p])
    uint32_t* pile_pieces
    int start[MAX_PLAYERS]
    int end[MAX_PLAYERS]
    int leader
    int64_t cards
    int64_t tricks


cdef struct Result:
    int status
    int winner          # -1: none
    int64_t cards
    int64_t tricks
    int counts[MAX_PLAYERS]
    int64_t entry_tricks
    int64_t entry_cards
    int64_t period_tricks
    int64_t period_cards


cdef struct Work:
    # Everything one game needs, allocated once per call: the game itself, the
    # Brent snapshot, two replays that locate a loop, and the deal to replay.
    Game game
    Game snap
    Game first
    Game second
    uint8_t* deal       # the hands, one after another
    int hand_sizes[MAX_PLAYERS]
    uint32_t* piece_memory


cdef enum:
    # A hand lives in a straight buffer of ROOM_FACTOR * (total + 1) elements:
    # cards are laid from the front and piles added at the back, and the hand
    # is moved back to the front only when the back is reached. No index is
    # wrapped, so laying a card is one pointer step.
    ROOM_FACTOR = 4
    # Pieces of a pile copied without a loop; piles and hands have room for them.
    PILE_SLACK = 4
    # Tricks played before loop detection takes its first snapshot.
    BRENT_START = 64


# A piece packs a run of plain cards and the court card that ends it:
# run << COURT_BITS | court. A hand's last piece holds its trailing plain
# cards, with court 0. The kernels hold hands by the same pieces, and a
# state's hash is taken over them (c/hash.h).
cdef extern from "c/hash.h" nogil:
    enum:
        COURT_BITS "BG_COURT_BITS"
        COURT_MASK "BG_COURT_MASK"
        HAND_MARK "BG_HAND_MARK"
    const uint64_t FNV_START "BG_FNV_START"
    uint64_t hash_word "bg_hash_word" (uint64_t h, uint32_t word)
    # A two-player state's hash from the deal it stands for (the leader's n0 cards first).
    uint64_t hash_state "bg_hash_state" (const uint8_t* cards, int n, int n0)
    uint64_t hash_bytes "bg_hash_bytes" (const uint8_t* data, int n)


cdef struct Shape:
    # What random deals look like: the deck, the players, the first hand's size.
    int total
    int players
    int split           # two players: cards in the first hand; 0: even; -1: random
    int n_courts
    uint8_t courts[MAX_DECK]    # the court cards in the order they are placed


cdef int work_init(Work* w, int players, int total, bint lay_on) noexcept nogil
cdef void work_free(Work* w) noexcept nogil
cdef void play_game(Work* w, int64_t max_cards, int64_t max_tricks, bint detect_loops,
                    Result* r) noexcept nogil
cdef void loop_key(Work* w, const Result* r, uint8_t* key) noexcept nogil
cdef uint64_t cycle_hash(Work* w, int64_t period) noexcept nogil
cdef void deck_from(uint8_t* deck, uint64_t* state, const Shape* s) noexcept nogil
cdef void deal_random(Work* w, uint64_t* state, const Shape* s) noexcept nogil
cdef object shape_init(Shape* s, deck, players, split)
cdef object to_outcome(const Result* r, int players)
cdef object hands_of(const uint8_t* cards, const int* sizes, int players)


# Inline, so that every module that plays games loads them without a call
# across modules (hill climbing loads a deal at every step).
cdef inline void game_load(Game* g, const uint8_t* deal, const int* hand_sizes) noexcept nogil:
    """Put a deal on the table: hands one after another, top card first."""
    cdef int p, i, n
    cdef uint32_t run
    cdef uint32_t* pieces
    for p in range(g.players):
        g.start[p] = 0
        pieces = g.pieces + p * g.room
        n = 0
        run = 0
        for i in range(hand_sizes[p]):
            # Branch-free: the piece is written every time and kept only
            # when the card is a court card.
            pieces[n] = run << COURT_BITS | deal[i]
            n += deal[i] != 0
            run = (run + 1) & -<uint32_t>(deal[i] == 0)
        pieces[n] = run << COURT_BITS
        g.end[p] = n + 1
        deal += hand_sizes[p]
    g.leader = 0
    g.cards = 0
    g.tricks = 0
