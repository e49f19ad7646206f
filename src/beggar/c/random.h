/* The random stream of every seeded deal, walk and try (shuffle.py):
   SplitMix64, and Lemire's exact draw from range(n).

   One definition for every engine: the compiled modules bind these through
   _random.pxd, the kernels include them; shuffle.Stream is the same
   written in Python, apart from this. */

#ifndef BEGGAR_GPU_RANDOM_H
#define BEGGAR_GPU_RANDOM_H

#include "vendor.h"

BG_FN bg_u64 bg_mix64(bg_u64 x) {
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

BG_FN bg_u32 bg_next32(bg_u64* state) {
    *state += 0x9E3779B97F4A7C15ULL;
    return (bg_u32)(bg_mix64(*state) >> 32);
}

/* Uniform in range(n): Lemire's multiply-shift with rejection (a division
   only in the rare case that the low word falls under n). */
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

/* The stream of deal (or walk, or try) `index` of `seed`. */
BG_FN bg_u64 bg_stream_start(bg_u64 seed, bg_u64 index) {
    return bg_mix64(bg_mix64(seed) + index);
}

#endif
