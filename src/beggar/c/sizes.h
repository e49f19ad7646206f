/* The sizes a build of the C body is compiled for.

   The most places in a hand's ring, the most cards in the launch structs,
   the most cards of a deck this build deals (its local arrays), and the
   threads of a block (the columns of its shared memory). A GPU's kernels
   are compiled with what its deck needs (gpu/launch.py's defines); a host
   build (the compiled engine's modules, beggar._gpu_host) takes the
   largest, one thread. */

#ifndef BEGGAR_GPU_SIZES_H
#define BEGGAR_GPU_SIZES_H

#ifndef BG_RING
#define BG_RING 256
#endif
#ifndef BG_TOTAL
#define BG_TOTAL 256
#endif
#ifndef BG_CARDS
#define BG_CARDS BG_TOTAL
#endif
#ifndef BG_BLOCK
#define BG_BLOCK 1
#endif

/* The codes a card plays as (cards.py's CODES): 0 plain, 1-4 what a court card pays. */
#define BG_CODES 5

#endif
