"""The compiled engine's C-level contract, for the compiled modules that play
games with it (`_census.pyx`): its structs, and the functions that set up,
load and play a game. Everything here is defined in `_engine.pyx`."""

from libc.stdint cimport int64_t, uint8_t, uint32_t


cdef enum:
    MAX_PLAYERS = 4
    # Random deals: at most decks.MAX_DECK cards, their court cards' positions
    # kept as bits in BIT_WORDS words.
    MAX_DECK = 255
    BIT_WORDS = 4
    # Deals per GIL-free stretch in sample(): short enough that Ctrl-C is felt.
    CHUNK = 65536

cdef enum:
    FINISHED = 0
    LOOP = 1
    STOPPED = 2

cdef struct Game:
    int players
    int total
    bint by_court       # hands held as pieces (see run_by_court, trickn_by_court)
    int room            # elements of buffer per hand: ROOM_FACTOR * (total + 1) + PILE_SLACK
    uint8_t* hands      # by card: hand p is hands[p * room + start[p] .. p * room + end[p])
    uint8_t* pile
    uint32_t* pieces    # by court: hand p is pieces[p * room + start[p] .. p * room + end[p])
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
    uint8_t* memory
    uint32_t* piece_memory


cdef enum:
    # A hand lives in a straight buffer of ROOM_FACTOR * (total + 1) elements:
    # cards are laid from the front and piles added at the back, and the hand
    # is moved back to the front only when the back is reached. No index is
    # wrapped, so laying a card is one pointer step.
    ROOM_FACTOR = 4
    # A piece packs a run of plain cards and the court card that ends it:
    # run << COURT_BITS | court. A hand's last piece holds its trailing plain
    # cards, with court 0.
    COURT_BITS = 3
    COURT_MASK = 7
    # Pieces of a pile copied without a loop; piles and hands have room for them.
    PILE_SLACK = 4
    # Tricks played before loop detection takes its first snapshot.
    BRENT_START = 64


cdef int work_init(Work* w, int players, int total, bint by_court) noexcept nogil
cdef void work_free(Work* w) noexcept nogil
cdef void game_load(Game* g, const uint8_t* deal, const int* hand_sizes) noexcept nogil
cdef void play_game(Work* w, int64_t max_cards, int64_t max_tricks, bint detect_loops,
                    Result* r) noexcept nogil
cdef void loop_key(Work* w, const Result* r, uint8_t* key) noexcept nogil
cdef object to_outcome(const Result* r, int players)
cdef object hands_of(const uint8_t* cards, const int* sizes, int players)
