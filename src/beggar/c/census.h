/* The census's order of arrangements (census.py): lexicographic, plain < J
   < Q < K < A. A block's first arrangement is unranked, the rest follow by
   next-arrangement: the compiled engine's census (_census.pyx) steps with
   bg_next_arrangement, the kernel bg_census unranks each run of them on the
   device and steps on the same way. census.next_arrangement and
   census.unrank are the same written in Python, apart from this. */

#ifndef BEGGAR_GPU_CENSUS_H
#define BEGGAR_GPU_CENSUS_H

#include "vendor.h"
#include "sizes.h"

/* A census block's deals (census.py): arrangements of `total` cards whose
   first `total - suffix` cards are `prefix`'s, and whose suffix is
   arrangement `suffix_first + offset` of the multiset `suffix_counts` (it
   has `suffix_arrangements` < 2^63 of them); card i of an arrangement goes
   to place target[i] of the deal, whose first hand holds `first_hand`;
   `ring` and `steps` are the kernels' (a hand's ring, the tricks between a
   block's barriers). */
typedef struct {
    int total;
    int first_hand;
    int suffix;
    int ring;
    int steps;
    bg_u64 suffix_first;
    bg_u64 suffix_arrangements;
    int suffix_counts[BG_CODES];
    bg_u8 prefix[BG_TOTAL];
    bg_u8 target[BG_TOTAL];
} bg_block;

/* Step the n cards to the next arrangement; 0 (and the cards unchanged)
   when they were the last. */
BG_FN int bg_next_arrangement(bg_u8* cards, int n) {
    int i = n - 2, j = n - 1;
    while (i >= 0 && cards[i] >= cards[i + 1])
        i--;
    if (i < 0)
        return 0;
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
    return 1;
}

/* x / d, where d (1 .. 2^31) divides x exactly: a multiplication by the
   inverse of d's odd part modulo 2^64 (Newton's iteration doubles its exact
   bits from 3, x * x = 1 modulo 8 for every odd x), after a shift by its
   powers of two. No 64-bit division, which a GPU has no instruction for. */
BG_FN bg_u64 bg_exact_quotient(bg_u64 x, bg_u32 d) {
    int twos = BG_CTZ64((bg_u64)d);
    bg_u64 odd = (bg_u64)(d >> twos), inverse = odd;
    for (int i = 0; i < 5; i++)         /* 3 exact bits doubled 5 times: 96 >= 64 */
        inverse *= 2 - odd * inverse;
    return (x >> twos) * inverse;
}

/* A block's arrangement at `offset`: the prefix, and the suffix unranked.
   The arrangements of a multiset that start with code c are
   arrangements(left) * left[c] / n; the common factor of left[c] and n is
   divided out first, so nothing exceeds the suffix's arrangements, and the
   division is exact. */
BG_FN void bg_unrank(bg_u8* cards, const BG_LOCAL bg_block* b, bg_u64 offset) {
    int left[BG_CODES];
    int start = b->total - b->suffix;
    bg_u64 rank = b->suffix_first + offset, arrangements = b->suffix_arrangements;
    for (int i = 0; i < start; i++)
        cards[i] = b->prefix[i];
    for (int c = 0; c < BG_CODES; c++)
        left[c] = b->suffix_counts[c];
    for (int i = start; i < b->total; i++) {
        int n = b->total - i;
        for (int c = 0; c < BG_CODES; c++) {
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

#endif
