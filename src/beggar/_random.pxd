"""The random-number stream of every seeded deal and walk (see shuffle.py):
SplitMix64, and Lemire's exact draw from range(n). Their C is c/random.h,
the kernels' own, inline: the engine modules that cimport it pay no call."""

from libc.stdint cimport uint32_t, uint64_t


cdef extern from "c/random.h" nogil:
    uint64_t mix64 "bg_mix64" (uint64_t x)
    uint32_t next32 "bg_next32" (uint64_t* state)
    # Uniform in range(n).
    uint32_t below "bg_below" (uint64_t* state, uint32_t n)
    # The SplitMix64 state of deal `index` of `seed`.
    uint64_t stream_start "bg_stream_start" (uint64_t seed, uint64_t index)
