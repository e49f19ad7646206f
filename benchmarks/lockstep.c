// A design measured for issue 42 (docs/speed.md): the kernel body's trick (gpu/game.h
// bg_trick) played by 16 games in lockstep on AVX-512, one game a vector lane, against the
// same trick one game at a time, on random 26/26 deals (the standard deck, 16 draws a deal
// placing the court cards). No loop detection: a game past CAP tricks counts as unfinished
// (the compiled engine would take over a game at 256 tricks, 0.02 % of them). First both
// play the same 200,000 deals and must agree game for game; then they run in turn, in games
// a processor second (other work on the machine skews that least).
//   gcc -O3 -march=native -o lockstep benchmarks/lockstep.c
//   (add -DYARDSTICK='"../shared/bench/yardstick.c"' to play the yardstick in each round too)
//   taskset -c 1 ./lockstep SECONDS ROUNDS
//   ./lockstep HAND HAND             one deal ('-' plain, J Q K A), one at a time: cards, tricks
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// With -DYARDSTICK='"PATH/yardstick.c"' the yardstick is played too, in the same rounds.
#ifdef YARDSTICK
#define xr ys_xr
#define load ys_load
#define play ys_play
#define now ys_now
#define main ys_main
#include YARDSTICK
#undef xr
#undef load
#undef play
#undef now
#undef main
#endif

#define RING 32
#define MASK (RING - 1)
#define LANES 16
#define CAP 20000           // tricks; a game past it counts as unfinished

static inline uint64_t xr(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }

// A random deal of the standard deck: the 16 court cards placed, 16 draws.
static void deal(uint8_t *d, uint64_t *s) {
    uint8_t pos[52];
    for (int i = 0; i < 52; i++) { pos[i] = i; d[i] = 0; }
    for (int k = 0; k < 16; k++) {
        int j = k + (int)(xr(s) % (uint64_t)(52 - k));
        uint8_t t = pos[k]; pos[k] = pos[j]; pos[j] = t;
        d[pos[k]] = 1 + k / 4;
    }
}

// ---------------------------------------------------------------- one game at a time
typedef struct { uint16_t h[RING][2]; int head[2], size[2], leader; long cards, tricks; } Game;

static void load(Game *g, const uint8_t *d) {
    for (int p = 0; p < 2; p++) {
        int place = 0, run = 0;
        for (int i = 0; i < 26; i++) {
            uint8_t c = d[26 * p + i];
            if (c) { g->h[place++][p] = (uint16_t)(run << 3 | c); run = 0; } else run++;
        }
        g->h[place][p] = (uint16_t)(run << 3);
        g->size[p] = place + 1;
        g->head[p] = 0;
    }
    g->leader = 0; g->cards = 0; g->tricks = 0;
}

static int trick(Game *g) {
    int leader = g->leader;
    uint32_t a = g->h[g->head[leader]][leader] >> 3, b = g->h[g->head[leader ^ 1]][leader ^ 1] >> 3;
    int late = a > b, first = leader ^ late;
    uint32_t x = late ? b : a, laid = 2 * x + late;
    uint32_t court = g->h[g->head[first]][first] & 7, top;
    int n = 0, taker;
    int end0 = g->head[0] + g->size[0], end1 = g->head[1] + g->size[1];
    g->h[g->head[first ^ 1]][first ^ 1] -= (uint16_t)((x + late) << 3);
    if (!court) {
        g->h[g->head[first]][first] = 0;
        top = laid << 3;
        taker = first ^ 1;
    } else {
        uint16_t *hands = &g->h[0][0];
        const int wrap = MASK * 2 | 1;
        int at = g->head[first ^ 1] * 2 + (first ^ 1);
        int step = (g->head[first] + 1) * 2 + first - at;
        int lay0 = end0 * 2, lay1 = end1 * 2 + 1;
        uint32_t owed = court, piece, run;
        top = laid << 3 | court;
        laid++;
        for (;;) {
            piece = hands[at & wrap];
            run = piece >> 3;
            if (run >= owed || !(piece & 7)) break;
            hands[lay0 & wrap] = (uint16_t)piece;
            hands[lay1 & wrap] = (uint16_t)piece;
            lay0 += 2; lay1 += 2;
            laid += run + 1;
            owed = piece & 7;
            at += step;
            step = 2 - step;
        }
        uint32_t paid = run < owed ? run : owed;
        hands[at & wrap] = (uint16_t)(piece - (paid << 3));
        hands[lay0 & wrap] = (uint16_t)(paid << 3);
        hands[lay1 & wrap] = (uint16_t)(paid << 3);
        laid += paid;
        n = (lay0 - end0 * 2) / 2 + 1;
        int payer = at & 1, other = at + step;
        g->head[0] = (payer ? other : at) / 2;
        g->head[1] = (payer ? at : other) / 2;
        taker = payer ^ 1;
    }
    g->h[((taker ? end1 : end0) - 1) & MASK][taker] += (uint16_t)top;
    g->size[0] = end0 - g->head[0] + (taker ? 0 : n);
    g->size[1] = end1 - g->head[1] + (taker ? n : 0);
    g->head[0] &= MASK; g->head[1] &= MASK;
    g->leader = taker;
    g->cards += laid;
    g->tricks++;
    return g->size[taker ^ 1] == 1 && g->h[g->head[taker ^ 1]][taker ^ 1] == 0;
}

static long play_one(const uint8_t *d, long *tricks) {
    Game g;
    load(&g, d);
    while (!trick(&g) && g.tricks < CAP) {}
    *tricks = g.tricks;
    return g.tricks < CAP ? g.cards : -1;
}

// ---------------------------------------------------------------- 16 games in lockstep
// Piece (place, hand p) of lane l at index (place * 2 + p) * LANES + l: a lane's pieces
// are a column, so a gather of one place for all lanes reads one cache line.
typedef struct {
    int32_t h[RING * 2 * LANES];
    int32_t head0[LANES], head1[LANES], size0[LANES], size1[LANES], leader[LANES], cards[LANES],
        tricks[LANES];
} Lanes;
#define LOAD(a) _mm512_loadu_si512((const void *)(a))
#define STORE(a, v) _mm512_storeu_si512((void *)(a), (v))

// A random deal put straight into lane l: the court cards' places drawn as deal() draws
// them, each hand's pieces built from its court cards' places, one step a court card.
static void deal_lane(Lanes *L, int l, uint64_t *s) {
    uint8_t pos[52], code[52];
    uint64_t courts = 0;
    for (int i = 0; i < 52; i++) pos[i] = i;
    for (int k = 0; k < 16; k++) {
        int j = k + (int)(xr(s) % (uint64_t)(52 - k));
        uint8_t t = pos[j]; pos[j] = pos[k]; pos[k] = t;
        code[t] = 1 + k / 4;
        courts |= 1ull << t;
    }
    for (int p = 0; p < 2; p++) {
        uint32_t m = (uint32_t)(courts >> (26 * p)) & ((1u << 26) - 1);
        int place = 0, prev = -1;
        while (m) {
            int c = __builtin_ctz(m);
            m &= m - 1;
            L->h[(place++ * 2 + p) * LANES + l] = (c - prev - 1) << 3 | code[26 * p + c];
            prev = c;
        }
        L->h[(place * 2 + p) * LANES + l] = (25 - prev) << 3;
        (p ? L->size1 : L->size0)[l] = place + 1;
    }
    L->head0[l] = 0; L->head1[l] = 0;
    L->leader[l] = 0; L->cards[l] = 0; L->tricks[l] = 0;
}

#define V(x) _mm512_set1_epi32(x)
#define GATHER(k, src, idx) _mm512_mask_i32gather_epi32((src), (k), (idx), L->h, 4)
#define SCATTER(k, idx, v) _mm512_mask_i32scatter_epi32(L->h, (k), (idx), (v), 4)

// One trick in every lane; the lanes whose game finished.
static __mmask16 trick16(Lanes *L) {
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i zero = V(0), one = V(1), seven = V(7);
    const __m512i stride = V(2 * LANES), wrap = V((MASK * 2 + 1) * LANES + LANES - 1);
    __m512i leader = LOAD(L->leader), head0 = LOAD(L->head0), head1 = LOAD(L->head1);
    __m512i size0 = LOAD(L->size0), size1 = LOAD(L->size1);
    __mmask16 lead1 = _mm512_test_epi32_mask(leader, leader);
    // index of hand p's head piece: (head * 2 + p) * LANES + lane
    __m512i i0 = _mm512_add_epi32(_mm512_slli_epi32(head0, 5), lane);
    __m512i i1 = _mm512_add_epi32(_mm512_add_epi32(_mm512_slli_epi32(head1, 5), V(LANES)), lane);
    __m512i il = _mm512_mask_blend_epi32(lead1, i0, i1), io = _mm512_mask_blend_epi32(lead1, i1, i0);
    __m512i pl = GATHER(0xFFFF, zero, il), po = GATHER(0xFFFF, zero, io);
    __m512i a = _mm512_srli_epi32(pl, 3), b = _mm512_srli_epi32(po, 3);
    __mmask16 late = _mm512_cmpgt_epu32_mask(a, b);
    __m512i latev = _mm512_maskz_mov_epi32(late, one);
    __m512i first = _mm512_xor_si512(leader, latev);
    __m512i x = _mm512_mask_blend_epi32(late, a, b);
    __m512i laid = _mm512_add_epi32(_mm512_add_epi32(x, x), latev);
    __m512i pfirst = _mm512_mask_blend_epi32(late, pl, po);
    __m512i ifirst = _mm512_mask_blend_epi32(late, il, io);
    __m512i isecond = _mm512_mask_blend_epi32(late, io, il);
    __m512i psecond = _mm512_mask_blend_epi32(late, po, pl);
    __m512i court = _mm512_and_si512(pfirst, seven);
    __m512i end0 = _mm512_add_epi32(head0, size0), end1 = _mm512_add_epi32(head1, size1);
    SCATTER(0xFFFF, isecond, _mm512_sub_epi32(psecond, _mm512_slli_epi32(_mm512_add_epi32(x, latev), 3)));
    __mmask16 out = _mm512_testn_epi32_mask(court, court);
    __mmask16 on = (__mmask16)~out;
    // a player out of cards: the other takes
    SCATTER(out, ifirst, zero);
    __m512i top = _mm512_slli_epi32(laid, 3);
    __m512i taker = _mm512_xor_si512(first, one);
    __m512i n = zero;
    if (on) {
        __m512i at = isecond;
        __m512i step = _mm512_sub_epi32(_mm512_add_epi32(ifirst, stride), at);
        __m512i lay0 = _mm512_add_epi32(_mm512_slli_epi32(end0, 5), lane);
        __m512i lay1 = _mm512_add_epi32(_mm512_add_epi32(_mm512_slli_epi32(end1, 5), V(LANES)), lane);
        __m512i owed = court, piece = zero, run;
        top = _mm512_mask_or_epi32(top, on, top, court);
        laid = _mm512_mask_add_epi32(laid, on, laid, one);
        __mmask16 active = on;
        for (;;) {
            piece = GATHER(active, piece, _mm512_and_si512(at, wrap));
            run = _mm512_srli_epi32(piece, 3);
            __m512i pc = _mm512_and_si512(piece, seven);
            __mmask16 go = _mm512_mask_cmplt_epu32_mask(active, run, owed)
                         & _mm512_test_epi32_mask(pc, pc);
            if (!go) break;
            SCATTER(go, _mm512_and_si512(lay0, wrap), piece);
            SCATTER(go, _mm512_and_si512(lay1, wrap), piece);
            lay0 = _mm512_mask_add_epi32(lay0, go, lay0, stride);
            lay1 = _mm512_mask_add_epi32(lay1, go, lay1, stride);
            laid = _mm512_mask_add_epi32(laid, go, laid, _mm512_add_epi32(run, one));
            owed = _mm512_mask_mov_epi32(owed, go, pc);
            at = _mm512_mask_add_epi32(at, go, at, step);
            step = _mm512_mask_sub_epi32(step, go, stride, step);
            active = go;
        }
        run = _mm512_srli_epi32(piece, 3);
        __m512i paid = _mm512_min_epu32(run, owed);
        __m512i paid3 = _mm512_slli_epi32(paid, 3);
        SCATTER(on, _mm512_and_si512(at, wrap), _mm512_sub_epi32(piece, paid3));
        SCATTER(on, _mm512_and_si512(lay0, wrap), paid3);
        SCATTER(on, _mm512_and_si512(lay1, wrap), paid3);
        laid = _mm512_mask_add_epi32(laid, on, laid, paid);
        n = _mm512_maskz_add_epi32(on, _mm512_sub_epi32(_mm512_srli_epi32(lay0, 5), end0), one);
        __mmask16 payer1 = _mm512_test_epi32_mask(at, V(LANES));
        __m512i other = _mm512_add_epi32(at, step);
        __m512i new0 = _mm512_srli_epi32(_mm512_mask_blend_epi32(payer1, at, other), 5);
        __m512i new1 = _mm512_srli_epi32(_mm512_mask_blend_epi32(payer1, other, at), 5);
        head0 = _mm512_mask_mov_epi32(head0, on, new0);
        head1 = _mm512_mask_mov_epi32(head1, on, new1);
        taker = _mm512_mask_xor_epi32(taker, on, _mm512_maskz_mov_epi32(payer1, one), one);
    }
    __mmask16 take1 = _mm512_test_epi32_mask(taker, taker);
    __m512i tend = _mm512_mask_blend_epi32(take1, end0, end1);
    __m512i it = _mm512_add_epi32(_mm512_slli_epi32(_mm512_and_si512(_mm512_sub_epi32(tend, one), V(MASK)), 5),
                                  _mm512_add_epi32(_mm512_maskz_mov_epi32(take1, V(LANES)), lane));
    SCATTER(0xFFFF, it, _mm512_add_epi32(GATHER(0xFFFF, zero, it), top));
    size0 = _mm512_add_epi32(_mm512_sub_epi32(end0, head0), _mm512_maskz_mov_epi32((__mmask16)~take1, n));
    size1 = _mm512_add_epi32(_mm512_sub_epi32(end1, head1), _mm512_maskz_mov_epi32(take1, n));
    head0 = _mm512_and_si512(head0, V(MASK));
    head1 = _mm512_and_si512(head1, V(MASK));
    STORE(L->size0, size0); STORE(L->size1, size1);
    STORE(L->head0, head0); STORE(L->head1, head1);
    STORE(L->leader, taker);
    STORE(L->cards, _mm512_add_epi32(LOAD(L->cards), laid));
    STORE(L->tricks, _mm512_add_epi32(LOAD(L->tricks), one));
    // finished: the loser holds one piece, and it is empty
    __m512i lsize = _mm512_mask_blend_epi32(take1, size1, size0);
    __m512i il2 = _mm512_mask_blend_epi32(take1,
        _mm512_add_epi32(_mm512_add_epi32(_mm512_slli_epi32(head1, 5), V(LANES)), lane),
        _mm512_add_epi32(_mm512_slli_epi32(head0, 5), lane));
    __mmask16 one_piece = _mm512_cmpeq_epi32_mask(lsize, one);
    __m512i lp = GATHER(one_piece, zero, il2);
    return one_piece & _mm512_testn_epi32_mask(lp, lp);
}

// ---------------------------------------------------------------- timing and check
static double now(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static long sum_cards, games, yardstick_cards;

static double run_scalar(double secs, uint64_t seed) {
    uint64_t s = seed; uint8_t d[52]; long n = 0; double t0 = now(), dt;
    for (;;) {
        for (int k = 0; k < 4096; k++) {
            long t; deal(d, &s); long c = play_one(d, &t);
            sum_cards += c; n++;
        }
        if ((dt = now() - t0) > secs) break;
    }
    games += n;
    return n / dt;
}

static double run_lockstep(double secs, uint64_t seed) {
    static Lanes L __attribute__((aligned(64)));
    uint64_t s = seed; long n = 0; double t0 = now(), dt;
    for (int l = 0; l < LANES; l++) deal_lane(&L, l, &s);
    for (;;) {
        for (int k = 0; k < 4096; k++) {
            __mmask16 done = trick16(&L);
            done |= _mm512_cmpge_epi32_mask(LOAD(L.tricks), V(CAP));
            while (done) {
                int l = __builtin_ctz(done);
                done &= done - 1;
                int t = L.tricks[l], c = L.cards[l];
                sum_cards += t < CAP ? c : -1; n++;
                deal_lane(&L, l, &s);
            }
        }
        if ((dt = now() - t0) > secs) break;
    }
    games += n;
    return n / dt;
}

#ifdef YARDSTICK
// The yardstick's own loop (its main): a full shuffle a deal, then its play.
static double run_yardstick(double secs) {
    uint8_t deck[52]; for (int i = 0; i < 52; i++) deck[i] = i < 36 ? 0 : 1 + (i - 36) / 4;
    uint64_t s = 88172645463325252ULL; long n = 0; double t0 = now(), dt;
    for (;;) {
        for (int k = 0; k < 1000; k++) {
            for (int i = 51; i > 0; i--) { int j = ys_xr(&s) % (i + 1); uint8_t t = deck[i]; deck[i] = deck[j]; deck[j] = t; }
            long t;
            yardstick_cards += ys_play(deck, &t);     // used, so that the games are played
            n++;
        }
        if ((dt = now() - t0) > secs) break;
    }
    return n / dt;
}
#endif

// The two ways give the same games: the first N deals of one seed, played both ways.
static int check(long count) {
    uint64_t s = 7; uint8_t d[52];
    long *cards = malloc(count * sizeof(long)), *tr = malloc(count * sizeof(long));
    for (long i = 0; i < count; i++) { deal(d, &s); cards[i] = play_one(d, &tr[i]); }
    static Lanes L __attribute__((aligned(64)));
    long lane_deal[LANES], next = 0, got = 0, bad = 0;
    s = 7;
    for (int l = 0; l < LANES; l++) { deal_lane(&L, l, &s); lane_deal[l] = next++; }
    while (got < count) {
        __mmask16 done = trick16(&L) | _mm512_cmpge_epi32_mask(LOAD(L.tricks), V(CAP));
        while (done) {
            int l = __builtin_ctz(done);
            done &= done - 1;
            long i = lane_deal[l];
            int t = L.tricks[l], c = L.cards[l];
            if (i < count) {
                long cc = t < CAP ? c : -1;
                if (cc != cards[i] || t != tr[i]) {
                    if (bad < 5) printf("deal %ld: one at a time %ld cards %ld tricks, lockstep %ld %d\n", i, cards[i], tr[i], cc, t);
                    bad++;
                }
                got++;
            }
            deal_lane(&L, l, &s); lane_deal[l] = next++;
        }
    }
    printf("check: %ld deals, %ld differ\n", count, bad);
    free(cards); free(tr);
    return bad != 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strlen(argv[1]) == 26) {
        uint8_t d[52];
        for (int i = 0; i < 52; i++) {
            char ch = i < 26 ? argv[1][i] : argv[2][i - 26];
            d[i] = ch == 'J' ? 1 : ch == 'Q' ? 2 : ch == 'K' ? 3 : ch == 'A' ? 4 : 0;
        }
        long t, c = play_one(d, &t);
        printf("cards %ld tricks %ld\n", c, t);
        return 0;
    }
    double secs = argc > 1 ? atof(argv[1]) : 2;
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    if (check(200000)) return 1;
    for (int r = 0; r < rounds; r++) {
        double one = run_scalar(secs, 1 + r), lock = run_lockstep(secs, 1 + r);
        printf("round %d: one at a time %10.0f   lockstep x16 %10.0f   lockstep/one %.2f", r, one, lock, lock / one);
#ifdef YARDSTICK
        double ys = run_yardstick(secs);
        printf("   yardstick %10.0f: one %.2fx, lockstep %.2fx", ys, one / ys, lock / ys);
#endif
        printf("\n");
    }
    printf("(%ld games, mean %.1f cards; the yardstick's %ld cards in all)\n", games, (double)sum_cards / games,
           yardstick_cards);
    return 0;
}
