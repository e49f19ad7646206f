/* The GPU kernels' dealing and play, built for the host with the standard
   deck's sizes (a ring of 32 pieces, 64 cards), one thread: the program that
   benchmarks/gpu_deal_cost.py counts the instructions of under callgrind.
   Each part is a function of its own (never inlined), so that callgrind can
   count it alone:

       gpu_deal_cost deal|census|play N

   deal    N random standard deals dealt (deal_random)
   census  N census arrangements stepped to and dealt (deal_census)
   play    N random standard deals dealt and played to their end, a trick at
           a time (play_trick); prints the tricks played.

   It takes game.h from the include path, so the same program counts another
   version of it (an older commit's) side by side. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BG_RING 32
#define BG_TOTAL 256
#define BG_CARDS 64
#define BG_BLOCK 1
#include "game.h"

static bg_u16 queue[BG_RING + 2];
static bg_u16 queue_sizes[2];
static bg_u16 hands[2 * BG_RING];

__attribute__((noinline, noclone)) void deal_random(bg_entry* e, const bg_shape* s, bg_u64 index) {
    bg_deal_random(e, s, 2026, index);
}

__attribute__((noinline, noclone)) void deal_census(bg_entry* e, const bg_block* b, const bg_u8* source,
                                                  bg_u8* cards) {
    bg_next_arrangement(cards, b->total);
    bg_deal_arrangement(e, b, source, cards);
}

__attribute__((noinline, noclone)) int play_trick(bg_game* g, bg_brent* brent, bg_snapshot* snap) {
    return bg_step(g, brent, snap, BG_RING - 1, 1 << 15);
}

/* The standard deck's shape: 16 court cards, four of each, in the order shuffle.py places them. */
static void standard(bg_shape* s) {
    memset(s, 0, sizeof *s);
    s->total = 52;
    s->n_courts = 16;
    s->ring = BG_RING;
    for (int i = 0; i < 16; i++)
        s->courts[i] = (bg_u8)(1 + i / 4);
}

int main(int argc, char** argv) {
    if (argc != 3 || (strcmp(argv[1], "deal") && strcmp(argv[1], "census") && strcmp(argv[1], "play"))) {
        fprintf(stderr, "usage: gpu_deal_cost deal|census|play N\n");
        return 2;
    }
    long n = atol(argv[2]);
    bg_entry e;
    e.pieces = queue;
    e.sizes = queue_sizes;
    e.slot = 0;
    bg_shape shape;
    standard(&shape);
    unsigned long checksum = 0, tricks = 0;
    if (!strcmp(argv[1], "census")) {
        /* The standard deck's first arrangement, dealt as the census deals it. */
        static bg_block block;
        bg_u8 cards[BG_CARDS], source[BG_TOTAL];
        block.total = 52;
        block.first_hand = 26;
        for (int i = 0; i < 52; i++) {
            cards[i] = (bg_u8)(i < 36 ? 0 : 1 + (i - 36) / 4);
            block.target[i] = (bg_u8)((i % 2) * 26 + i / 2);
            source[block.target[i]] = (bg_u8)i;
        }
        for (long i = 0; i < n; i++) {
            deal_census(&e, &block, source, cards);
            checksum += queue[0] + queue_sizes[0];
        }
    } else {
        for (long i = 0; i < n; i++) {
            deal_random(&e, &shape, (bg_u64)i);
            checksum += queue[0] + queue_sizes[0];
            if (argv[1][0] != 'p')
                continue;
            bg_game g;
            bg_brent brent;
            bg_snapshot snap;
            /* The entry put on the table as kernel.cu's bg_take puts it. */
            int n0 = queue_sizes[0], n1 = queue_sizes[1];
            for (int k = 0; k < n0; k++)
                BG_PIECE(hands, 0, k) = queue[bg_cell(k, 0)];
            /* (The game.h of revisions before 75b90a5: an entry's second hand from the
               next even row down; before 4184846: a game held by hands.) */
#ifdef BG_ENTRY_ROW
            for (int k = 0; k < n1; k++)
                BG_PIECE(hands, 1, k) = queue[bg_cell(BG_ENTRY_ROW(1) - k, 0)];
#else
            for (int k = 0; k < n1; k++)
                BG_PIECE(hands, 1, k) = queue[bg_cell(((n0 + 1) & ~1) + k, 0)];
#endif
#ifdef BG_PLACE
            bg_game_start(&g, hands, 0, n0, n1);
#else
            g.hands = hands;
            g.head0 = g.head1 = 0;
            g.size0 = n0;
            g.size1 = n1;
            g.leader = 0;
            g.cards = 0;
            g.tricks = 0;
#endif
            bg_brent_start(&brent, BG_BRENT_START);     /* as bg_sample starts it */
            while (play_trick(&g, &brent, &snap) < 0)
                ;
            tricks += g.tricks;
        }
    }
    printf("%lu %lu\n", tricks, checksum);
    return 0;
}
