/* The GPU engine's kernels: random deals (sample) and census blocks.

   Each kernel is persistent: its threads take deals from a shared counter
   a few at a time, so a warp whose games ended early takes more work
   instead of idling while other warps play long ones. The counter
   balances between warps only: within a warp each thread plays its game
   to the end and the warp reconverges after the trick loop (ptxas puts a
   convergence barrier there), so a thread whose game ended waits for the
   longest of its warp's 32 games before it takes the next
   (benchmarks/gpu_kernel_model.py models what that costs). Lengths are
   counted per thread block in shared memory and added to the totals once;
   the games handed to the host (long ones, loops, capped ones) go to a
   buffer through an atomic counter, and a count above the buffer's
   capacity tells the host to play the launch again in parts. The game
   itself is game.h's.

   This file also compiles as host C (beggar._gpu_host, with one thread and
   the atomics as plain operations), so the engine "gpu-host" runs these
   very kernels on the CPU. */

#include "game.h"

#ifdef __CUDACC__
#define BG_KERNEL extern "C" __global__ void
#define BG_SHARED __shared__
#define BG_THREAD threadIdx.x
#define BG_THREADS blockDim.x
#define BG_SYNC() __syncthreads()
#define BG_ADD32(p, v) atomicAdd((p), (bg_u32)(v))
#define BG_ADD64(p, v) atomicAdd((p), (bg_u64)(v))
#define BG_MAX64(p, v) atomicMax((p), (bg_u64)(v))
#elif !defined(BG_HARNESS)      /* the test suite's concurrency harness (tests/gpu_harness.c) has its own */
#define BG_KERNEL static void
#define BG_SHARED
#define BG_THREAD 0
#define BG_THREADS 1
#define BG_SYNC()
BG_FN bg_u32 bg_add32(bg_u32* p, bg_u32 v) { bg_u32 old = *p; *p += v; return old; }
BG_FN bg_u64 bg_add64(bg_u64* p, bg_u64 v) { bg_u64 old = *p; *p += v; return old; }
BG_FN void bg_max64(bg_u64* p, bg_u64 v) { if (v > *p) *p = v; }
#define BG_ADD32(p, v) bg_add32((p), (bg_u32)(v))
#define BG_ADD64(p, v) bg_add64((p), (bg_u64)(v))
#define BG_MAX64(p, v) bg_max64((p), (bg_u64)(v))
#endif

enum {
    /* Deals a thread takes at a time: few enough to balance the load between
       warps, enough that the shared counter is not the bottleneck. */
    BG_GRAB = 8,
    /* Census lengths counted in shared memory below these. */
    BG_SHARED_CARDS = 4096,
    BG_SHARED_TRICKS = 1024
};

BG_FN void bg_keep(bg_hit* hits, bg_u64* n_hits, bg_u64 capacity, const bg_result* r, bg_u64 offset) {
    bg_u64 slot = BG_ADD64(n_hits, 1);
    if (slot < capacity)
        bg_hit_of(&hits[slot], r, offset);
}

/* Deals first .. first + count - 1 of `seed` (count < 2^40). Finished games
   are counted in `lengths` (lengths.py's bins) and the longest is `best`
   (bg_best_key); every game bg_sample_keeps goes to `hits`. `next` starts
   at 0. */
BG_KERNEL bg_sample(const bg_shape* shape, bg_u64 seed, bg_u64 first, bg_u64 count, bg_i64 min_cards,
                    bg_i64 cap, bg_u64* next, bg_u64* lengths, bg_u64* best, bg_hit* hits,
                    bg_u64* n_hits, bg_u64 capacity) {
    BG_SHARED bg_u32 bins[BG_LENGTHS_BINS];
    BG_SHARED bg_shape s;
    bg_game g, snap;
    bg_result r;
    bg_u64 my_best = 0;
    for (int i = BG_THREAD; i < BG_LENGTHS_BINS; i += BG_THREADS)
        bins[i] = 0;
    if (BG_THREAD == 0)
        s = *shape;
    BG_SYNC();
    int mask = s.ring - 1;
    for (;;) {
        bg_u64 start = BG_ADD64(next, BG_GRAB);
        if (start >= count)
            break;
        bg_u64 end = start + BG_GRAB < count ? start + BG_GRAB : count;
        for (bg_u64 offset = start; offset < end; offset++) {
            bg_deal_random(&g, &s, seed, first + offset);
            bg_play(&g, &snap, mask, cap, &r);
            if (r.status == BG_FINISHED) {
                BG_ADD32(&bins[bg_length_bin(r.cards)], 1);
                bg_u64 key = bg_best_key(&r, offset);
                if (key > my_best)
                    my_best = key;
            }
            if (bg_sample_keeps(&r, min_cards))
                bg_keep(hits, n_hits, capacity, &r, offset);
        }
    }
    if (my_best)
        BG_MAX64(best, my_best);
    BG_SYNC();
    for (int i = BG_THREAD; i < BG_LENGTHS_BINS; i += BG_THREADS)
        if (bins[i])
            BG_ADD64(&lengths[i], bins[i]);
}

/* Deals 0 .. count - 1 of a census block (bg_block), `grab` consecutive
   arrangements at a time: each run of them is unranked once and stepped on
   by next-arrangement. Finished games shorter than BG_HISTOGRAM in cards
   and tricks are counted in `cards` and `tricks` (one number per length);
   every game bg_census_keeps goes to `hits`. */
BG_KERNEL bg_census(const bg_block* block, bg_u64 count, bg_u64 grab, bg_i64 threshold, bg_i64 cap,
                    bg_u64* next, bg_u64* cards, bg_u64* tricks, bg_hit* hits, bg_u64* n_hits,
                    bg_u64 capacity) {
    BG_SHARED bg_u32 short_cards[BG_SHARED_CARDS];
    BG_SHARED bg_u32 short_tricks[BG_SHARED_TRICKS];
    BG_SHARED bg_block b;
    bg_u8 arrangement[BG_TOTAL];
    bg_game g, snap;
    bg_result r;
    for (int i = BG_THREAD; i < BG_SHARED_CARDS; i += BG_THREADS)
        short_cards[i] = 0;
    for (int i = BG_THREAD; i < BG_SHARED_TRICKS; i += BG_THREADS)
        short_tricks[i] = 0;
    if (BG_THREAD == 0)
        b = *block;
    BG_SYNC();
    int mask = b.ring - 1;
    for (;;) {
        bg_u64 start = BG_ADD64(next, grab);
        if (start >= count)
            break;
        bg_u64 end = start + grab < count ? start + grab : count;
        bg_unrank(arrangement, &b, start);
        for (bg_u64 offset = start; offset < end; offset++) {
            if (offset > start)
                bg_next_arrangement(arrangement, b.total);
            bg_deal_arrangement(&g, &b, arrangement);
            bg_play(&g, &snap, mask, cap, &r);
            if (bg_census_keeps(&r, threshold))
                bg_keep(hits, n_hits, capacity, &r, offset);
            if (r.status != BG_FINISHED || r.cards >= BG_HISTOGRAM || r.tricks >= BG_HISTOGRAM)
                continue;
            if (r.cards < BG_SHARED_CARDS)
                BG_ADD32(&short_cards[r.cards], 1);
            else
                BG_ADD64(&cards[r.cards], 1);
            if (r.tricks < BG_SHARED_TRICKS)
                BG_ADD32(&short_tricks[r.tricks], 1);
            else
                BG_ADD64(&tricks[r.tricks], 1);
        }
    }
    BG_SYNC();
    for (int i = BG_THREAD; i < BG_SHARED_CARDS; i += BG_THREADS)
        if (short_cards[i])
            BG_ADD64(&cards[i], short_cards[i]);
    for (int i = BG_THREAD; i < BG_SHARED_TRICKS; i += BG_THREADS)
        if (short_tricks[i])
            BG_ADD64(&tricks[i], short_tricks[i]);
}
