/* The hill climber's step (climbing.py): the fitness of a game, the
   proposal of a candidate, and the rule of acceptance. The compiled engine's
   climb (_engine.pyx) and the kernel bg_climb take their steps with these;
   the reference engine's climb is the same written in Python from the
   rules, apart from this. Anneal's verdict on a worse candidate needs exp,
   which no GPU gives bit for bit: it is its caller's (the compiled engine's). */

#ifndef BEGGAR_GPU_CLIMB_H
#define BEGGAR_GPU_CLIMB_H

#include "vendor.h"
#include "sizes.h"
#include "random.h"

/* The rules of acceptance (their places in climbing.ACCEPTS), and the bits
   of a fitness below its primary count (climbing.SECONDARY_BITS). */
enum { BG_STRICT = 0, BG_EQUAL = 1, BG_ANNEAL = 2, BG_LATE = 3, BG_FITNESS_SHIFT = 24 };

/* A fitness: the primary count above the secondary (capped), so that
   integers compare as pairs. */
BG_FN bg_i64 bg_fitness(int by_cards, bg_i64 cards, bg_i64 tricks) {
    bg_i64 primary = by_cards ? cards : tricks, secondary = by_cards ? tricks : cards;
    bg_i64 most = ((bg_i64)1 << BG_FITNESS_SHIFT) - 1;
    return primary << BG_FITNESS_SHIFT | (secondary > most ? most : secondary);
}

/* Swap two cards of different rank, or move a court card elsewhere (the
   cards between shift by one), in the `total` cards of a deal's hands laid
   one after another. */
BG_FN void bg_mutate(BG_GLOBAL bg_u8* deck, int total, bg_u64* rng, bg_u32 swap_percent) {
    if (bg_below(rng, 100) < swap_percent) {
        bg_u32 i = bg_below(rng, (bg_u32)total), j = bg_below(rng, (bg_u32)total);
        while (deck[j] == deck[i])
            j = bg_below(rng, (bg_u32)total);
        bg_u8 card = deck[i];
        deck[i] = deck[j];
        deck[j] = card;
        return;
    }
    bg_u32 courts = 0;
    for (int i = 0; i < total; i++)
        courts += deck[i] != 0;
    bg_u32 k = bg_below(rng, courts), i = 0;
    for (;; i++) {         /* i: the place of court card number k */
        if (deck[i]) {
            if (k == 0)
                break;
            k--;
        }
    }
    bg_u32 j = bg_below(rng, (bg_u32)(total - 1));
    if (j >= i)
        j++;            /* never back to where it was */
    bg_u8 card = deck[i];
    for (int m = (int)i; m < total - 1; m++)
        deck[m] = deck[m + 1];
    for (int m = total - 1; m > (int)j; m--)
        deck[m] = deck[m - 1];
    deck[j] = card;
}

/* The walk's next candidate: a fresh deal (1, counted in `restarts`; its caller deals it) where the
   walk starts (restarts < 0) or has not beaten its best for `patience` steps; else (0) a mutation
   of its current deal into `candidate`. */
BG_FN int bg_propose(BG_GLOBAL bg_u8* candidate, const BG_GLOBAL bg_u8* current, int total,
                     BG_GLOBAL bg_i64* restarts, bg_i64 stale, bg_i64 patience, bg_u64* rng, bg_u32 swap_percent) {
    if (*restarts < 0 || stale >= patience) {
        ++*restarts;
        return 1;
    }
    for (int k = 0; k < total; k++)
        candidate[k] = current[k];
    bg_mutate(candidate, total, rng, swap_percent);
    return 0;
}

/* Where a walk stands between its steps, as its rule of acceptance reads
   it: k its steps since its fresh deal, stale those since its best grew,
   the current deal's fitness and the walk's best. A late acceptance's
   `history` holds `size` fitnesses. */
typedef struct {
    bg_i64 k, stale;
    bg_i64 current_value, walk_best;
} bg_climber;

/* A fresh deal of fitness `value`: the walk starts over from it. */
BG_FN void bg_climber_start(BG_GLOBAL bg_climber* c, BG_GLOBAL bg_i64* history, int size, bg_i64 value) {
    c->current_value = c->walk_best = value;
    c->stale = 0;
    c->k = 0;
    for (int i = 0; i < size; i++)
        history[i] = value;
}

/* The walk's next step, a mutation of fitness `value`: whether the rule
   `accept` takes it (1) or not (0); -1 for anneal's verdict on a worse
   one, its caller's draw. */
BG_FN int bg_climber_verdict(BG_GLOBAL bg_climber* c, int accept, const BG_GLOBAL bg_i64* history, int size,
                             bg_i64 value) {
    c->k++;
    if (value >= c->current_value)
        return accept != BG_STRICT || value > c->current_value;
    if (accept == BG_LATE)
        return value >= history[c->k % size];
    return accept == BG_ANNEAL ? -1 : 0;
}

/* The step's end, its candidate of fitness `value` taken or not. */
BG_FN void bg_climber_settle(BG_GLOBAL bg_climber* c, int accept, BG_GLOBAL bg_i64* history, int size,
                             bg_i64 value, int taken) {
    if (taken)
        c->current_value = value;
    if (accept == BG_LATE)
        history[c->k % size] = c->current_value;
    if (c->current_value > c->walk_best) {
        c->walk_best = c->current_value;
        c->stale = 0;
    } else {
        c->stale++;
    }
}

/* The climber's rules and a walk's length, as the host gives the kernel
   them (climbing.ClimbRules; anneal is not played there). */
typedef struct {
    int accept;             /* climbing.ACCEPTS' index */
    int by_cards;           /* fitness "cards" (tricks break ties), else "tricks" */
    int history;            /* late acceptance: the steps back it compares with */
    bg_u32 swap_percent;
    bg_i64 patience;
    bg_i64 threshold;       /* min_cards: a game this long is a hit */
    bg_i64 steps;           /* deals a walk plays */
} bg_climb_rules;

/* A walk of the kernel bg_climb between two of its steps (or with a
   candidate whose game waits for the host): in the launch's memory between
   launches, so that a launch plays any number of its steps. Its deals are
   the hands one after another, the first of sizes[0] cards. */
typedef struct {
    bg_u64 rng;
    bg_i64 played, restarts;
    bg_climber climber;
    bg_i64 best_value, best_cards, best_tricks;
    int best_status, best_winner;
    int sizes[2], best_sizes[2];
    int fresh;              /* the candidate is a fresh deal */
    int waiting;            /* the candidate's game is the host's to play */
    int lost;               /* a long game found no room among a launch's hits: the host plays the walk */
    bg_u8 current[BG_CARDS], candidate[BG_CARDS], best[BG_CARDS];
} bg_walk;

/* A walk's step whose candidate's game ended with `status` after `cards`
   cards and `tricks` tricks (exact: a loop's played by the host): its best,
   and whether the walk takes it. `history` is the walk's late acceptance's. */
BG_FN void bg_climb_accept(BG_GLOBAL bg_walk* w, BG_GLOBAL bg_i64* history, const BG_LOCAL bg_climb_rules* rules,
                           int total, int status, int winner, bg_i64 cards, bg_i64 tricks) {
    bg_i64 value = bg_fitness(rules->by_cards, cards, tricks);
    w->played++;
    w->waiting = 0;
    if (value > w->best_value) {
        w->best_value = value;
        w->best_cards = cards;
        w->best_tricks = tricks;
        w->best_status = status;
        w->best_winner = winner;
        w->best_sizes[0] = w->sizes[0];
        w->best_sizes[1] = w->sizes[1];
        for (int k = 0; k < total; k++)
            w->best[k] = w->candidate[k];
    }
    if (w->fresh) {
        for (int k = 0; k < total; k++)
            w->current[k] = w->candidate[k];
        bg_climber_start(&w->climber, history, rules->history, value);
        return;
    }
    int taken = bg_climber_verdict(&w->climber, rules->accept, history, rules->history, value) > 0;
    if (taken)
        for (int k = 0; k < total; k++)
            w->current[k] = w->candidate[k];
    bg_climber_settle(&w->climber, rules->accept, history, rules->history, value, taken);
}

#endif
