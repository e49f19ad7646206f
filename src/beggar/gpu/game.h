/* The GPU engines' game: one two-player deal dealt, played and counted, in
   the warp's layout.

   The kernels (kernel.cu) compile it as CUDA device code (through NVRTC),
   as OpenCL C (through pyopencl) and as host C (the Cython extension
   beggar._gpu_host, the engine "gpu-host"; tests/gpu_harness.c), the
   differences in vendor.h, so the lines a GPU runs are the lines the test
   suite holds to the compiled engine on every machine. It follows the rules
   of docs/rules.md, two players only, and the dealing of shuffle.py. What
   both compiled engines compute alike is in the headers it includes: the
   random stream (random.h), the random deal's steps (deal.h), the hashes
   (hash.h), the census's order (census.h), the length bins (lengths.h).

   A hand is held by court: a ring of pieces, each a run of plain cards and
   the court card that ends it (run << 3 | court, hash.h), the last piece
   holding the trailing plain cards with court 0. Plain cards are
   interchangeable, so a trick steps from court card to court card. A ring
   has a power of two of places, at least one more than the deck's court
   cards, so a hand never overflows it and wrapping is one mask.

   Where a game's state lives, so that a trick touches no local memory: the
   pieces of both hands are in the block's shared memory, the two hands'
   pieces of one place in one 32-bit word (hand 0's the low half), the words
   of a place one a thread (BG_PIECE: the threads of a warp reach 32
   different banks whatever places they read, and an address is a few
   instructions); heads and sizes, by seat (the leader's and the other's,
   bg_game), and the counts of cards and tricks are scalars the compiler
   keeps in registers (a hand is never picked by indexing). The trick in
   play has no pile of its own: each piece laid is written straight after
   both hands' last pieces, and the taker's size grows over his at the
   trick's end. Only Brent's snapshot of the hands is in local memory: it
   is written a few times a game and read only when its sizes match.

   A game is played to its finish, to a repeat of a state (Brent's
   algorithm at empty tables), or to a cap of tricks far above any finite
   game; the host plays loops and capped games again with the compiled
   engine, which locates a loop exactly. So a game here reports exact cards
   and tricks only when it finished. */

#ifndef BEGGAR_GPU_GAME_H
#define BEGGAR_GPU_GAME_H

#include "vendor.h"
#include "sizes.h"
#include "random.h"
#include "deal.h"
#include "hash.h"
#include "census.h"
#include "lengths.h"

enum {
    BG_FINISHED = 0,
    BG_LOOP = 1,
    BG_CAPPED = 2,      /* the cap of tricks was reached: the host plays it again */
    /* Tricks before Brent's first snapshot: past nearly every finished game
       (the longest known has 1,164 tricks), so that a game that ends takes
       no snapshot at all; a perturbation's tries, a hundredth of which
       loop, start early (BG_BRENT_EARLY). */
    BG_BRENT_START = 1024,
    BG_BRENT_EARLY = 64,
    /* A census counts lengths below this exactly on the device; a game as
       long or longer is handed to the host as a hit. */
    BG_HISTOGRAM = 65536
};


/* What random deals look like (shuffle.py): the deck's size, the court cards
   in the order they are placed, the first hand's size (0: even, -1: drawn
   for each deal), the ring's size for the deck (a power of two), and the
   tricks a block plays between its barriers (kernel.cu's bg_flat). */
typedef struct {
    int total;
    int split;
    int n_courts;
    int ring;
    int steps;
    bg_u8 courts[BG_TOTAL];
} bg_shape;

/* Element (row, column) of a region of shared memory with BG_BLOCK columns
   of 16-bit elements (the queue's entries, kernel.cu): two rows of a column
   share a 32-bit word, and the words of a row are consecutive, so the
   threads of a warp, each in its own column, reach 32 different banks
   whatever rows they read. A region has an even number of rows. A macro,
   its row read twice: no side effects in it. */
#define bg_cell(row, column) (((((row) >> 1) * BG_BLOCK + (column)) << 1) | ((row) & 1))

/* The piece of hand p at place `place` of a thread's table, `hands` its
   first word's first half: both hands' pieces of a place share a word, and
   a place's words, one a thread, are consecutive. */
#define BG_PIECE(hands, p, place) ((hands)[(place) * (2 * BG_BLOCK) + (p)])

/* The bytes from a thread's piece at place k of its table to its piece at
   place k + 1 (BG_PIECE). */
#define BG_PLACE (4 * BG_BLOCK)

/* The piece at byte `at` of the block's tables `hands`: `at` is place *
   BG_PLACE + 4 * thread + 2 * hand, BG_PIECE's piece, so that one mask,
   (ring * BG_PLACE - 1), wraps a place and keeps the thread and the hand. */
#define BG_HALF(hands, at) (*(BG_LOCAL bg_u16*)((BG_LOCAL bg_u8*)(hands) + (at)))

/* A game at an empty table, by seats, not hands: the leader's head piece is
   at byte `lead` of `hands`, the block's tables (BG_HALF, a hand's place
   wrapped), his pieces at lead, lead + BG_PLACE, ... (wrapped), lead_size
   bytes of them; the other's alike. The leader's hand is lead's hand bit
   (bg_leader), so that a trick picks no hand by the leader. */
typedef struct {
    BG_LOCAL bg_u16* hands;
    int lead, other;
    int lead_size, other_size;
    bg_u32 cards;
    bg_u32 tricks;
} bg_game;

/* Brent's check of a game: the snapshot's hands by seat (local memory)
   and, in registers, its leader and sizes, compared first. */
typedef struct {
    bg_u16 piece[2][BG_RING];
} bg_snapshot;

typedef struct {
    int leader, lead_size, other_size;
    int taken;          /* a snapshot is held */
    bg_u32 power, due;   /* the doubling power; the game's tricks at the next snapshot */
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


/* ---------------------------------------------------------------- dealing */

/* A dealt game waiting in the block's queue: entry `slot`'s pieces are in
   column `slot` of `pieces` (BG_RING + 2 rows), the first hand's from row
   0 down, the second's from the last row up, so that both hands are taken
   a 32-bit word (two rows) at a time, with no test of where the second
   starts (kernel.cu's bg_take). */
typedef struct {
    BG_LOCAL bg_u16* pieces;
    BG_LOCAL bg_u16* sizes;     /* [2][BG_BLOCK] */
    int slot;
    int row;                    /* the next piece's */
    int step;                   /* from a piece's row to the next's: 1, or -1 in the second hand */
    bg_u32 run;                 /* plain cards since the last court card */
} bg_entry;

/* The first row of hand p's pieces in an entry, and the next piece's step. */
#define BG_ENTRY_ROW(p) ((p) ? BG_RING + 1 : 0)
#define BG_ENTRY_STEP(p) ((p) ? -1 : 1)

/* Add the next card of the hand being put in an entry (0: a plain card). */
BG_FN void bg_put(bg_entry* e, bg_u32 card) {
    if (card) {
        e->pieces[bg_cell(e->row, e->slot)] = (bg_u16)(e->run << BG_COURT_BITS | card);
        e->row += e->step;
        e->run = 0;
    } else {
        e->run++;
    }
}

/* End hand p of an entry: its trailing plain cards, and its size; the
   next hand starts on the last row. */
BG_FN void bg_end_hand(bg_entry* e, int p) {
    e->pieces[bg_cell(e->row, e->slot)] = (bg_u16)(e->run << BG_COURT_BITS);
    e->run = 0;
    e->sizes[p * BG_BLOCK + e->slot] = (bg_u16)((e->row - BG_ENTRY_ROW(p)) * BG_ENTRY_STEP(p) + 1);
    e->row = BG_ENTRY_ROW(1);
    e->step = BG_ENTRY_STEP(1);
}

/* A deal's court cards by their places in the deck: bit k of word k / 64 of
   `courts` marks place k. Words are picked by a mask of the place, constant
   for decks of at most 64 cards, so that a GPU keeps them in registers. The
   court card at place k is code[k] of an array beside them, a byte in local
   memory (a store as the card is drawn, a load as it is put, where two more
   words of bits cost a 64-bit select as it is drawn and a 64-bit shift as
   it is put); code[k] of a place not marked is never written nor read. */
#define BG_WORDS ((BG_CARDS + 63) / 64)
typedef struct {
    bg_u64 courts[BG_WORDS];
} bg_deck_bits;

/* Put hand p of a deal of `total` cards, `first` of them the first hand's,
   in entry `e` from its court cards: the cards are dealt one at a time,
   the leader first, while both hands get cards (place k < 2 * short is
   card k / 2 of hand k % 2), the rest to the longer hand (card k - short).
   A run of plain cards is the gap between two of the hand's court cards,
   so only court cards are visited. */
BG_FN void bg_put_hand(bg_entry* e, int p, const bg_deck_bits* d, const bg_u8* code, int first, int total) {
    BG_LOCAL bg_u16* pieces = e->pieces;
    int short_hand = first < total - first ? first : total - first, both = 2 * short_hand;
    int mine = p == (first < total - first);    /* the longer hand's are the places after both's */
    int slot = e->slot, row = BG_ENTRY_ROW(p), next = 0;  /* next: the card after the last court */
    /* Not unrolled: for decks of more than 64 cards the words are read by
       index (local memory), where unrolled they would spill. */
    BG_NO_UNROLL
    for (int w = 0; w < BG_WORDS; w++) {
        int under = both - w * 64;              /* this word's places below 2 * short */
        bg_u64 alternate = under >= 64 ? ~(bg_u64)0 : under <= 0 ? 0 : ((bg_u64)1 << under) - 1;
        bg_u64 bits = d->courts[w] & ((alternate & (p ? 0xAAAAAAAAAAAAAAAAull : 0x5555555555555555ull))
                                      | (mine ? ~alternate : 0));
        while (bits) {
            int bit = BG_CTZ64(bits), k = w * 64 + bit, j = k < both ? k >> 1 : k - short_hand;
            bits &= bits - 1;
            pieces[bg_cell(row, slot)] = (bg_u16)((bg_u32)(j - next) << BG_COURT_BITS | code[k]);
            row += BG_ENTRY_STEP(p);
            next = j + 1;
        }
    }
    e->row = row;
    e->run = (bg_u32)((p ? total - first : first) - next);
    bg_end_hand(e, p);
}

/* Deal `index` of `seed` into entry `e`, as Deal.shuffled deals it: a
   uniformly random free place of the deck for each court card in turn (a
   partial Fisher-Yates shuffle of the places), then for split "random" the
   first hand's size, then the cards one at a time (bg_put_hand). Only the
   court cards are placed, each marked in the deck's bits as it is drawn,
   and the hands are put from those. */
BG_FN void bg_deal_random(bg_entry* e, const BG_LOCAL bg_shape* s, bg_u64 seed, bg_u64 index) {
    /* The shuffle's free places, set four at a time. */
    union {
        bg_u8 place[BG_CARDS];
        bg_u32 word[BG_CARDS / 4];
    } free_places;
    bg_deck_bits deck;
    bg_u8 code[BG_CARDS];
    int total = s->total, n_courts = s->n_courts;
    bg_u64 state = bg_stream_start(seed, index);
    /* bg_first_hand's of a split known beforehand, written out: called here it
       costs bg_sample instructions (NVRTC cannot see that it draws nothing). */
    int first_hand = s->split > 0 ? s->split : total - total / 2;
    for (int w = 0; w < BG_WORDS; w++)
        deck.courts[w] = 0;
    /* All of them, a count known to the compiler: stores of constants, no loop. */
    for (int k = 0; k < BG_CARDS / 4; k++)
        free_places.word[k] = 0x03020100u + 0x04040404u * (bg_u32)k;
    for (int i = 0; i < n_courts; i++) {
        /* bg_draw_place's draw, less its write of place i, which no later draw reads. */
        int j = i + (int)bg_below(&state, (bg_u32)(total - i));
        int k = free_places.place[j], w = (k >> 6) & (BG_WORDS - 1);
        free_places.place[j] = free_places.place[i];
        deck.courts[w] |= (bg_u64)1 << (k & 63);
        code[k] = s->courts[i];
    }
    if (s->split < 0) {
        first_hand = bg_first_hand(-1, total, &state);     /* split "random" (s->split, reloaded, would cost) */
    }
    bg_put_hand(e, 0, &deck, code, first_hand, total);
    bg_put_hand(e, 1, &deck, code, first_hand, total);
}

/* Deal an arrangement into entry `e` as the census deals it: card i of the
   arrangement goes to place target[i] of the deal, so place k holds card
   source[k] (the inverse of target); hand 0 holds places 0 .. first_hand - 1. */
BG_FN void bg_deal_arrangement(bg_entry* e, const BG_LOCAL bg_block* b, const BG_LOCAL bg_u8* source,
                               const bg_u8* cards) {
    e->row = BG_ENTRY_ROW(0);
    e->step = BG_ENTRY_STEP(0);
    e->run = 0;
    for (int p = 0; p < 2; p++) {
        int from = p ? b->first_hand : 0, to = p ? b->total : b->first_hand;
        for (int k = from; k < to; k++)
            bg_put(e, cards[source[k]]);
        bg_end_hand(e, p);
    }
}

/* Deal the given cards into entry `e`: hand 0 holds the first n0 of the n
   cards, hand 1 the rest. */
BG_FN void bg_deal_cards(bg_entry* e, const bg_u8* cards, int n0, int n) {
    e->row = BG_ENTRY_ROW(0);
    e->step = BG_ENTRY_STEP(0);
    e->run = 0;
    for (int p = 0; p < 2; p++) {
        int from = p ? n0 : 0, to = p ? n : n0;
        for (int k = from; k < to; k++)
            bg_put(e, cards[k]);
        bg_end_hand(e, p);
    }
}


/* Start a game on thread t's table of `hands` (the block's), its hands of
   n0 and n1 pieces from place 0; hand 0 leads. */
BG_FN void bg_game_start(bg_game* g, BG_LOCAL bg_u16* hands, int t, int n0, int n1) {
    g->hands = hands;
    g->lead = 4 * t;
    g->other = 4 * t + 2;
    g->lead_size = n0 * BG_PLACE;
    g->other_size = n1 * BG_PLACE;
    g->cards = 0;
    g->tricks = 0;
}

/* Put the given cards on thread t's table of `hands`: hand 0 the first n0
   of the n cards, hand 1 the rest, both from place 0; hand 0 leads. */
BG_FN void bg_load_cards(bg_game* g, BG_LOCAL bg_u16* hands, int t, const BG_GLOBAL bg_u8* cards, int n0, int n) {
    int size[2];
    for (int p = 0; p < 2; p++) {
        int place = 0, from = p ? n0 : 0, to = p ? n : n0;
        bg_u32 run = 0;
        for (int k = from; k < to; k++) {
            if (cards[k]) {
                BG_PIECE(hands + 2 * t, p, place) = (bg_u16)(run << BG_COURT_BITS | cards[k]);
                place++;
                run = 0;
            } else {
                run++;
            }
        }
        BG_PIECE(hands + 2 * t, p, place) = (bg_u16)(run << BG_COURT_BITS);
        size[p] = place + 1;
    }
    bg_game_start(g, hands, t, size[0], size[1]);
}


/* ---------------------------------------------------------------- play */

BG_FN int bg_leader(const bg_game* g) { return g->lead >> 1 & 1; }
/* Seat 0 is the leader's, seat 1 the other's: its pieces. */
BG_FN int bg_size(const bg_game* g, int seat) { return (seat ? g->other_size : g->lead_size) / BG_PLACE; }

/* Piece i of a seat's hand. */
#define BG_AT(g, seat, i, mask) \
    BG_HALF((g)->hands, (((seat) ? (g)->other : (g)->lead) + (i) * BG_PLACE) & (((mask) + 1) * BG_PLACE - 1))

/* Play one trick from an empty table; 1 when the game is finished.

   While no penalty runs the players lay plain cards in turn, the leader
   first, until one of them meets the end of his head piece's run: the
   leader at card 2a + 1 of the trick, the other at card 2b + 2 (a, b their
   runs). The first to get there lays his court card, or is out if his run
   was his last: the game is over (and its pieces are not kept). A payer
   then lays plain cards until the penalty is paid, his next court card
   comes, or he runs out. The pile is built of pieces: its first in a
   register, each of the rest written as it is laid after the last piece of
   both hands, so that whichever takes the pile holds it already. Those
   places are free: a hand, after the pieces it laid, and the pile hold at
   most the deck's court cards and two pieces of plain cards, one of them
   the pile's first, at most the ring's places. The taker's hand takes them
   by growing its size, the pile's first run joining his trailing plain
   cards; he leads the next trick.

   Every piece is addressed by its byte in the block's tables, wrapped by
   one mask (BG_HALF): the payer's head piece at `at`, the other's `step`
   further, so that the payer changes with two additions; the pieces laid at
   lay_lead and lay_other, stepped by adding. Offsets grow unwrapped in a
   trick, so that a size is a difference; heads are wrapped at its end. The
   loop has one exit, so that a warp leaves it once: paid in full with
   plain cards, or out of them, he lays the smaller of his run and what he
   owes. */
BG_FN int bg_trick(bg_game* g, int mask) {
    const int place = BG_PLACE, wrap = (mask + 1) * BG_PLACE - 1;
    BG_LOCAL bg_u16* hands = g->hands;
    int lead = g->lead, other = g->other;
    bg_u32 lead_piece = BG_HALF(hands, lead), other_piece = BG_HALF(hands, other);
    bg_u32 a = lead_piece >> BG_COURT_BITS, b = other_piece >> BG_COURT_BITS;
    int late = a > b;                   /* the other meets his run's end first */
    int first = late ? other : lead, at = late ? lead : other;   /* the first's head; the payer's */
    bg_u32 x = late ? b : a;            /* plain cards the first lays before it */
    bg_u32 laid = 2 * x + (bg_u32)late;
    bg_u32 court = (late ? other_piece : lead_piece) & BG_COURT_MASK;
    /* The payer laid x + late plain cards meanwhile. */
    bg_u32 piece = (late ? lead_piece : other_piece) - ((x + (bg_u32)late) << BG_COURT_BITS), run, paid;
    g->tricks++;
    if (!court) {
        /* He runs out: the other takes the pile, and the game. */
        g->lead = at;
        g->other = first;
        g->cards += laid;
        return 1;
    }
    int lead_end = lead + g->lead_size, other_end = other + g->other_size;
    int lay_lead = lead_end, lay_other = other_end;
    bg_u32 owed = court, top = laid << BG_COURT_BITS | court;
    int step = first + place - at;      /* to the other's head, past his court card */
    laid++;
    /* While he owes more than his run and a court card ends it: the test
       before the loop and at the end of each pass, so that what a pass
       carries to the next is his piece alone. */
    run = piece >> BG_COURT_BITS;
    if (run < owed && (piece & BG_COURT_MASK))
        for (;;) {
            /* He lays his run and the court card after it: now the other owes. */
            BG_HALF(hands, lay_lead & wrap) = (bg_u16)piece;
            BG_HALF(hands, lay_other & wrap) = (bg_u16)piece;
            lay_lead += place;
            lay_other += place;
            laid += run + 1;
            owed = piece & BG_COURT_MASK;
            at += step;
            step = place - step;
            piece = BG_HALF(hands, at & wrap);
            run = piece >> BG_COURT_BITS;
            if (run >= owed || !(piece & BG_COURT_MASK))
                break;
        }
    paid = run < owed ? run : owed;
    other = at + step;
    /* Paid in full with plain cards, or out of them: then his piece is his
       run alone, and nothing of it stays. */
    BG_HALF(hands, at & wrap) = (bg_u16)(piece - (paid << BG_COURT_BITS));
    BG_HALF(hands, lay_lead & wrap) = (bg_u16)(paid << BG_COURT_BITS);
    BG_HALF(hands, lay_other & wrap) = (bg_u16)(paid << BG_COURT_BITS);
    g->cards += laid + paid;
    /* The taker laid the last court card: `other`'s hand. */
    int kept = !((other ^ lead) & 2);   /* the leader leads again */
    BG_HALF(hands, ((kept ? lead_end : other_end) - place) & wrap) += (bg_u16)top;
    g->lead_size = (kept ? lay_lead : lay_other) + place - other;
    g->other_size = (kept ? other_end : lead_end) - at;
    g->lead = other & wrap;
    g->other = at & wrap;
    return !(piece & BG_COURT_MASK) && paid == run;
}

/* Take a snapshot of the game's state, its rings rotated to start at place 0
   (a rare step: its loops are not unrolled, so that the kernels stay small). */
BG_FN void bg_copy(bg_brent* brent, bg_snapshot* snap, const bg_game* g, int mask) {
    for (int seat = 0; seat < 2; seat++)
        BG_NO_UNROLL
        for (int i = 0; i < bg_size(g, seat); i++)
            snap->piece[seat][i] = BG_AT(g, seat, i, mask);
    brent->leader = bg_leader(g);
    brent->lead_size = g->lead_size;
    brent->other_size = g->other_size;
    brent->taken = 1;
}

/* The snapshot's state at an empty table (pieces describe a hand uniquely). */
BG_FN int bg_same(const bg_brent* brent, const bg_snapshot* snap, const bg_game* g, int mask) {
    if (brent->leader != bg_leader(g) || brent->lead_size != g->lead_size || brent->other_size != g->other_size)
        return 0;
    for (int seat = 0; seat < 2; seat++)
        BG_NO_UNROLL
        for (int i = 0; i < bg_size(g, seat); i++)
            if (BG_AT(g, seat, i, mask) != snap->piece[seat][i])
                return 0;
    return 1;
}

/* Brent's check of a game at its start (no tricks played). */
BG_FN void bg_brent_start(bg_brent* brent, bg_u32 first) {
    brent->taken = 0;
    brent->power = first;
    brent->due = first;
}

/* The tricks since the last snapshot: at a repeat, the loop's period. */
BG_FN bg_u32 bg_brent_steps(const bg_brent* brent, const bg_game* g) {
    return g->tricks - (brent->due - brent->power);
}

/* Play one trick of the game on the table and look for its end: finished,
   a repeated state (Brent: a snapshot after bg_brent_start's first tricks, again
   whenever the tricks since the last one reach a doubling power), or `cap`
   tricks. The game's status, or -1 while it goes on. */
BG_FN int bg_step(bg_game* g, bg_brent* brent, bg_snapshot* snap, int mask, bg_u32 cap) {
    if (bg_trick(g, mask))
        return BG_FINISHED;
    if (brent->taken && bg_same(brent, snap, g, mask))
        return BG_LOOP;
    if (g->tricks == brent->due) {
        bg_copy(brent, snap, g, mask);
        brent->power <<= 1;
        brent->due = g->tricks + brent->power;
    }
    if (g->tricks >= cap)
        return BG_CAPPED;
    return -1;
}

/* The state's hash (hash.h): its leader's hand's pieces, a mark, then the other's. */
BG_FN bg_u64 bg_state_hash(const bg_game* g, int mask) {
    bg_u64 h = BG_FNV_START;
    for (int seat = 0; seat < 2; seat++) {
        for (int i = 0; i < bg_size(g, seat); i++)
            h = bg_hash_word(h, BG_AT(g, seat, i, mask));
        h = bg_hash_word(h, BG_HAND_MARK);
    }
    return h;
}

/* A loop's cycle hash (hash.h), from a state on its cycle of `period`
   tricks; the game is played on around the cycle meanwhile. */
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
    r->winner = status == BG_FINISHED ? bg_leader(g) : -1;
    r->cards = g->cards;
    r->tricks = g->tricks;
}


/* ---------------------------------------------------------------- counting */

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