/* The random deal's steps (shuffle.py, its twin in Python), draw for draw, for every compiled dealer in
   its own layout: the compiled engine (_game.pyx) and the kernels' climber deal a deck with bg_deal_two;
   the warp's dealer (game.h) marks each court card's place in its hands' bits instead of a deck. */

#ifndef BEGGAR_C_DEAL_H
#define BEGGAR_C_DEAL_H

#include "vendor.h"
#include "random.h"

/* The place court card i takes: a uniformly random one of the free places[i .. total - 1]
   (a partial Fisher-Yates shuffle of the places, which start 0, 1, 2, ...), moved to place[i]. */
BG_FN int bg_draw_place(bg_u8* place, int i, int total, bg_u64* state) {
    int j = i + (int)bg_below(state, (bg_u32)(total - i));
    bg_u8 taken = place[j];
    place[j] = place[i];
    place[i] = taken;
    return taken;
}

/* A two-player deal's first hand, drawn after the shuffle: the split's
   cards (split > 0), uniform over 1 .. total - 1 (split "random", -1), or
   even, the leader's the longer (0). */
BG_FN int bg_first_hand(int split, int total, bg_u64* state) {
    return split > 0 ? split : split < 0 ? 1 + (int)bg_below(state, (bg_u32)(total - 1)) : total - total / 2;
}

/* `deck` dealt to hands of `first` and total - first cards, one after another in `out`: a card
   at a time, the leader first, while both take cards, then the rest to the longer hand. */
BG_FN void bg_deal_two(BG_GLOBAL bg_u8* out, const bg_u8* deck, int total, int first) {
    int short_hand = first < total - first ? first : total - first;
    for (int i = 0; i < short_hand; i++) {
        out[i] = deck[2 * i];
        out[first + i] = deck[2 * i + 1];
    }
    int rest = first > total - first ? -short_hand : first - short_hand;   /* where the longer hand's last cards go */
    for (int i = 2 * short_hand; i < total; i++)
        out[rest + i] = deck[i];
}

#endif
