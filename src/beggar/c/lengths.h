/* The bins a game's length in cards is counted in (lengths.py): one a card
   below 3,000, one every 100 cards up to 10,000, one for the rest. The
   compiled engine and the kernels count in these; the modules that use
   them hold the numbers to lengths.py's when they are imported. */

#ifndef BEGGAR_GPU_LENGTHS_H
#define BEGGAR_GPU_LENGTHS_H

#include "vendor.h"

enum {
    BG_LENGTHS_EXACT = 3000,
    BG_LENGTHS_WIDTH = 100,
    BG_LENGTHS_TOP = 10000,
    BG_LENGTHS_BINS = 3000 + (10000 - 3000) / 100 + 1
};

/* The bin of a game of `cards` cards. */
BG_FN int bg_length_bin(bg_i64 cards) {
    if (cards < BG_LENGTHS_EXACT)
        return (int)cards;
    if (cards < BG_LENGTHS_TOP)
        return BG_LENGTHS_EXACT + (int)((cards - BG_LENGTHS_EXACT) / BG_LENGTHS_WIDTH);
    return BG_LENGTHS_BINS - 1;
}

#endif
