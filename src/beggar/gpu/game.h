/* The GPU engine's game: one two-player deal dealt, played and counted.

   This header is the one source of the GPU engines' game logic. It compiles
   as CUDA device code (kernel.cu, through NVRTC), as OpenCL C (through
   pyopencl) and as host C (the Cython extension beggar._gpu_host, the engine
   "gpu-host"), the differences in vendor.h, so the lines a GPU runs are the
   lines the test suite holds to the compiled engine on every machine. It follows the rules of docs/rules.md, two players only, and the
   dealing of shuffle.py.

   A hand is held by court: a ring of pieces, each a run of plain cards and
   the court card that ends it (run << 3 | court), the last piece holding the
   trailing plain cards with court 0. Plain cards are interchangeable, so a
   trick steps from court card to court card. A ring has a power of two of
   places, at least one more than the deck's court cards, so a hand never
   overflows it and wrapping is one mask.

   Where a game's state lives, so that a trick touches no local memory: the
   pieces of both hands, and the pile of the trick in play, are in the
   block's shared memory, one column a thread (bg_cell: the threads of a
   warp reach 32 different banks whatever rows they read); heads, sizes,
   leader and the counts of cards and tricks are scalars the compiler keeps
   in registers (a hand is picked with a select, never by indexing). Only
   Brent's snapshot of the hands is in local memory: it is written a few
   times a game and read only when its sizes match.

   A game is played to its finish, to a repeat of a state (Brent's
   algorithm at empty tables), or to a cap of tricks far above any finite
   game; the host plays loops and capped games again with the compiled
   engine, which locates a loop exactly. So a game here reports exact cards
   and tricks only when it finished. */

#ifndef BEGGAR_GPU_GAME_H
#define BEGGAR_GPU_GAME_H

#include "vendor.h"

/* The most places in a hand's ring, the most cards in the launch structs,
   the most cards of a deck this build deals (its local arrays), and the
   threads of a block (the columns of its shared memory). A GPU's kernel is
   compiled with what its deck needs (gpu/device.py's options); the host
   build takes the largest, one thread. */
#ifndef BG_RING
#define BG_RING 256
#endif
#ifndef BG_TOTAL
#define BG_TOTAL 256
#endif
#ifndef BG_CARDS
#define BG_CARDS BG_TOTAL
#endif
#ifndef BG_BLOCK
#define BG_BLOCK 1
#endif

enum {
    BG_FINISHED = 0,
    BG_LOOP = 1,
    BG_CAPPED = 2,      /* the cap of tricks was reached: the host plays it again */
    BG_COURT_BITS = 3,
    BG_COURT_MASK = 7,
    BG_BRENT_START = 64,
    /* lengths.py's bins */
    BG_LENGTHS_EXACT = 3000,
    BG_LENGTHS_WIDTH = 100,
    BG_LENGTHS_TOP = 10000,
    BG_LENGTHS_BINS = 3000 + (10000 - 3000) / 100 + 1,
    /* A census counts lengths below this exactly on the device; a game as
       long or longer is handed to the host as a hit. */
    BG_HISTOGRAM = 65536
};

/* What random deals look like (shuffle.py): the deck's size, the court cards
   in the order they are placed, the first hand's size (0: even, -1: drawn
   for each deal), and the ring's size for the deck (a power of two). */
typedef struct {
    int total;
    int split;
    int n_courts;
    int ring;
    bg_u8 courts[BG_TOTAL];
} bg_shape;

/* A census block's deals (census.py): arrangements of `total` cards whose
   first `total - suffix` cards are `prefix`'s, and whose suffix is
   arrangement `suffix_first + offset` of the multiset `suffix_counts` (it
   has `suffix_arrangements` < 2^63 of them); card i of an arrangement goes
   to place target[i] of the deal, whose first hand holds `first_hand`. */
typedef struct {
    int total;
    int first_hand;
    int suffix;
    int ring;
    bg_u64 suffix_first;
    bg_u64 suffix_arrangements;
    int suffix_counts[5];
    bg_u8 prefix[BG_TOTAL];
    bg_u8 target[BG_TOTAL];
} bg_block;

/* Element (row, column) of a region of shared memory with BG_BLOCK columns
   of 16-bit elements: two rows of a column share a 32-bit word, and the
   words of a row are consecutive, so the threads of a warp, each in its own
   column, reach 32 different banks whatever rows they read. A region has
   an even number of rows. A macro, its row read twice: no side effects in it. */
#define bg_cell(row, column) (((((row) >> 1) * BG_BLOCK + (column)) << 1) | ((row) & 1))

/* A game at an empty table: hand p holds the pieces at rows
   p * BG_RING + ((head_p + i) & (ring - 1)), i < size_p, of this thread's
   column of `hands`; `pile` is its column of the trick's pile. */
typedef struct {
    BG_LOCAL bg_u16* hands;
    BG_LOCAL bg_u16* pile;
    int column;
    int head0, head1;
    int size0, size1;
    int leader;
    bg_u32 cards;
    bg_u32 tricks;
} bg_game;

/* Brent's check of a game: the snapshot's hands (local memory) and, in
   registers, its leader and sizes, compared first. */
typedef struct {
    bg_u16 piece[2][BG_RING];
} bg_snapshot;

typedef struct {
    int leader, size0, size1;
    int taken;          /* a snapshot is held */
    bg_u32 power, steps;
} bg_brent;

typedef struct {
    int status;
    int winner;         /* finished: the hand that holds every card */
    bg_i64 cards;
    bg_i64 tricks;
} bg_result;

/* A game handed to the host: a long one, a loop or a capped one, by its
   offset in the launch's range. 32 bytes, laid out as gpu/engine.py's HIT. */
typedef struct {
    bg_u64 offset;
    bg_i64 cards;
    bg_i64 tricks;
    int status;
    int winner;
} bg_hit;


/* ---------------------------------------------------------------- the random stream (shuffle.py) */

BG_FN bg_u64 bg_mix64(bg_u64 x) {
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

BG_FN bg_u32 bg_next32(bg_u64* state) {
    *state += 0x9E3779B97F4A7C15ULL;
    return (bg_u32)(bg_mix64(*state) >> 32);
}

/* Uniform in range(n): Lemire's multiply-shift with rejection. */
BG_FN bg_u32 bg_below(bg_u64* state, bg_u32 n) {
    bg_u64 m = (bg_u64)bg_next32(state) * n;
    bg_u32 low = (bg_u32)m;
    if (low < n) {
        bg_u32 threshold = (bg_u32)((0x100000000ULL - n) % n);
        while (low < threshold) {
            m = (bg_u64)bg_next32(state) * n;
            low = (bg_u32)m;
        }
    }
    return (bg_u32)(m >> 32);
}

BG_FN bg_u64 bg_stream_start(bg_u64 seed, bg_u64 index) {
    return bg_mix64(bg_mix64(seed) + index);
}


/* ---------------------------------------------------------------- dealing */

/* A dealt game waiting in the block's queue: entry `slot`'s pieces are in
   column `slot` of `pieces` (BG_RING + 2 rows), the first hand's from row
   0, the second's from the next even row, so that a hand is taken a 32-bit
   word (two rows) at a time (kernel.cu's bg_take). */
typedef struct {
    BG_LOCAL bg_u16* pieces;
    BG_LOCAL bg_u16* sizes;     /* [2][BG_BLOCK] */
    int slot;
    int row;                    /* the next piece's */
    bg_u32 run;                 /* plain cards since the last court card */
} bg_entry;

/* Add the next card of the hand being put in an entry (0: a plain card). */
BG_FN void bg_put(bg_entry* e, bg_u32 card) {
    if (card) {
        e->pieces[bg_cell(e->row, e->slot)] = (bg_u16)(e->run << BG_COURT_BITS | card);
        e->row++;
        e->run = 0;
    } else {
        e->run++;
    }
}

/* End hand p of an entry: its trailing plain cards, and its size; the
   next hand starts on an even row. */
BG_FN void bg_end_hand(bg_entry* e, int p, int first_row) {
    e->pieces[bg_cell(e->row, e->slot)] = (bg_u16)(e->run << BG_COURT_BITS);
    e->row++;
    e->run = 0;
    e->sizes[p * BG_BLOCK + e->slot] = (bg_u16)(e->row - first_row);
    e->row = (e->row + 1) & ~1;
}

/* A hand being dealt, by its court cards alone: bit j of word j / 64 of
   `courts` marks place j of the hand; the court card there is code 1 + low +
   2 * high of the same bits of `low` and `high`. Words are picked by a mask
   of the place, constant for hands of at most 64 cards, so that a GPU keeps
   them in registers. */
#define BG_WORDS ((BG_CARDS + 63) / 64)
typedef struct {
    bg_u64 courts[BG_WORDS], low[BG_WORDS], high[BG_WORDS];
} bg_hand_bits;

/* Mark the court card of `code` (1-4) at place k of the deck in its hand:
   place k is card k / 2 of hand k % 2 while both hands get cards (k < 2 *
   short), card k - short of the longer hand after. The hand is chosen by a
   mask, not by indexing. */
BG_FN void bg_place(bg_hand_bits* h0, bg_hand_bits* h1, int k, bg_u32 code, int short_hand, int longer) {
    int both = k < 2 * short_hand;
    int p = both ? k & 1 : longer, j = both ? k >> 1 : k - short_hand;
    int w = (j >> 6) & (BG_WORDS - 1);
    bg_u64 bit = (bg_u64)1 << (j & 63), to1 = (bg_u64)0 - (bg_u64)p;
    bg_u64 low = (code - 1) & 1 ? bit : 0, high = (code - 1) & 2 ? bit : 0;
    h0->courts[w] |= bit & ~to1;
    h0->low[w] |= low & ~to1;
    h0->high[w] |= high & ~to1;
    h1->courts[w] |= bit & to1;
    h1->low[w] |= low & to1;
    h1->high[w] |= high & to1;
}

/* Put hand p of n cards in entry `e` from its court cards: a run of plain
   cards is the gap between two court places, so only court cards are visited. */
BG_FN void bg_put_hand(bg_entry* e, int p, const bg_hand_bits* h, int n) {
    BG_LOCAL bg_u16* pieces = e->pieces;
    int slot = e->slot, first_row = e->row, row = first_row, next = 0;  /* next: the place after the last court */
    for (int w = 0; w < BG_WORDS; w++) {
        bg_u64 bits = h->courts[w], low = h->low[w], high = h->high[w];
        while (bits) {
            int bit = BG_CTZ64(bits), j = w * 64 + bit;
            bits &= bits - 1;
            bg_u32 code = 1 + (bg_u32)(low >> bit & 1) + 2 * (bg_u32)(high >> bit & 1);
            pieces[bg_cell(row, slot)] = (bg_u16)((bg_u32)(j - next) << BG_COURT_BITS | code);
            row++;
            next = j + 1;
        }
    }
    e->row = row;
    e->run = (bg_u32)(n - next);
    bg_end_hand(e, p, first_row);
}

/* Deal `index` of `seed` into entry `e`, as Deal.shuffled deals it: a
   uniformly random free place of the deck for each court card in turn (a
   partial Fisher-Yates shuffle of the places), then for split "random" the
   first hand's size, then the cards one at a time, the leader first, the
   rest to the longer hand (bg_place). Only the court cards are placed, and
   the hands are put from those; a split known beforehand places each court
   card as it is drawn. */
BG_FN void bg_deal_random(bg_entry* e, const BG_LOCAL bg_shape* s, bg_u64 seed, bg_u64 index) {
    /* The shuffle's free places, set four at a time. */
    union {
        bg_u8 place[BG_CARDS];
        bg_u32 word[BG_CARDS / 4];
    } free_places;
    bg_hand_bits hands[2];
    int total = s->total, n_courts = s->n_courts, drawn = s->split < 0;
    int first_hand = s->split > 0 ? s->split : total - total / 2;
    bg_u64 state = bg_stream_start(seed, index);
    for (int w = 0; w < BG_WORDS; w++)
        hands[0].courts[w] = hands[0].low[w] = hands[0].high[w] =
            hands[1].courts[w] = hands[1].low[w] = hands[1].high[w] = 0;
    for (int k = 0; k < (total + 3) / 4; k++)
        free_places.word[k] = 0x03020100u + 0x04040404u * (bg_u32)k;
    int short_hand = first_hand < total - first_hand ? first_hand : total - first_hand;
    int longer = first_hand < total - first_hand;
    for (int i = 0; i < n_courts; i++) {
        int j = i + (int)bg_below(&state, (bg_u32)(total - i));
        bg_u8 place = free_places.place[j];
        free_places.place[j] = free_places.place[i];
        free_places.place[i] = place;
        if (!drawn)
            bg_place(&hands[0], &hands[1], place, s->courts[i], short_hand, longer);
    }
    if (drawn) {
        first_hand = 1 + (int)bg_below(&state, (bg_u32)(total - 1));
        short_hand = first_hand < total - first_hand ? first_hand : total - first_hand;
        longer = first_hand < total - first_hand;
        for (int i = 0; i < n_courts; i++)
            bg_place(&hands[0], &hands[1], free_places.place[i], s->courts[i], short_hand, longer);
    }
    e->row = 0;
    bg_put_hand(e, 0, &hands[0], first_hand);
    bg_put_hand(e, 1, &hands[1], total - first_hand);
}

/* x / d, where d (1 .. 2^31) divides x exactly: a multiplication by the
   inverse of d's odd part modulo 2^64 (Newton's iteration doubles its exact
   bits from 3, x * x = 1 modulo 8 for every odd x), after a shift by its
   powers of two. No 64-bit division, which a GPU has no instruction for. */
BG_FN bg_u64 bg_exact_quotient(bg_u64 x, bg_u32 d) {
    int twos = BG_CTZ64((bg_u64)d);
    bg_u64 odd = (bg_u64)(d >> twos), inverse = odd;
    for (int i = 0; i < 5; i++)
        inverse *= 2 - odd * inverse;
    return (x >> twos) * inverse;
}

/* A block's arrangement at `offset`: the prefix, and the suffix unranked in
   lexicographic order (plain < J < Q < K < A). The arrangements of a
   multiset that start with code c are arrangements(left) * left[c] / n; the
   common factor of left[c] and n is divided out first, so nothing exceeds
   the suffix's arrangements, and the division is exact. */
BG_FN void bg_unrank(bg_u8* cards, const BG_LOCAL bg_block* b, bg_u64 offset) {
    int left[5];
    int start = b->total - b->suffix;
    bg_u64 rank = b->suffix_first + offset, arrangements = b->suffix_arrangements;
    for (int i = 0; i < start; i++)
        cards[i] = b->prefix[i];
    for (int c = 0; c < 5; c++)
        left[c] = b->suffix_counts[c];
    for (int i = start; i < b->total; i++) {
        int n = b->total - i;
        for (int c = 0; c < 5; c++) {
            if (!left[c])
                continue;
            int x = left[c], y = n;
            while (y) {
                int t = x % y;
                x = y;
                y = t;
            }
            bg_u64 below = bg_exact_quotient(arrangements, (bg_u32)(n / x)) * (bg_u64)(left[c] / x);
            if (rank < below) {
                cards[i] = (bg_u8)c;
                left[c]--;
                arrangements = below;
                break;
            }
            rank -= below;
        }
    }
}

/* Step to the next arrangement in lexicographic order (census.next_arrangement). */
BG_FN void bg_next_arrangement(bg_u8* cards, int n) {
    int i = n - 2, j = n - 1;
    while (i >= 0 && cards[i] >= cards[i + 1])
        i--;
    if (i < 0)
        return;
    while (cards[j] <= cards[i])
        j--;
    bg_u8 card = cards[i];
    cards[i] = cards[j];
    cards[j] = card;
    for (i++, j = n - 1; i < j; i++, j--) {
        card = cards[i];
        cards[i] = cards[j];
        cards[j] = card;
    }
}

/* Deal an arrangement into entry `e` as the census deals it: card i of the
   arrangement goes to place target[i] of the deal, so place k holds card
   source[k] (the inverse of target); hand 0 holds places 0 .. first_hand - 1. */
BG_FN void bg_deal_arrangement(bg_entry* e, const BG_LOCAL bg_block* b, const BG_LOCAL bg_u8* source,
                               const bg_u8* cards) {
    e->row = 0;
    e->run = 0;
    for (int p = 0; p < 2; p++) {
        int first_row = e->row, from = p ? b->first_hand : 0, to = p ? b->total : b->first_hand;
        for (int k = from; k < to; k++)
            bg_put(e, cards[source[k]]);
        bg_end_hand(e, p, first_row);
    }
}

/* Deal the given cards into entry `e`: hand 0 holds the first n0 of the n
   cards, hand 1 the rest. */
BG_FN void bg_deal_cards(bg_entry* e, const bg_u8* cards, int n0, int n) {
    e->row = 0;
    e->run = 0;
    for (int p = 0; p < 2; p++) {
        int first_row = e->row, from = p ? n0 : 0, to = p ? n : n0;
        for (int k = from; k < to; k++)
            bg_put(e, cards[k]);
        bg_end_hand(e, p, first_row);
    }
}


/* Put the given cards on the thread's table: hand 0 the first n0 of the n
   cards, hand 1 the rest, both from place 0; hand 0 leads. */
BG_FN void bg_load_cards(bg_game* g, const BG_GLOBAL bg_u8* cards, int n0, int n) {
    for (int p = 0; p < 2; p++) {
        int row = p * BG_RING, from = p ? n0 : 0, to = p ? n : n0;
        bg_u32 run = 0;
        for (int k = from; k < to; k++) {
            if (cards[k]) {
                g->hands[bg_cell(row, g->column)] = (bg_u16)(run << BG_COURT_BITS | cards[k]);
                row++;
                run = 0;
            } else {
                run++;
            }
        }
        g->hands[bg_cell(row, g->column)] = (bg_u16)(run << BG_COURT_BITS);
        if (p)
            g->size1 = row - BG_RING + 1;
        else
            g->size0 = row + 1;
    }
    g->head0 = g->head1 = 0;
    g->leader = 0;
    g->cards = 0;
    g->tricks = 0;
}


/* ---------------------------------------------------------------- perturbation (beggar._loops)

   A perturbation try: a state on a known loop, changed one to `changes`
   times by small changes, played. These mirror _loops.pyx's change(),
   draw for draw and byte for byte: the compiled engine and every GPU target
   derive the same candidate from the same stream. */

/* A state as the deal it stands for: the leader's hand (n0 cards) first. */
typedef struct {
    int n, n0;
    bg_u8 cards[BG_CARDS];
} bg_state;

BG_FN void bg_state_insert(bg_state* s, int position, bg_u8 card) {
    int at = position <= s->n0 ? position : position - 1;
    for (int k = s->n; k > at; k--)
        s->cards[k] = s->cards[k - 1];
    s->cards[at] = card;
    s->n++;
    if (position <= s->n0)
        s->n0++;
}

BG_FN void bg_state_remove(bg_state* s, int at) {
    for (int k = at; k < s->n - 1; k++)
        s->cards[k] = s->cards[k + 1];
    s->n--;
    if (at < s->n0)
        s->n0--;
}

/* One small change (_loops.change): two cards of different rank swapped,
   one card moved into the other hand, a court card moved 1 to `reach`
   places, or the split shifted by 1-3 cards. */
BG_FN void bg_change(bg_u64* rng, bg_state* s, int reach) {
    int kind = (int)bg_below(rng, 4);
    if (kind == 0) {
        for (int tries = 0; tries < 64; tries++) {
            int i = (int)bg_below(rng, (bg_u32)s->n), j = (int)bg_below(rng, (bg_u32)s->n);
            if (s->cards[i] != s->cards[j]) {
                bg_u8 card = s->cards[i];
                s->cards[i] = s->cards[j];
                s->cards[j] = card;
                return;
            }
        }
    } else if (kind == 1) {
        int i = (int)bg_below(rng, (bg_u32)s->n);
        bg_u8 card = s->cards[i];
        int from_leader = i < s->n0;
        bg_state_remove(s, i);
        if (from_leader)
            bg_state_insert(s, s->n0 + 1 + (int)bg_below(rng, (bg_u32)(s->n - s->n0 + 1)), card);
        else
            bg_state_insert(s, (int)bg_below(rng, (bg_u32)(s->n0 + 1)), card);
    } else if (kind == 2) {
        int i;
        do
            i = (int)bg_below(rng, (bg_u32)s->n);
        while (!s->cards[i]);
        int d = 1 + (int)bg_below(rng, (bg_u32)reach);
        int j = bg_below(rng, 2) ? i + d : i - d;
        j = j < 0 ? 0 : j >= s->n ? s->n - 1 : j;
        bg_u8 card = s->cards[i];
        if (j > i)
            for (int k = i; k < j; k++)
                s->cards[k] = s->cards[k + 1];
        else
            for (int k = i; k > j; k--)
                s->cards[k] = s->cards[k - 1];
        s->cards[j] = card;
    } else {
        int d = 1 + (int)bg_below(rng, 3);
        s->n0 += bg_below(rng, 2) ? d : -d;
        s->n0 = s->n0 < 1 ? 1 : s->n0 > s->n - 1 ? s->n - 1 : s->n0;
    }
}

/* A perturbation walk's try `t`: from its walk's stream (bg_stream_start
   of the walk's seed and t), a state of the pool (rows of `stride` bytes:
   n0, then the n cards), changed 1 to `changes` times. Whether both its
   hands hold a card (a try that is no game plays nothing). */
BG_FN int bg_perturbed(bg_state* s, const BG_GLOBAL bg_u8* pool, int n_pool, int n, bg_u64 walk_seed, bg_u64 t,
                       int changes, int reach) {
    bg_u64 rng = bg_stream_start(walk_seed, t);
    const BG_GLOBAL bg_u8* row = pool + (bg_u64)bg_below(&rng, (bg_u32)n_pool) * (bg_u64)(n + 1);
    s->n = n;
    s->n0 = row[0];
    for (int k = 0; k < n; k++)
        s->cards[k] = row[1 + k];
    int made = 1 + (int)bg_below(&rng, (bg_u32)changes);
    for (int m = 0; m < made; m++)
        bg_change(&rng, s, reach);
    return 0 < s->n0 && s->n0 < s->n;
}


/* ---------------------------------------------------------------- hill climbing (_engine.climb)

   A walk of the hill climber as _engine.pyx's climb takes it, draw for
   draw: a fresh random deal (as _game.deal_random deals it: a card array,
   the hands one after another) or a mutation of the current one, played,
   and kept by the rule of acceptance. The walk lives in global memory
   between launches (bg_walk), so that a launch plays any number of its
   steps; a candidate whose game does not finish on the device (a loop, or
   the cap) waits there for the host, which plays it exactly and takes the
   step with this very code (beggar._gpu_host.climb_accept). */

enum { BG_STRICT = 0, BG_EQUAL = 1, BG_ANNEAL = 2, BG_LATE = 3, BG_FITNESS_SHIFT = 24 };

/* The climber's rules and a walk's length, as the host gives them
   (climbing.ClimbRules; anneal's draws need the host's exp: it is not played
   here). */
typedef struct {
    int accept;             /* climbing.ACCEPTS' index */
    int by_cards;           /* fitness "cards" (tricks break ties), else "tricks" */
    int history;            /* late acceptance: the steps back it compares with */
    bg_u32 swap_percent;
    bg_i64 patience;
    bg_i64 threshold;       /* min_cards: a game this long is a hit */
    bg_i64 steps;           /* deals a walk plays */
} bg_climb_rules;

/* A walk between two of its steps (or with a candidate whose game waits for
   the host), as the compiled engine's climb keeps it. */
typedef struct {
    bg_u64 rng;
    bg_i64 played, k, stale, restarts;
    bg_i64 current_value, walk_best, best_value;
    bg_i64 best_cards, best_tricks;
    int best_status, best_winner;
    int sizes[2], best_sizes[2];
    int fresh;              /* the candidate is a fresh deal */
    int waiting;            /* the candidate's game is the host's to play */
    int lost;               /* a long game found no room among a launch's hits: the host plays the walk */
    bg_u8 current[BG_CARDS], candidate[BG_CARDS], best[BG_CARDS];
} bg_walk;

/* A fitness: the primary count above the secondary (capped), so that
   integers compare as pairs (climbing.SECONDARY_BITS). */
BG_FN bg_i64 bg_fitness(int by_cards, bg_i64 cards, bg_i64 tricks) {
    bg_i64 primary = by_cards ? cards : tricks, secondary = by_cards ? tricks : cards;
    bg_i64 most = ((bg_i64)1 << BG_FITNESS_SHIFT) - 1;
    return primary << BG_FITNESS_SHIFT | (secondary > most ? most : secondary);
}

/* The walk's next fresh deal into its candidate, from its stream (as
   _game.deal_random: a random free place for each court card in turn, then
   split "random"'s draw, then the cards one at a time to the hands). */
BG_FN void bg_climb_deal(BG_GLOBAL bg_walk* w, const BG_LOCAL bg_shape* s) {
    bg_u8 place[BG_CARDS], deck[BG_CARDS];
    bg_u64 rng = w->rng;        /* in a register (OpenCL: private, not the walk's global memory) */
    int total = s->total;
    for (int k = 0; k < total; k++) {
        place[k] = (bg_u8)k;
        deck[k] = 0;
    }
    for (int i = 0; i < s->n_courts; i++) {
        int j = i + (int)bg_below(&rng, (bg_u32)(total - i));
        bg_u8 position = place[j];
        place[j] = place[i];
        place[i] = position;
        deck[position] = s->courts[i];
    }
    int first = s->split > 0 ? s->split
              : s->split < 0 ? 1 + (int)bg_below(&rng, (bg_u32)(total - 1))
              : total - total / 2;
    w->rng = rng;
    int short_hand = first < total - first ? first : total - first;
    w->sizes[0] = first;
    w->sizes[1] = total - first;
    for (int i = 0; i < short_hand; i++) {
        w->candidate[i] = deck[2 * i];
        w->candidate[first + i] = deck[2 * i + 1];
    }
    int rest = first > total - first ? -short_hand : first - short_hand;   /* where the longer hand's last cards go */
    for (int i = 2 * short_hand; i < total; i++)
        w->candidate[rest + i] = deck[i];
}

/* Swap two cards of different rank, or move a court card elsewhere (the
   cards between shift by one), in the candidate (_engine.mutate). */
BG_FN void bg_mutate(BG_GLOBAL bg_u8* deck, int total, bg_u64* rng, bg_u32 swap_percent) {
    if (bg_below(rng, 100) < swap_percent) {
        bg_u32 i = bg_below(rng, (bg_u32)total), j = bg_below(rng, (bg_u32)total);
        while (deck[j] == deck[i])
            j = bg_below(rng, (bg_u32)total);
        bg_u8 card = deck[i];
        deck[i] = deck[j];
        deck[j] = card;
        return;
    }
    bg_u32 courts = 0;
    for (int i = 0; i < total; i++)
        courts += deck[i] != 0;
    bg_u32 k = bg_below(rng, courts), i = 0;
    for (;; i++) {         /* i: the place of court card number k */
        if (deck[i]) {
            if (k == 0)
                break;
            k--;
        }
    }
    bg_u32 j = bg_below(rng, (bg_u32)(total - 1));
    if (j >= i)
        j++;
    bg_u8 card = deck[i];
    for (int m = (int)i; m < total - 1; m++)
        deck[m] = deck[m + 1];
    for (int m = total - 1; m > (int)j; m--)
        deck[m] = deck[m - 1];
    deck[j] = card;
}

/* The walk's next candidate: a fresh deal where it starts or has not beaten
   its best for `patience` steps, else a mutation of its current deal. */
BG_FN void bg_climb_propose(BG_GLOBAL bg_walk* w, const BG_LOCAL bg_shape* s, const BG_LOCAL bg_climb_rules* rules) {
    w->fresh = w->restarts < 0 || w->stale >= rules->patience;
    if (w->fresh) {
        w->restarts++;
        bg_climb_deal(w, s);
        return;
    }
    for (int k = 0; k < s->total; k++)
        w->candidate[k] = w->current[k];
    bg_u64 rng = w->rng;
    bg_mutate(w->candidate, s->total, &rng, rules->swap_percent);
    w->rng = rng;
}

/* The step of a candidate whose game ended with `status` after `cards`
   cards and `tricks` tricks (exact: a loop's played by the host): its
   best, and whether the walk takes it. `history` is the walk's late
   acceptance's. */
BG_FN void bg_climb_accept(BG_GLOBAL bg_walk* w, BG_GLOBAL bg_i64* history, const BG_LOCAL bg_climb_rules* rules,
                           int total, int status, int winner, bg_i64 cards, bg_i64 tricks) {
    bg_i64 value = bg_fitness(rules->by_cards, cards, tricks);
    w->played++;
    w->waiting = 0;
    if (value > w->best_value) {
        w->best_value = value;
        w->best_cards = cards;
        w->best_tricks = tricks;
        w->best_status = status;
        w->best_winner = winner;
        w->best_sizes[0] = w->sizes[0];
        w->best_sizes[1] = w->sizes[1];
        for (int k = 0; k < total; k++)
            w->best[k] = w->candidate[k];
    }
    if (w->fresh) {
        for (int k = 0; k < total; k++)
            w->current[k] = w->candidate[k];
        w->current_value = w->walk_best = value;
        w->stale = 0;
        w->k = 0;
        for (int i = 0; i < rules->history; i++)
            history[i] = value;
        return;
    }
    w->k++;
    int accepted;
    if (value >= w->current_value)
        accepted = rules->accept != BG_STRICT || value > w->current_value;
    else if (rules->accept == BG_LATE)
        accepted = value >= history[w->k % rules->history];
    else
        accepted = 0;
    if (accepted) {
        for (int k = 0; k < total; k++)
            w->current[k] = w->candidate[k];
        w->current_value = value;
    }
    if (rules->accept == BG_LATE)
        history[w->k % rules->history] = w->current_value;
    if (w->current_value > w->walk_best) {
        w->walk_best = w->current_value;
        w->stale = 0;
    } else {
        w->stale++;
    }
}


/* ---------------------------------------------------------------- play */

BG_FN int bg_head(const bg_game* g, int p) { return p ? g->head1 : g->head0; }
BG_FN int bg_size(const bg_game* g, int p) { return p ? g->size1 : g->size0; }

/* Piece i of hand p. */
#define BG_AT(g, p, i, mask) \
    ((g)->hands[bg_cell((p) * BG_RING + ((bg_head((g), (p)) + (i)) & (mask)), (g)->column)])

/* Hand p has laid its head piece. */
BG_FN void bg_pop(bg_game* g, int p, int mask) {
    if (p) {
        g->head1 = (g->head1 + 1) & mask;
        g->size1--;
    } else {
        g->head0 = (g->head0 + 1) & mask;
        g->size0--;
    }
}

/* Play one trick from an empty table; 1 when the game is finished.

   While no penalty runs the players lay plain cards in turn, the leader
   first, until one of them meets the end of his head piece's run: the
   leader at card 2a + 1 of the trick, the other at card 2b + 2 (a, b their
   runs). The first to get there lays his court card, or is out if his run
   was his last. A payer then lays plain cards until the penalty is paid,
   his next court card comes, or he runs out. The pile is built of pieces
   (its first in a register, the rest in shared memory) and put under the
   taker's hand, its first run joining his trailing plain cards. */
BG_FN int bg_trick(bg_game* g, int mask) {
    int leader = g->leader;
    bg_u32 a = BG_AT(g, leader, 0, mask) >> BG_COURT_BITS;
    bg_u32 b = BG_AT(g, leader ^ 1, 0, mask) >> BG_COURT_BITS;
    int late = a > b;
    int first = leader ^ late;          /* who meets his run's end first */
    bg_u32 x = late ? b : a;            /* plain cards he lays before it */
    bg_u32 laid = 2 * x + (bg_u32)late;
    bg_u32 court = BG_AT(g, first, 0, mask) & BG_COURT_MASK;
    bg_u32 top;                         /* the pile's first piece */
    int n = 0, taker;                   /* n: the pile's pieces after its first */
    /* The second player laid x + late plain cards meanwhile. */
    BG_AT(g, first ^ 1, 0, mask) -= (bg_u16)((x + (bg_u32)late) << BG_COURT_BITS);
    if (!court) {
        /* He runs out: the other takes the pile. */
        BG_AT(g, first, 0, mask) = 0;
        top = laid << BG_COURT_BITS;
        taker = first ^ 1;
    } else {
        int court_player = first, payer = first ^ 1;
        bg_u32 owed = court;
        bg_pop(g, first, mask);
        top = laid << BG_COURT_BITS | court;
        laid++;
        for (;;) {
            bg_u32 piece = BG_AT(g, payer, 0, mask);
            bg_u32 run = piece >> BG_COURT_BITS;
            if (run >= owed) {              /* paid in full with plain cards */
                BG_AT(g, payer, 0, mask) = (bg_u16)(piece - (owed << BG_COURT_BITS));
                g->pile[bg_cell(n, g->column)] = (bg_u16)(owed << BG_COURT_BITS);
                n++;
                laid += owed;
                break;
            }
            if (!(piece & BG_COURT_MASK)) { /* the payer runs out */
                BG_AT(g, payer, 0, mask) = 0;
                g->pile[bg_cell(n, g->column)] = (bg_u16)piece;
                n++;
                laid += run;
                break;
            }
            /* He lays his run and the court card after it: now the other owes. */
            bg_pop(g, payer, mask);
            g->pile[bg_cell(n, g->column)] = (bg_u16)piece;
            n++;
            laid += run + 1;
            owed = piece & BG_COURT_MASK;
            court_player = payer;
            payer ^= 1;
        }
        taker = court_player;
    }
    int tail = bg_size(g, taker) - 1;
    BG_AT(g, taker, tail, mask) += (bg_u16)top;
    for (int i = 0; i < n; i++)
        BG_AT(g, taker, tail + 1 + i, mask) = g->pile[bg_cell(i, g->column)];
    if (taker)
        g->size1 += n;
    else
        g->size0 += n;
    g->leader = taker;
    g->cards += laid;
    g->tricks++;
    return bg_size(g, taker ^ 1) == 1 && BG_AT(g, taker ^ 1, 0, mask) == 0;
}

/* Take a snapshot of the game's state, its rings rotated to start at place 0. */
BG_FN void bg_copy(bg_brent* brent, bg_snapshot* snap, const bg_game* g, int mask) {
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < bg_size(g, p); i++)
            snap->piece[p][i] = BG_AT(g, p, i, mask);
    brent->leader = g->leader;
    brent->size0 = g->size0;
    brent->size1 = g->size1;
    brent->taken = 1;
}

/* The snapshot's state at an empty table (pieces describe a hand uniquely). */
BG_FN int bg_same(const bg_brent* brent, const bg_snapshot* snap, const bg_game* g, int mask) {
    if (brent->leader != g->leader || brent->size0 != g->size0 || brent->size1 != g->size1)
        return 0;
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < bg_size(g, p); i++)
            if (BG_AT(g, p, i, mask) != snap->piece[p][i])
                return 0;
    return 1;
}

BG_FN void bg_brent_start(bg_brent* brent) {
    brent->taken = 0;
    brent->power = BG_BRENT_START;
    brent->steps = 0;
}

/* Play one trick of the game on the table and look for its end: finished,
   a repeated state (Brent: a snapshot after BG_BRENT_START tricks, again
   whenever the tricks since the last one reach a doubling power), or `cap`
   tricks. The game's status, or -1 while it goes on. */
BG_FN int bg_step(bg_game* g, bg_brent* brent, bg_snapshot* snap, int mask, bg_u32 cap) {
    if (bg_trick(g, mask))
        return BG_FINISHED;
    brent->steps++;
    if (brent->taken && bg_same(brent, snap, g, mask))
        return BG_LOOP;
    if (brent->steps == brent->power) {
        bg_copy(brent, snap, g, mask);
        brent->power <<= 1;
        brent->steps = 0;
    }
    if (g->tricks >= cap)
        return BG_CAPPED;
    return -1;
}

/* A state's hash, the same from either seat: FNV-1a over the pieces of the
   leader's hand, a mark, then the other hand's (pieces describe a hand
   uniquely: its last always the trailing plain cards, court 0). */
#define BG_FNV_START 14695981039346656037ULL
#define BG_FNV_PRIME 1099511628211ULL
BG_FN bg_u64 bg_state_hash(const bg_game* g, int mask) {
    bg_u64 h = BG_FNV_START;
    for (int seat = 0; seat < 2; seat++) {
        int p = g->leader ^ seat;
        for (int i = 0; i < bg_size(g, p); i++)
            h = (h ^ BG_AT(g, p, i, mask)) * BG_FNV_PRIME;
        h = (h ^ 0xFFFFu) * BG_FNV_PRIME;
    }
    return h;
}

/* A loop's identity, from a state on its cycle of `period` tricks: the least
   of its states' hashes, whichever state the game entered it by
   (_loops.cycle_hash gives the same from the cards). The game is played on
   around the cycle meanwhile. */
BG_FN bg_u64 bg_cycle_hash(bg_game* g, bg_u32 period, int mask) {
    bg_u64 least = bg_state_hash(g, mask);
    for (bg_u32 k = 1; k < period; k++) {
        bg_trick(g, mask);
        bg_u64 h = bg_state_hash(g, mask);
        least = h < least ? h : least;
    }
    return least;
}

/* Whether `hash` is among the n sorted `known`. */
BG_FN int bg_known(const BG_GLOBAL bg_u64* known, int n, bg_u64 hash) {
    int low = 0, high = n;
    while (low < high) {
        int middle = (low + high) >> 1;
        if (known[middle] < hash)
            low = middle + 1;
        else
            high = middle;
    }
    return low < n && known[low] == hash;
}

/* A game that ended with `status`, as the host is told of it. */
BG_FN void bg_result_of(bg_result* r, const bg_game* g, int status) {
    r->status = status;
    r->winner = status == BG_FINISHED ? g->leader : -1;
    r->cards = g->cards;
    r->tricks = g->tricks;
}


/* ---------------------------------------------------------------- counting */

/* The bin of lengths.py a game of `cards` cards is counted in. */
BG_FN int bg_length_bin(bg_i64 cards) {
    if (cards < BG_LENGTHS_EXACT)
        return (int)cards;
    if (cards < BG_LENGTHS_TOP)
        return BG_LENGTHS_EXACT + (int)((cards - BG_LENGTHS_EXACT) / BG_LENGTHS_WIDTH);
    return BG_LENGTHS_BINS - 1;
}

/* Which random deals the host is handed: every game of `min_cards` or
   more, and every game that did not finish (a loop, or capped). */
BG_FN int bg_sample_keeps(const bg_result* r, bg_i64 min_cards) {
    return r->status != BG_FINISHED || r->cards >= min_cards;
}

/* The longest finished game of a launch, the earliest on a tie, as one
   number to take the maximum of: its cards above the complement of its
   offset (launches are below 2^40 deals, games below 2^24 cards). */
BG_FN bg_u64 bg_best_key(const bg_result* r, bg_u64 offset) {
    return (bg_u64)r->cards << 40 | (((bg_u64)1 << 40) - 1 - offset);
}

/* Which census deals the host is handed: every game that did not finish,
   every game of `threshold` cards or more (candidates for the longest), and
   every game too long for the device's histograms. */
BG_FN int bg_census_keeps(const bg_result* r, bg_i64 threshold) {
    return r->status != BG_FINISHED || r->cards >= threshold
        || r->cards >= BG_HISTOGRAM || r->tricks >= BG_HISTOGRAM;
}

BG_FN void bg_hit_of(BG_GLOBAL bg_hit* hit, const bg_result* r, bg_u64 offset) {
    hit->offset = offset;
    hit->cards = r->cards;
    hit->tricks = r->tricks;
    hit->status = r->status;
    hit->winner = r->winner;
}

#endif
