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

/* One small change of s, of kind `kind` (0 .. 3):
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
BG_FN void bg_small_change(bg_u64* rng, bg_state* s, int reach, int kind) {
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

/* One small change of s, of a kind drawn from range(4) (bg_small_change). */
BG_FN void bg_change(bg_u64* rng, bg_state* s, int reach) {
    bg_small_change(rng, s, reach, (int)bg_below(rng, 4));
}

/* The kinds of change a walk draws from: the four small ones
   (bg_small_change), or those and the three wide ones (bg_wide_change),
   which change what a few small ones cannot: the order of whole runs of
   cards, and which of two cycles' states a state is made of. */
#define BG_MOVES_SMALL 4
#define BG_MOVES_WIDE 7

/* cards[a .. c - 1] turned so that cards[b] comes first (three reversals). */
BG_FN void bg_reverse(bg_u8* cards, int a, int b) {
    for (b--; a < b; a++, b--) {
        bg_u8 card = cards[a];
        cards[a] = cards[b];
        cards[b] = card;
    }
}

BG_FN void bg_rotate(bg_u8* cards, int a, int b, int c) {
    bg_reverse(cards, a, b);
    bg_reverse(cards, b, c);
    bg_reverse(cards, a, c);
}

/* One wide change of s (n cards, n >= 3), of kind `kind` (4 .. 6), the
   split kept:
   4  a block moved: its length L, 2 plus a draw from range(reach), at most
      n - 1; its place i, from range(n - L + 1); where it goes, j, from the
      same range; the block taken out and put back with j cards of the rest
      before it;
   5  a segment turned: its length L, 2 plus a draw from range(2 * reach),
      at most n; its place i, from range(n - L + 1); r from range(L - 1)
      plus 1: its card r places in comes first, those before it go last;
   6  spliced with `other` (the cards of a state of the pool, of the same
      deck): a run of s kept, its length L from range(n - 1) plus 1 and
      its place i from range(n - L + 1); every other place, in order,
      takes the next card of `other`, in its order, of a rank that the
      kept run leaves some of (the deck's count of that rank less the
      run's, less those already placed). */
BG_FN void bg_wide_change(bg_u64* rng, bg_state* s, int reach, int kind, const BG_GLOBAL bg_u8* other) {
    int n = s->n;
    if (kind == 4) {
        int length = 2 + (int)bg_below(rng, (bg_u32)reach);
        length = length > n - 1 ? n - 1 : length;
        int i = (int)bg_below(rng, (bg_u32)(n - length + 1)), j = (int)bg_below(rng, (bg_u32)(n - length + 1));
        if (j < i)
            bg_rotate(s->cards, j, i, i + length);
        else if (j > i)
            bg_rotate(s->cards, i, i + length, j + length);
    } else if (kind == 5) {
        int length = 2 + (int)bg_below(rng, (bg_u32)(2 * reach));
        length = length > n ? n : length;
        int i = (int)bg_below(rng, (bg_u32)(n - length + 1));
        int r = 1 + (int)bg_below(rng, (bg_u32)(length - 1));
        bg_rotate(s->cards, i, i + r, i + length);
    } else {
        int length = 1 + (int)bg_below(rng, (bg_u32)(n - 1));
        int i = (int)bg_below(rng, (bg_u32)(n - length + 1));
        int left[BG_CODES] = {0};
        for (int k = 0; k < n; k++)
            left[other[k]]++;
        for (int k = i; k < i + length; k++)
            left[s->cards[k]]--;
        int from = 0;
        for (int k = 0; k < n; k++) {
            if (k == i) {
                k += length - 1;
                continue;
            }
            while (!left[other[from]])
                from++;
            left[other[from]]--;
            s->cards[k] = other[from++];
        }
    }
}

/* Try `t` of a walk: from the stream bg_stream_start(walk_seed, t), a state
   of the pool drawn (`n_pool` rows of n + 1 bytes: n0, then the n cards),
   then the number of changes drawn from range(changes) plus 1, and those
   changes made, each of kind first_kind plus a draw from range(kinds)
   (0 and BG_MOVES_SMALL for the small moves, 0 and BG_MOVES_WIDE for all;
   one kind alone to measure it; a splice draws its other state of the pool
   after its kind). Whether both its hands hold a card (a try that is no game plays
   nothing). */
BG_FN int bg_perturbed(bg_state* s, const BG_GLOBAL bg_u8* pool, int n_pool, int n, bg_u64 walk_seed, bg_u64 t,
                       int changes, int reach, int first_kind, int kinds) {
    bg_u64 rng = bg_stream_start(walk_seed, t);
    const BG_GLOBAL bg_u8* row = pool + (bg_u64)bg_below(&rng, (bg_u32)n_pool) * (bg_u64)(n + 1);
    s->n = n;
    s->n0 = row[0];
    for (int k = 0; k < n; k++)
        s->cards[k] = row[1 + k];
    int made = 1 + (int)bg_below(&rng, (bg_u32)changes);
    for (int m = 0; m < made; m++) {
        int kind = first_kind + (int)bg_below(&rng, (bg_u32)kinds);
        if (kind < BG_MOVES_SMALL)
            bg_small_change(&rng, s, reach, kind);
        else
            bg_wide_change(&rng, s, reach, kind,
                           kind == 6 ? pool + (bg_u64)bg_below(&rng, (bg_u32)n_pool) * (bg_u64)(n + 1) + 1 : row + 1);
    }
    return bg_state_playable(s);
}

#endif
