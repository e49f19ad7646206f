# cython: language_level=3
"""The GPU engine's kernels on the CPU: the engine "gpu-host".

gpu/kernel.cu and its game, gpu/game.h, compiled here as host C with one
thread, so the test suite plays the GPU's own code on every machine and
holds it to the compiled engine. `sample` and `census` take the arguments of
the kernels of the same names, with NumPy arrays where the kernels take
device memory, and leave their results in them as a launch would; gpu/engine.py
makes an engine of them, as it does of the device's launches.
"""

from libc.stdint cimport int64_t, uint64_t

cdef extern from "gpu/kernel.cu" nogil:
    ctypedef struct bg_shape:
        pass
    ctypedef struct bg_block:
        pass
    ctypedef struct bg_hit:
        pass
    enum:
        BG_RING
        BG_TOTAL
        BG_LENGTHS_EXACT
        BG_LENGTHS_WIDTH
        BG_LENGTHS_TOP
        BG_LENGTHS_BINS
        BG_HISTOGRAM
    void bg_sample(const bg_shape* shape, uint64_t seed, uint64_t first, uint64_t count, int64_t min_cards,
                   int64_t cap, uint64_t* next, uint64_t* lengths, uint64_t* best, bg_hit* hits,
                   uint64_t* n_hits, uint64_t capacity)
    void bg_census(const bg_block* block, uint64_t count, uint64_t grab, int64_t threshold, int64_t cap,
                   uint64_t* next, uint64_t* cards, uint64_t* tricks, bg_hit* hits, uint64_t* n_hits,
                   uint64_t capacity)

from . import lengths

NAME = "gpu-host"

#: The most places in a hand's ring and the most cards of a deck this build takes.
RING = BG_RING
TOTAL = BG_TOTAL
HISTOGRAM = BG_HISTOGRAM
#: Sizes of the structs, to hold gpu/engine.py's NumPy layouts to the C ones.
SIZES = {"shape": sizeof(bg_shape), "block": sizeof(bg_block), "hit": sizeof(bg_hit)}

if (BG_LENGTHS_EXACT, BG_LENGTHS_WIDTH, BG_LENGTHS_TOP, BG_LENGTHS_BINS) != (lengths.EXACT, lengths.WIDTH,
                                                                         lengths.TOP, lengths.BINS):
    raise ImportError("beggar._gpu_host was built against another beggar.lengths")


def sample(const unsigned char[::1] shape, uint64_t seed, uint64_t first, uint64_t count, int64_t min_cards,
           int64_t cap, uint64_t[::1] lengths, uint64_t[::1] best, unsigned char[::1] hits,
           uint64_t[::1] n_hits, uint64_t capacity):
    """The kernel bg_sample over deals first .. first+count-1 of `seed`;
    `shape` is one bg_shape, `hits` room for `capacity` bg_hit."""
    cdef uint64_t next = 0
    if shape.shape[0] != sizeof(bg_shape) or hits.shape[0] < capacity * sizeof(bg_hit) \
            or lengths.shape[0] != BG_LENGTHS_BINS or best.shape[0] != 1 or n_hits.shape[0] != 1:
        raise ValueError("gpu-host sample: buffers of the wrong size")
    with nogil:
        bg_sample(<const bg_shape*>&shape[0], seed, first, count, min_cards, cap, &next, &lengths[0],
                  &best[0], <bg_hit*>&hits[0], &n_hits[0], capacity)


def census(const unsigned char[::1] block, uint64_t count, uint64_t grab, int64_t threshold, int64_t cap,
           uint64_t[::1] cards, uint64_t[::1] tricks, unsigned char[::1] hits, uint64_t[::1] n_hits,
           uint64_t capacity):
    """The kernel bg_census over the first `count` deals of `block` (one
    bg_block); `hits` has room for `capacity` bg_hit."""
    cdef uint64_t next = 0
    if block.shape[0] != sizeof(bg_block) or hits.shape[0] < capacity * sizeof(bg_hit) \
            or cards.shape[0] != BG_HISTOGRAM or tricks.shape[0] != BG_HISTOGRAM or n_hits.shape[0] != 1:
        raise ValueError("gpu-host census: buffers of the wrong size")
    with nogil:
        bg_census(<const bg_block*>&block[0], count, grab, threshold, cap, &next, &cards[0], &tricks[0],
                  <bg_hit*>&hits[0], &n_hits[0], capacity)
