/* Sixteen two-player games in lockstep on AVX-512, one game a vector lane: the court-to-court
   trick of _game.pyx's run_by_court, with the pieces of c/hash.h, for sample() (issue 42). It
   is a second copy of that trick, written for lanes: tests/test_lanes.py holds the two equal.
   A trick's two coin tosses and its exchange are lane masks, not branches; the exchange loop
   runs until no lane still pays, as often as the longest exchange of the 16 needs. A scalar
   trick mispredicts its exchange's end about once a trick, and that costs more than the
   lanes' lockstep.

   Piece (place, hand p) of lane l is h[(place * 2 + p) * BG_LANES + l]: one place of every
   lane's hand is one cache line, gathered and scattered at once. A hand is a ring of BG_RING
   places. It holds its own pieces and, during a trick, the pile's, laid after its end (the
   pile is laid after both hands' ends, as its taker is known only at the end); the two
   together are at most the deck's court cards and two more, so decks of up to BG_LANE_COURTS
   court cards fit. No loop detection: the caller hands a game past its limit of tricks to
   the scalar engine, which replays it whole.

   Built only for x86-64 under GCC or Clang, the trick compiled for AVX-512F alone
   (bg_lanes_usable says whether this processor and its system run it); elsewhere
   bg_lanes_usable is 0. */

#ifndef BEGGAR_C_LANES_H
#define BEGGAR_C_LANES_H

#include <stdint.h>
#include "hash.h"

/* A place of both hands is 2 * BG_LANES = 1 << BG_PLACE_SHIFT elements; BG_RING is a power of two. */
enum { BG_LANES = 16, BG_RING = 32, BG_LANE_COURTS = BG_RING - 2, BG_PLACE_SHIFT = 5 };
_Static_assert(2 * BG_LANES == 1 << BG_PLACE_SHIFT && (BG_RING & (BG_RING - 1)) == 0, "lanes.h: the ring's layout");

typedef struct {
    int32_t h[BG_RING * 2 * BG_LANES];
    int32_t head0[BG_LANES], head1[BG_LANES], size0[BG_LANES], size1[BG_LANES];
    int32_t leader[BG_LANES], cards[BG_LANES], tricks[BG_LANES];
} bg_lanes;

/* Lane l's game: hands of n0 and n1 pieces at the start of a deal (leader 0); each at most
   BG_LANE_COURTS + 1 pieces, which the caller checks by the deck. */
static inline void bg_lanes_load(bg_lanes* L, int l, const uint32_t* hand0, int n0,
                                 const uint32_t* hand1, int n1) {
    for (int i = 0; i < n0; i++)
        L->h[i * 2 * BG_LANES + l] = (int32_t)hand0[i];
    for (int i = 0; i < n1; i++)
        L->h[(i * 2 + 1) * BG_LANES + l] = (int32_t)hand1[i];
    L->head0[l] = L->head1[l] = 0;
    L->size0[l] = n0;
    L->size1[l] = n1;
    L->leader[l] = L->cards[l] = L->tricks[l] = 0;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

static inline int bg_lanes_usable(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

#define BG_V(x) _mm512_set1_epi32(x)
#define BG_LOAD(a) _mm512_loadu_si512((const void*)(a))
#define BG_STORE(a, v) _mm512_storeu_si512((void*)(a), (v))
#define BG_GATHER(k, src, idx) _mm512_mask_i32gather_epi32((src), (k), (idx), L->h, 4)
#define BG_SCATTER(k, idx, v) _mm512_mask_i32scatter_epi32(L->h, (k), (idx), (v), 4)
#define BG_PLACE(head, p) _mm512_add_epi32(_mm512_slli_epi32((head), BG_PLACE_SHIFT), _mm512_add_epi32(BG_V((p) * BG_LANES), lane))

/* One trick in every lane. Returns the lanes whose game is finished; *past gets the lanes
   whose game has reached `limit` tricks. */
__attribute__((target("avx512f")))
static uint16_t bg_lanes_trick(bg_lanes* L, int32_t limit, uint16_t* past) {
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i zero = BG_V(0), one = BG_V(1), court_mask = BG_V(BG_COURT_MASK);
    const __m512i stride = BG_V(2 * BG_LANES), wrap = BG_V(BG_RING * 2 * BG_LANES - 1);
    __m512i leader = BG_LOAD(L->leader), head0 = BG_LOAD(L->head0), head1 = BG_LOAD(L->head1);
    __m512i end0 = _mm512_add_epi32(head0, BG_LOAD(L->size0));
    __m512i end1 = _mm512_add_epi32(head1, BG_LOAD(L->size1));
    __mmask16 lead1 = _mm512_test_epi32_mask(leader, leader);
    __m512i i0 = BG_PLACE(head0, 0), i1 = BG_PLACE(head1, 1);
    __m512i il = _mm512_mask_blend_epi32(lead1, i0, i1), io = _mm512_mask_blend_epi32(lead1, i1, i0);
    __m512i pl = BG_GATHER(0xFFFF, zero, il), po = BG_GATHER(0xFFFF, zero, io);
    __m512i a = _mm512_srli_epi32(pl, BG_COURT_BITS), b = _mm512_srli_epi32(po, BG_COURT_BITS);
    /* The leader's court card (or his running out) comes at card 2a + 1, the other's at
       2b + 2: whoever meets his first lays x plain cards before it, the second x + late. */
    __mmask16 late = _mm512_cmpgt_epu32_mask(a, b);
    __m512i latev = _mm512_maskz_mov_epi32(late, one);
    __m512i x = _mm512_mask_blend_epi32(late, a, b);
    __m512i laid = _mm512_add_epi32(_mm512_add_epi32(x, x), latev);
    __m512i ifirst = _mm512_mask_blend_epi32(late, il, io), isecond = _mm512_mask_blend_epi32(late, io, il);
    __m512i court = _mm512_and_si512(_mm512_mask_blend_epi32(late, pl, po), court_mask);
    __m512i psecond = _mm512_mask_blend_epi32(late, po, pl);
    BG_SCATTER(0xFFFF, isecond, _mm512_sub_epi32(psecond, _mm512_slli_epi32(_mm512_add_epi32(x, latev), BG_COURT_BITS)));
    __mmask16 out = _mm512_testn_epi32_mask(court, court), on = (__mmask16)~out;
    BG_SCATTER(out, ifirst, zero);      /* the first runs out: the second takes the pile */
    __m512i top = _mm512_slli_epi32(laid, BG_COURT_BITS);   /* the pile's first piece */
    __m512i taker = _mm512_xor_si512(_mm512_xor_si512(leader, latev), one);
    __m512i n = zero;
    if (on) {
        /* The second player owes `court`; payments alternate between the hands, `at` the
           payer's head piece, `step` to the other's. The pile's pieces are laid after both
           hands' ends (lay0, lay1), since its taker is known only at the end. */
        __m512i at = isecond;
        __m512i step = _mm512_sub_epi32(_mm512_add_epi32(ifirst, stride), at);
        __m512i lay0 = BG_PLACE(end0, 0), lay1 = BG_PLACE(end1, 1);
        __m512i owed = court, piece = zero, run;
        top = _mm512_mask_or_epi32(top, on, top, court);
        laid = _mm512_mask_add_epi32(laid, on, laid, one);
        __mmask16 paying = on;
        for (;;) {
            piece = BG_GATHER(paying, piece, _mm512_and_si512(at, wrap));
            run = _mm512_srli_epi32(piece, BG_COURT_BITS);
            __m512i next = _mm512_and_si512(piece, court_mask);
            /* Neither paid in full nor run out: he lays his run and a court card. */
            __mmask16 go = _mm512_mask_cmplt_epu32_mask(paying, run, owed) & _mm512_test_epi32_mask(next, next);
            if (!go)
                break;
            BG_SCATTER(go, _mm512_and_si512(lay0, wrap), piece);
            BG_SCATTER(go, _mm512_and_si512(lay1, wrap), piece);
            lay0 = _mm512_mask_add_epi32(lay0, go, lay0, stride);
            lay1 = _mm512_mask_add_epi32(lay1, go, lay1, stride);
            laid = _mm512_mask_add_epi32(laid, go, laid, _mm512_add_epi32(run, one));
            owed = _mm512_mask_mov_epi32(owed, go, next);
            at = _mm512_mask_add_epi32(at, go, at, step);
            step = _mm512_mask_sub_epi32(step, go, stride, step);
            paying = go;
        }
        run = _mm512_srli_epi32(piece, BG_COURT_BITS);
        __m512i paid = _mm512_min_epu32(run, owed);
        __m512i paid_piece = _mm512_slli_epi32(paid, BG_COURT_BITS);
        BG_SCATTER(on, _mm512_and_si512(at, wrap), _mm512_sub_epi32(piece, paid_piece));
        BG_SCATTER(on, _mm512_and_si512(lay0, wrap), paid_piece);
        BG_SCATTER(on, _mm512_and_si512(lay1, wrap), paid_piece);
        laid = _mm512_mask_add_epi32(laid, on, laid, paid);
        n = _mm512_maskz_add_epi32(on, _mm512_sub_epi32(_mm512_srli_epi32(lay0, BG_PLACE_SHIFT), end0), one);
        __mmask16 payer1 = _mm512_test_epi32_mask(at, BG_V(BG_LANES));
        __m512i other = _mm512_add_epi32(at, step);
        head0 = _mm512_mask_mov_epi32(head0, on, _mm512_srli_epi32(_mm512_mask_blend_epi32(payer1, at, other), BG_PLACE_SHIFT));
        head1 = _mm512_mask_mov_epi32(head1, on, _mm512_srli_epi32(_mm512_mask_blend_epi32(payer1, other, at), BG_PLACE_SHIFT));
        taker = _mm512_mask_xor_epi32(taker, on, _mm512_maskz_mov_epi32(payer1, one), one);
    }
    /* The taker puts the pile under his hand: its first run joins his trailing plain cards,
       its other pieces are already in place after them. */
    __mmask16 take1 = _mm512_test_epi32_mask(taker, taker);
    __m512i tail = _mm512_sub_epi32(_mm512_mask_blend_epi32(take1, end0, end1), one);
    __m512i it = _mm512_add_epi32(_mm512_slli_epi32(_mm512_and_si512(tail, BG_V(BG_RING - 1)), BG_PLACE_SHIFT),
                                  _mm512_add_epi32(_mm512_maskz_mov_epi32(take1, BG_V(BG_LANES)), lane));
    BG_SCATTER(0xFFFF, it, _mm512_add_epi32(BG_GATHER(0xFFFF, zero, it), top));
    __m512i size0 = _mm512_add_epi32(_mm512_sub_epi32(end0, head0), _mm512_maskz_mov_epi32((__mmask16)~take1, n));
    __m512i size1 = _mm512_add_epi32(_mm512_sub_epi32(end1, head1), _mm512_maskz_mov_epi32(take1, n));
    head0 = _mm512_and_si512(head0, BG_V(BG_RING - 1));
    head1 = _mm512_and_si512(head1, BG_V(BG_RING - 1));
    BG_STORE(L->size0, size0);
    BG_STORE(L->size1, size1);
    BG_STORE(L->head0, head0);
    BG_STORE(L->head1, head1);
    BG_STORE(L->leader, taker);
    BG_STORE(L->cards, _mm512_add_epi32(BG_LOAD(L->cards), laid));
    __m512i tricks = _mm512_add_epi32(BG_LOAD(L->tricks), one);
    BG_STORE(L->tricks, tricks);
    *past = _mm512_cmpge_epi32_mask(tricks, BG_V(limit));
    /* Finished: the other hand is down to one piece, and it is empty. */
    __m512i other_size = _mm512_mask_blend_epi32(take1, size1, size0);
    __m512i other_head = _mm512_mask_blend_epi32(take1, BG_PLACE(head1, 1), BG_PLACE(head0, 0));
    __mmask16 one_piece = _mm512_cmpeq_epi32_mask(other_size, one);
    __m512i last = BG_GATHER(one_piece, zero, other_head);
    return one_piece & _mm512_testn_epi32_mask(last, last);
}

#undef BG_V
#undef BG_LOAD
#undef BG_STORE
#undef BG_GATHER
#undef BG_SCATTER
#undef BG_PLACE

#else
static inline int bg_lanes_usable(void) { return 0; }
static inline uint16_t bg_lanes_trick(bg_lanes* L, int32_t limit, uint16_t* past) {
    (void)L; (void)limit; *past = 0;
    return 0;
}
#endif

#endif
