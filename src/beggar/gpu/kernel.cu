/* The GPU engines' kernels: random deals (bg_sample), census blocks
   (bg_census), a perturbation walk's tries (bg_perturb), deals they are
   handed (bg_batch), and walks of the hill climber (bg_climb, at the end of
   this file).

   The first four are one flat loop in which a warp never waits for its longest
   game. Every step plays one trick for every thread that has a game; a
   thread whose game ended records it and takes at once a deal that is
   already dealt, from its block's queue in shared memory. Every BG_STEPS
   steps the block meets at a barrier and, when half its queue is free,
   refills it: threads 0 .. free - 1 deal one deal each, so that whole warps
   deal together and dealing stays converged too. The queue holds one deal a
   thread; a block plays about half as many games in BG_STEPS tricks, so a
   thread rarely finds it empty. Deals come from a shared counter in runs of
   `grab` (a census run is unranked once and stepped on by next-arrangement),
   so the counter is touched once a run. A deal is dealt from (seed, index)
   (random deals), unranked (a census), derived from the walk's pool and
   (seed, try) (perturbation), or read from the rows given (a batch).
   benchmarks/gpu_kernel_model.py models what the warps issue under this
   scheduling, from real games and this code's machine code.

   Lengths are counted per thread block in shared memory and added to the
   totals once (long ones, rarer, straight to the totals); the games handed
   to the host (long ones, loops, capped ones; a walk's loops not known yet)
   go to a buffer through an atomic counter, and a count above the buffer's
   capacity tells the host to play the launch again in parts; a batch's
   games each to their own row. The game itself is game.h's, a perturbation's
   try perturb.h's and the climber's step climb.h's.

   One body for every target (vendor.h holds the differences): CUDA through
   NVRTC (the engine "gpu"), OpenCL C (the engine "opencl"), and host C:
   beggar._gpu_host with one thread and the atomics as plain operations (the
   engine "gpu-host", these very kernels on the CPU), and tests/gpu_harness.c
   with many threads of several blocks. */

#include "game.h"
#include "perturb.h"
#include "climb.h"

enum {
    /* Tricks a block plays between its barriers where the launch does not
       say (a perturbation's, a batch's): long enough that the barriers cost
       little, short enough that its queue is refilled before it runs dry
       (a sample or census launch takes its deck's, engine.steps_between). */
    BG_STEPS = 16,
    /* Random deals a thread takes from the counter at a time. */
    BG_GRAB = 8,
    /* Lengths counted in shared memory below these (the rest, rarer, go
       to the totals at once). */
    BG_SHARED_BINS = 1024,
    BG_SHARED_CARDS = 1024,
    BG_SHARED_TRICKS = 256
};

/* Where a block's queue counters start: 0, or in the tests just below 2^32,
   to show that they never run past it (the barrier brings them down). */
#ifndef BG_QUEUE_START
#define BG_QUEUE_START 0u
#endif

/* The census's counts, zeroed, cover the sample's bins. */
typedef char bg_bins_covered[BG_SHARED_CARDS >= BG_SHARED_BINS ? 1 : -1];

/* A block's shared memory. */
typedef struct {
    /* The threads' tables, a place a word (game.h's BG_PIECE), and the
       queue's entries (game.h's bg_entry), both taken a word of two
       pieces at a time (bg_take, vendor.h's bg_pair): at offsets of
       whole words. */
    bg_u16 hands[2 * BG_RING * BG_BLOCK];
    bg_u16 queue[(BG_RING + 2) * BG_BLOCK];
    bg_u16 queue_sizes[2 * BG_BLOCK];
    bg_u64 queue_offsets[BG_BLOCK];
    /* The queue: entries head .. tail - 1 (mod the threads) are dealt;
       `filled` more were dealt at the last refill. */
    bg_u32 head, tail, filled;
    bg_u32 live;        /* threads that have a game, at the barrier */
    bg_u32 dry;         /* threads whose deals are all dealt */
    int done, refill;
    union {
        bg_u32 bins[BG_SHARED_BINS];
        struct {
            bg_u32 cards[BG_SHARED_CARDS];
            bg_u32 tricks[BG_SHARED_TRICKS];
        } census;
    } counts;
    union {
        bg_shape shape;
        struct {
            bg_block block;
            bg_u8 source[BG_TOTAL];     /* the inverse of block.target */
        } census;
    } deals;
} bg_block_memory;

/* What a launch plays: random deals, a census block's, a perturbation
   walk's tries, or deals it is given. */
enum { BG_SAMPLE = 0, BG_CENSUS = 1, BG_PERTURB = 2, BG_BATCH = 3 };

/* What a launch is asked for: the kernels' arguments. Each kernel sets
   those of its kind (the rest are 0): after inlining `kind` is a constant,
   and the code of the other kinds is gone. */
typedef struct {
    int kind;
    bg_u64 seed, first, count, grab;
    bg_i64 keep_cards;          /* sample: min_cards; census: the threshold */
    bg_u32 cap;
    int total, ring;            /* perturb, batch: the deals' cards and ring */
    BG_GLOBAL bg_u64* next;
    BG_GLOBAL bg_u64* lengths;  /* sample */
    BG_GLOBAL bg_u64* best;
    BG_GLOBAL bg_u64* cards;    /* census */
    BG_GLOBAL bg_u64* tricks;
    BG_GLOBAL bg_hit* hits;
    BG_GLOBAL bg_u64* n_hits;
    bg_u64 capacity;
    const BG_GLOBAL bg_u8* pool;    /* perturb: the pool's rows (n0, then the cards) */
    int n_pool, changes, reach, n_known;
    const BG_GLOBAL bg_u64* known;  /* perturb: the loops' hashes known, sorted */
    BG_GLOBAL bg_u64* cycles;       /* perturb: the table of new cycles (bg_new_cycle), n_slots of them */
    bg_u64 n_slots;
    BG_GLOBAL bg_u64* n_cycles;
    const BG_GLOBAL bg_u8* rows;    /* batch: the deals, `total` cards a row */
    const BG_GLOBAL int* splits;    /* batch: each deal's first hand */
} bg_launch_of;

/* A launch of `kind` over deals 0 .. count - 1 taken `grab` at a time from
   the counter `next`: what every kind of launch has; its hits (a batch's
   results) to `hits`, counted in `n_hits`, room for `capacity`. */
BG_FN void bg_launch_start(bg_launch_of* l, int kind, bg_u64 count, bg_u64 grab, bg_i64 cap, BG_GLOBAL bg_u64* next,
                           BG_GLOBAL bg_hit* hits, BG_GLOBAL bg_u64* n_hits, bg_u64 capacity) {
    l->kind = kind;
    l->count = count;
    l->grab = grab;
    l->cap = (bg_u32)cap;
    l->next = next;
    l->hits = hits;
    l->n_hits = n_hits;
    l->capacity = capacity;
}

BG_FN void bg_keep(const bg_launch_of* l, const bg_result* r, bg_u64 offset) {
    bg_u64 slot = BG_ADD64(l->n_hits, 1);
    if (slot < l->capacity)
        bg_hit_of(&l->hits[slot], r, offset);
}

/* A perturbation try at `offset` whose game reached a cycle of hash `hash`
   that the walk does not know: the cycle's slot in the launch's table,
   claimed by the first try to reach it (its hash, then the complement of
   the earliest try that reached it: the largest complement is kept), so
   that the host is handed each new cycle once, with the try the compiled
   engine finds it by, however many tries reach it. Slots are probed from
   the hash's low bits; a hash of 0 marks an empty slot, so such a cycle's
   try goes to the hits. A table that fills says so in its count (the host
   plays the launch again in parts). */
BG_FN void bg_new_cycle(const bg_launch_of* l, const bg_result* r, bg_u64 hash, bg_u64 offset) {
    if (hash == 0) {
        bg_keep(l, r, offset);
        return;
    }
    bg_u64 mask = l->n_slots - 1, slot = hash & mask;
    for (bg_u64 probe = 0; probe <= mask; probe++, slot = (slot + 1) & mask) {
        bg_u64 held = BG_CAS64(&l->cycles[2 * slot], 0, hash);
        if (held == 0)
            BG_ADD64(l->n_cycles, 1);
        if (held == 0 || held == hash) {
            BG_MAX64(&l->cycles[2 * slot + 1], ~offset);
            return;
        }
    }
    BG_ADD64(l->n_cycles, l->n_slots);
}

/* Put queue entry `slot` on thread t's table, two places at a time: a word
   of the entry holds two pieces of a hand (hand 0's the first in the low
   half, hand 1's in the high half: its rows run up), a word of the table a
   piece of each hand (hand 0's the low half: the devices the kernels run
   on are little-endian, vendor.h). A place past a hand's last piece may
   take a garbage piece (the other hand's, within the entry): it is not
   the hand's. Hand 0 leads. */
BG_FN void bg_take(bg_game* g, BG_LOCAL bg_block_memory* m, int slot, int t) {
    int n0 = m->queue_sizes[slot], n1 = m->queue_sizes[BG_BLOCK + slot];
    int pairs = ((n0 > n1 ? n0 : n1) + 1) >> 1;
    const BG_LOCAL bg_u16* from0 = m->queue + bg_cell(BG_ENTRY_ROW(0), slot);
    const BG_LOCAL bg_u16* from1 = m->queue + bg_cell(BG_ENTRY_ROW(1) - 1, slot);
    BG_LOCAL bg_u16* to = m->hands + 2 * t;
    BG_NO_UNROLL
    for (int k = 0; k < pairs; k++) {
        bg_u32 w0 = bg_pair(from0 + 2 * k * BG_BLOCK), w1 = bg_pair(from1 - 2 * k * BG_BLOCK);
        bg_set_pair(to + 4 * k * BG_BLOCK, (w0 & 0xFFFFu) | (w1 & 0xFFFF0000u));
        bg_set_pair(to + (4 * k + 2) * BG_BLOCK, w0 >> 16 | w1 << 16);
    }
    bg_game_start(g, m->hands, t, n0, n1);
}

/* Count a game that ended, and hand it to the host if it is one to look at. */
BG_FN void bg_record(const bg_launch_of* l, BG_LOCAL bg_block_memory* m, const bg_result* r, bg_u64 offset,
                     bg_u64* best) {
    if (l->kind == BG_SAMPLE) {
        if (r->status == BG_FINISHED) {
            int bin = bg_length_bin(r->cards);
            if (bin < BG_SHARED_BINS)
                BG_ADD32(&m->counts.bins[bin], 1);
            else
                BG_ADD64(&l->lengths[bin], 1);
            bg_u64 key = bg_best_key(r, offset);
            if (key > *best)
                *best = key;
        }
        if (bg_sample_keeps(r, l->keep_cards))
            bg_keep(l, r, offset);
        return;
    }
    if (bg_census_keeps(r, l->keep_cards))
        bg_keep(l, r, offset);
    if (r->status != BG_FINISHED || r->cards >= BG_HISTOGRAM || r->tricks >= BG_HISTOGRAM)
        return;
    if (r->cards < BG_SHARED_CARDS)
        BG_ADD32(&m->counts.census.cards[r->cards], 1);
    else
        BG_ADD64(&l->cards[r->cards], 1);
    if (r->tricks < BG_SHARED_TRICKS)
        BG_ADD32(&m->counts.census.tricks[r->tricks], 1);
    else
        BG_ADD64(&l->tricks[r->tricks], 1);
}

/* Add the block's counts to the totals. */
BG_FN void bg_flush(const bg_launch_of* l, BG_LOCAL bg_block_memory* m) {
    if (l->kind == BG_PERTURB || l->kind == BG_BATCH)
        return;
    if (l->kind == BG_SAMPLE) {
        for (int i = BG_THREAD; i < BG_SHARED_BINS; i += BG_THREADS)
            if (m->counts.bins[i])
                BG_ADD64(&l->lengths[i], m->counts.bins[i]);
        return;
    }
    for (int i = BG_THREAD; i < BG_SHARED_CARDS; i += BG_THREADS)
        if (m->counts.census.cards[i])
            BG_ADD64(&l->cards[i], m->counts.census.cards[i]);
    for (int i = BG_THREAD; i < BG_SHARED_TRICKS; i += BG_THREADS)
        if (m->counts.census.tricks[i])
            BG_ADD64(&l->tricks[i], m->counts.census.tricks[i]);
}

/* The kernels' one loop (see the top of this file). */
BG_FN void bg_flat(const bg_launch_of* l, BG_LOCAL bg_block_memory* m, const BG_GLOBAL bg_shape* shape,
                   const BG_GLOBAL bg_block* block) {
    const int t = BG_THREAD, threads = BG_THREADS;
    const int census = l->kind == BG_CENSUS;
    /* The census's counts cover the sample's bins. */
    for (int i = t; i < BG_SHARED_CARDS; i += threads)
        m->counts.census.cards[i] = 0;
    for (int i = t; i < BG_SHARED_TRICKS; i += threads)
        m->counts.census.tricks[i] = 0;
    if (t == 0) {
        if (census)
            m->deals.census.block = *block;
        else if (l->kind == BG_SAMPLE)
            m->deals.shape = *shape;
        m->head = m->tail = BG_QUEUE_START;
        m->filled = m->live = m->dry = 0;
    }
    BG_SYNC();
    if (census)
        for (int i = t; i < m->deals.census.block.total; i += threads)
            m->deals.census.source[m->deals.census.block.target[i]] = (bg_u8)i;
    int total = census ? m->deals.census.block.total : l->kind == BG_SAMPLE ? m->deals.shape.total : l->total;
    int mask = (census ? m->deals.census.block.ring : l->kind == BG_SAMPLE ? m->deals.shape.ring : l->ring) - 1;
    int steps = census ? m->deals.census.block.steps : l->kind == BG_SAMPLE ? m->deals.shape.steps : BG_STEPS;
    bg_game g;
    bg_brent brent;
    bg_snapshot snap;
    bg_result r;
    bg_entry e;
    e.pieces = m->queue;
    e.sizes = m->queue_sizes;
    bg_u8 arrangement[BG_CARDS];        /* census: the run's current one */
    bg_state state;                     /* perturb, batch: the deal to play */
    bg_u64 offset = 0, run = 0, run_end = 0, best = 0;
    int playing = 0, dry = 0;
    bg_u32 limit = 0;                   /* entries below it are dealt */
    for (;;) {
        /* Play: a trick a step for every thread that has a game. */
        for (int step = 0; step < steps; step++) {
            if (!playing) {
                bg_u32 slot = BG_ADD32(&m->head, 1);
                if (slot >= limit)
                    break;          /* the queue is empty: idle until the refill */
                slot %= (bg_u32)threads;
                bg_take(&g, m, (int)slot, t);
                offset = m->queue_offsets[slot];
                bg_brent_start(&brent, l->kind == BG_PERTURB ? BG_BRENT_EARLY : BG_BRENT_START);
                playing = 1;
            }
            int status = bg_step(&g, &brent, &snap, mask, l->cap);
            if (status >= 0) {
                bg_result_of(&r, &g, status);
                if (l->kind == BG_PERTURB) {
                    /* A loop known already is no news: only a new one
                       (once), or a game that reached the cap, goes to the host. */
                    if (status == BG_CAPPED) {
                        bg_keep(l, &r, offset);
                    } else if (status == BG_LOOP) {
                        bg_u64 hash = bg_cycle_hash(&g, bg_brent_steps(&brent, &g), mask);
                        if (!bg_known(l->known, l->n_known, hash))
                            bg_new_cycle(l, &r, hash, offset);
                    }
                } else if (l->kind == BG_BATCH) {
                    bg_hit_of(&l->hits[offset], &r, offset);
                } else {
                    bg_record(l, m, &r, offset, &best);
                }
                playing = 0;
            }
        }
        if (playing)
            BG_ADD32(&m->live, 1);
        BG_SYNC();
        if (t == 0) {
            /* The last refill's entries, and the takes that found none. */
            m->tail += m->filled;
            m->filled = 0;
            if (m->head > m->tail)
                m->head = m->tail;
            /* Whole turns of the queue off both ends, so that the counters
               stay small however many deals a block takes in a launch (the
               slots are the counters modulo the threads). */
            bg_u32 turns = m->head - m->head % (bg_u32)threads;
            m->head -= turns;
            m->tail -= turns;
            bg_u32 queued = m->tail - m->head;
            m->done = m->live == 0 && queued == 0 && m->dry == (bg_u32)threads;
            m->refill = threads - queued >= (threads + 1) / 2;
            m->live = 0;
        }
        BG_SYNC();
        if (m->done)
            break;
        bg_u32 free_entries = (bg_u32)threads - (m->tail - m->head);
        if (m->refill && !dry && (bg_u32)t < free_entries) {
            int dealt = 0;
            while (!dealt) {
                if (run == run_end) {
                    run = BG_ADD64(l->next, l->grab);
                    if (run >= l->count) {
                        dry = 1;
                        BG_ADD32(&m->dry, 1);
                        break;
                    }
                    run_end = run + l->grab < l->count ? run + l->grab : l->count;
                    if (census)
                        bg_unrank(arrangement, &m->deals.census.block, run);
                } else if (census) {
                    bg_next_arrangement(arrangement, total);
                }
                /* A perturbation try whose hand is empty is no game: it
                   counts as played, and the next is taken. */
                dealt = l->kind != BG_PERTURB || bg_perturbed(&state, l->pool, l->n_pool, total, l->seed,
                                                               l->first + run, l->changes, l->reach, 0,
                                                               BG_MOVES_SMALL);
                if (!dealt)
                    run++;
            }
            if (dealt) {
                e.slot = (int)((m->tail + BG_ADD32(&m->filled, 1)) % (bg_u32)threads);
                if (census) {
                    bg_deal_arrangement(&e, &m->deals.census.block, m->deals.census.source, arrangement);
                } else if (l->kind == BG_SAMPLE) {
                    bg_deal_random(&e, &m->deals.shape, l->seed, l->first + run);
                } else {
                    if (l->kind == BG_BATCH) {
                        state.n = total;
                        state.n0 = l->splits[run];
                        for (int k = 0; k < total; k++)
                            state.cards[k] = l->rows[run * (bg_u64)total + (bg_u64)k];
                    }
                    bg_deal_cards(&e, state.cards, state.n0, state.n);
                }
                m->queue_offsets[e.slot] = run;
                run++;
            }
        }
        BG_SYNC();
        limit = m->tail + m->filled;
    }
    if (best)
        BG_MAX64(l->best, best);
    bg_flush(l, m);
}

/* Deals first .. first + count - 1 of `seed` (count < 2^40). Finished games
   are counted in `lengths` (lengths.py's bins) and the longest is `best`
   (bg_best_key); every game bg_sample_keeps goes to `hits`. `next` starts
   at 0. At most 72 registers: ptxas's own choice is 75 to 78 (sm_90, sm_80)
   and issues more instructions a deal than this cap, which spills nothing
   (gpu_kernel_model.py). */
BG_KERNEL_REGISTERS(72) bg_sample(const BG_GLOBAL bg_shape* shape, bg_u64 seed, bg_u64 first, bg_u64 count,
                    bg_i64 min_cards, bg_i64 cap, BG_GLOBAL bg_u64* next, BG_GLOBAL bg_u64* lengths,
                    BG_GLOBAL bg_u64* best, BG_GLOBAL bg_hit* hits, BG_GLOBAL bg_u64* n_hits,
                    bg_u64 capacity) {
    BG_SHARED bg_block_memory m;
    bg_launch_of l = {0};
    bg_launch_start(&l, BG_SAMPLE, count, BG_GRAB, cap, next, hits, n_hits, capacity);
    l.seed = seed;
    l.first = first;
    l.keep_cards = min_cards;
    l.lengths = lengths;
    l.best = best;
    bg_flat(&l, &m, shape, 0);
}

/* Deals 0 .. count - 1 of a census block (bg_block), `grab` consecutive
   arrangements at a time: each run of them is unranked once and stepped on
   by next-arrangement. Finished games shorter than BG_HISTOGRAM in cards
   and tricks are counted in `cards` and `tricks` (one number per length);
   every game bg_census_keeps goes to `hits`. */
BG_KERNEL bg_census(const BG_GLOBAL bg_block* block, bg_u64 count, bg_u64 grab, bg_i64 threshold,
                    bg_i64 cap, BG_GLOBAL bg_u64* next, BG_GLOBAL bg_u64* cards, BG_GLOBAL bg_u64* tricks,
                    BG_GLOBAL bg_hit* hits, BG_GLOBAL bg_u64* n_hits, bg_u64 capacity) {
    BG_SHARED bg_block_memory m;
    bg_launch_of l = {0};
    bg_launch_start(&l, BG_CENSUS, count, grab, cap, next, hits, n_hits, capacity);
    l.keep_cards = threshold;
    l.cards = cards;
    l.tricks = tricks;
    bg_flat(&l, &m, 0, block);
}

/* Tries first .. first + count - 1 of a perturbation walk (bg_perturbed:
   its seed `walk_seed`, a pool of `n_pool` rows of total + 1 bytes, each a
   state on a known loop of `total` cards and hands of `ring` places). A
   try whose game falls into a loop that is not among the `n_known` sorted
   hashes of `known` (bg_cycle_hash) has the cycle's slot in `cycles` (a
   table of `n_slots`, a power of two, of two words: bg_new_cycle), counted
   in `n_cycles`; a try that reaches the cap goes to `hits`; the rest are
   no news. */
BG_KERNEL bg_perturb(const BG_GLOBAL bg_u8* pool, int n_pool, int total, int ring, int changes, int reach,
                     bg_u64 walk_seed, const BG_GLOBAL bg_u64* known, int n_known, bg_u64 first, bg_u64 count,
                     bg_i64 cap, BG_GLOBAL bg_u64* next, BG_GLOBAL bg_hit* hits, BG_GLOBAL bg_u64* n_hits,
                     bg_u64 capacity, BG_GLOBAL bg_u64* cycles, bg_u64 n_slots, BG_GLOBAL bg_u64* n_cycles) {
    BG_SHARED bg_block_memory m;
    bg_launch_of l = {0};
    bg_launch_start(&l, BG_PERTURB, count, BG_GRAB, cap, next, hits, n_hits, capacity);
    l.seed = walk_seed;
    l.first = first;
    l.total = total;
    l.ring = ring;
    l.pool = pool;
    l.n_pool = n_pool;
    l.changes = changes;
    l.reach = reach;
    l.known = known;
    l.n_known = n_known;
    l.cycles = cycles;
    l.n_slots = n_slots;
    l.n_cycles = n_cycles;
    bg_flat(&l, &m, 0, 0);
}

/* The `count` deals it is given, rows of `total` cards whose first hand
   holds `splits[i]` (hands of `ring` places): the game of row i ends in
   results[i] (its status, winner, cards and tricks; a loop and a game that
   reached the cap are played again by the host). */
BG_KERNEL bg_batch(const BG_GLOBAL bg_u8* rows, const BG_GLOBAL int* splits, int total, int ring, bg_u64 count,
                   bg_i64 cap, BG_GLOBAL bg_u64* next, BG_GLOBAL bg_hit* results) {
    BG_SHARED bg_block_memory m;
    bg_launch_of l = {0};
    bg_launch_start(&l, BG_BATCH, count, BG_GRAB, cap, next, results, 0, count);
    l.total = total;
    l.ring = ring;
    l.rows = rows;
    l.splits = splits;
    bg_flat(&l, &m, 0, 0);
}


/* ---------------------------------------------------------------- hill climbing

   Walks of the hill climber (climb.h's bg_walk), a thread a walk at a time:
   every step of the loop plays one trick of the thread's game, and a
   thread whose game ended takes the step (bg_climb_accept) and plays its
   walk's next candidate, so that its warp never waits for its longest
   game. A thread takes the walks through a counter, and plays each up to
   `budget` more steps (a launch's length); a candidate whose game does not
   finish here (a loop, the cap) leaves its walk waiting for the host. */

/* The walk's next candidate (climb.h's bg_propose); a fresh deal dealt
   here, from the walk's stream as Deal.shuffled deals it (deal.h). */
BG_FN void bg_climb_propose(BG_GLOBAL bg_walk* w, const BG_LOCAL bg_shape* s, const BG_LOCAL bg_climb_rules* rules) {
    bg_u64 rng = w->rng;        /* in a register (OpenCL: private, not the walk's global memory) */
    int total = s->total;
    w->fresh = bg_propose(w->candidate, w->current, total, &w->restarts, w->climber.stale, rules->patience, &rng,
                          rules->swap_percent);
    if (w->fresh) {
        bg_u8 place[BG_CARDS], deck[BG_CARDS];
        for (int k = 0; k < total; k++) {
            place[k] = (bg_u8)k;
            deck[k] = 0;
        }
        for (int i = 0; i < s->n_courts; i++)
            deck[bg_draw_place(place, i, total, &rng)] = s->courts[i];
        int first = bg_first_hand(s->split, total, &rng);
        w->sizes[0] = first;
        w->sizes[1] = total - first;
        bg_deal_two(w->candidate, deck, total, first);
    }
    w->rng = rng;
}

/* A long game of a walk (its step: the games it played before), handed to
   the host with its deal. 48 bytes, laid out as gpu/engine.py's CLIMB_HIT. */
typedef struct {
    bg_u64 walk;
    bg_i64 step, cards, tricks;
    int status, winner;
    int first;          /* the deal's first hand */
} bg_climb_hit;

/* A block's shared memory for climbing: its threads' tables, the shape and rules. */
typedef struct {
    bg_u16 hands[2 * BG_RING * BG_BLOCK];
    bg_shape shape;
    bg_climb_rules rules;
} bg_climb_memory;

/* Steps of walks 0 .. n_walks - 1 (`walks`, their late acceptance's
   `history` rows and their lengths' rows of BG_LENGTHS_BINS counts): each
   walk on until it has played rules.steps, or `budget` more, or waits for
   the host. Every finished game of rules.threshold cards or more goes to
   `hits`, its deal to row `slot` of `decks` (shape.total cards a row). Its
   registers are held to 64: for the occupancy its small shared memory
   allows, ptxas would give it 48 on sm_90, and spill. */
BG_KERNEL_REGISTERS(64) bg_climb(const BG_GLOBAL bg_shape* shape, const BG_GLOBAL bg_climb_rules* rules,
                                 bg_u64 n_walks, bg_i64 budget, bg_i64 cap, BG_GLOBAL bg_walk* walks,
                                 BG_GLOBAL bg_i64* history, BG_GLOBAL bg_u32* lengths, BG_GLOBAL bg_climb_hit* hits,
                                 BG_GLOBAL bg_u8* decks, BG_GLOBAL bg_u64* n_hits, bg_u64 capacity,
                                 BG_GLOBAL bg_u64* next) {
    BG_SHARED bg_climb_memory m;
    if (BG_THREAD == 0) {
        m.shape = *shape;
        m.rules = *rules;
    }
    BG_SYNC();
    int total = m.shape.total, mask = m.shape.ring - 1;
    bg_game g;
    bg_brent brent;
    bg_snapshot snap;
    BG_GLOBAL bg_walk* w = 0;
    bg_u64 walk = 0;
    bg_i64 stop = 0;
    int playing = 0;
    for (;;) {
        if (!playing) {
            /* The next step: of this walk while its budget lasts, else of the
               next walk. A walk that lost a hit is played again whole on the
               host: its further steps here would be wasted. */
            while (w == 0 || w->waiting || w->lost || w->played >= stop) {
                walk = BG_ADD64(next, 1);
                if (walk >= n_walks) {
                    w = 0;
                    break;
                }
                w = &walks[walk];
                stop = w->played + budget < m.rules.steps ? w->played + budget : m.rules.steps;
            }
            if (w == 0)
                break;
            bg_climb_propose(w, &m.shape, &m.rules);
            bg_load_cards(&g, m.hands, BG_THREAD, w->candidate, w->sizes[0], total);
            bg_brent_start(&brent, BG_BRENT_START);
            playing = 1;
        }
        int status = bg_step(&g, &brent, &snap, mask, (bg_u32)cap);
        if (status < 0)
            continue;
        playing = 0;
        if (status != BG_FINISHED) {
            w->waiting = 1;         /* the host plays it exactly, and takes the step */
            continue;
        }
        lengths[walk * BG_LENGTHS_BINS + (bg_u64)bg_length_bin(g.cards)]++;
        if ((bg_i64)g.cards >= m.rules.threshold) {
            bg_u64 slot = BG_ADD64(n_hits, 1);
            if (slot >= capacity)
                w->lost = 1;
            else {
                hits[slot].walk = walk;
                hits[slot].step = w->played;
                hits[slot].cards = g.cards;
                hits[slot].tricks = g.tricks;
                hits[slot].status = status;
                hits[slot].winner = bg_leader(&g);
                hits[slot].first = w->sizes[0];
                for (int k = 0; k < total; k++)
                    decks[slot * (bg_u64)total + (bg_u64)k] = w->candidate[k];
            }
        }
        bg_climb_accept(w, history + walk * (bg_u64)m.rules.history, &m.rules, total, status, bg_leader(&g), g.cards,
                        g.tricks);
    }
}
