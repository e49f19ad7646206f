/* A state's hash and a loop's identity: FNV-1a over a hand's pieces.

   A hand is held by court in every engine that plays by court: pieces, each
   a run of plain cards and the court card that ends it (run << 3 | court),
   the last holding the trailing plain cards with court 0, so that pieces
   describe a hand uniquely. A two-player state's hash is the pieces of the
   leader's hand, a mark, then the other hand's and a mark: the same from
   either seat. A loop's cycle hash is the least hash of the states of its
   cycle, the same whichever state a game entered it by. Each engine walks
   a cycle in its own layout (the compiled engine's rings in _game.pyx, a
   thread's column of shared memory in game.h) and hashes with these; from
   a state's cards (the perturbation walk's pool) with bg_hash_state.
   reference.state_hash is the same written in Python from these words,
   apart from this code. */

#ifndef BEGGAR_GPU_HASH_H
#define BEGGAR_GPU_HASH_H

#include "vendor.h"

enum {
    BG_COURT_BITS = 3,
    BG_COURT_MASK = 7,
    BG_HAND_MARK = 0xFFFF       /* after each hand's pieces: no piece is this */
};

#define BG_FNV_START 14695981039346656037ULL
#define BG_FNV_PRIME 1099511628211ULL

/* A hash with one more piece (or byte, or mark) hashed in. */
BG_FN bg_u64 bg_hash_word(bg_u64 h, bg_u32 word) {
    return (h ^ word) * BG_FNV_PRIME;
}

/* Hand of n cards (codes, top first) hashed in by its pieces, then its mark. */
BG_FN bg_u64 bg_hash_hand(bg_u64 h, const bg_u8* cards, int n) {
    bg_u32 run = 0;
    for (int k = 0; k < n; k++) {
        if (cards[k]) {
            h = bg_hash_word(h, run << BG_COURT_BITS | cards[k]);
            run = 0;
        } else {
            run++;
        }
    }
    return bg_hash_word(bg_hash_word(h, run << BG_COURT_BITS), BG_HAND_MARK);
}

/* A two-player state's hash from the deal it stands for: n cards, the
   leader's hand the first n0. */
BG_FN bg_u64 bg_hash_state(const bg_u8* cards, int n, int n0) {
    return bg_hash_hand(bg_hash_hand(BG_FNV_START, cards, n0), cards + n0, n - n0);
}

/* FNV-1a of n bytes (a loop's canonical state, cycle.state_key). */
BG_FN bg_u64 bg_hash_bytes(const bg_u8* bytes, int n) {
    bg_u64 h = BG_FNV_START;
    for (int k = 0; k < n; k++)
        h = bg_hash_word(h, bytes[k]);
    return h;
}

#endif
