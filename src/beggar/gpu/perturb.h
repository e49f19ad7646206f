/* The perturbation walk's tries (the loop factory, docs/loops.md): a state
   on a known loop, changed one to `changes` times by small changes, then
   played. The compiled engine's walks (_loops.pyx: perturbation, and the
   sideways moves and insertions of growth) and the kernel bg_perturb make
   their states with these, so a walk's try t is the same state on every
   engine; reference.perturbed is the same written in Python from the words
   of these comments, apart from this code. */

#ifndef BEGGAR_GPU_PERTURB_H
#define BEGGAR_GPU_PERTURB_H

#include "vendor.h"
#include "sizes.h"
#include "random.h"

/* A two-player state as the deal it stands for: n cards, the leader's hand
   the first n0 (top card first), then the other's. */
typedef struct {
    int n, n0;
    bg_u8 cards[BG_CARDS];
} bg_state;

/* Insert `card` at `position` of 0 .. n + 1: 0 .. n0 in the leader's hand
   (n0: at its bottom), n0 + 1 .. n + 1 in the other's (n0 + 1: on top). */
BG_FN void bg_state_insert(bg_state* s, int position, bg_u8 card) {
    int at = position <= s->n0 ? position : position - 1;
    for (int k = s->n; k > at; k--)
        s->cards[k] = s->cards[k - 1];
    s->cards[at] = card;
    s->n++;
    if (position <= s->n0)
        s->n0++;
}

/* Take out the card at `at`. */
BG_FN void bg_state_remove(bg_state* s, int at) {
    for (int k = at; k < s->n - 1; k++)
        s->cards[k] = s->cards[k + 1];
    s->n--;
    if (at < s->n0)
        s->n0--;
}

/* Both hands hold a card (a state with an empty hand is already over). */
BG_FN int bg_state_playable(const bg_state* s) {
    return 0 < s->n0 && s->n0 < s->n;
}

/* One small change of s, of a kind drawn from range(4):
   0  two cards of different rank swapped: places i and j drawn, up to 64
      times, until their cards differ (else nothing changes);
   1  one card moved into the other hand: place i drawn; its card taken out
      and put at a place of the other hand, drawn from its places 0 .. its
      size (the leader's card at insert position n0 + 1 + drawn, the other's
      at drawn);
   2  a court card moved 1 to `reach` places: places drawn until one holds
      a court card, the distance d drawn from range(reach) plus 1, then
      a draw from range(2), 1 to move it down (later) and 0 up, clamped to
      the deal's ends, the cards between shifting by one;
   3  the split shifted: d from range(3) plus 1, then a draw from range(2),
      1 to give the leader d more cards, 0 d fewer, clamped to 1 .. n - 1
      (cards pass from the bottom of the leader's hand to the top of the
      other's, or back). */
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

/* Try `t` of a walk: from the stream bg_stream_start(walk_seed, t), a state
   of the pool drawn (`n_pool` rows of n + 1 bytes: n0, then the n cards),
   then the number of changes drawn from range(changes) plus 1, and those
   changes made. Whether both its hands hold a card (a try that is no game
   plays nothing). */
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
    return bg_state_playable(s);
}

#endif
