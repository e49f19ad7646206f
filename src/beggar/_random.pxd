"""The random-number stream of every seeded deal and walk (see shuffle.py):
SplitMix64, and Lemire's exact draw from range(n). Inline, so that the engine
modules that cimport it pay no call."""

from libc.stdint cimport uint32_t, uint64_t


cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL
    return x ^ (x >> 31)


cdef inline uint32_t next32(uint64_t* state) noexcept nogil:
    state[0] += 0x9E3779B97F4A7C15ULL
    return <uint32_t>(mix64(state[0]) >> 32)


cdef inline uint32_t below(uint64_t* state, uint32_t n) noexcept nogil:
    """Uniform in range(n): Lemire's multiply-shift with rejection, as in shuffle.py."""
    cdef uint64_t m = <uint64_t>next32(state) * n
    cdef uint32_t low = <uint32_t>m, threshold
    if low < n:
        threshold = <uint32_t>((0x100000000ULL - n) % n)
        while low < threshold:
            m = <uint64_t>next32(state) * n
            low = <uint32_t>m
    return <uint32_t>(m >> 32)


cdef inline uint64_t stream_start(uint64_t seed, uint64_t index) noexcept nogil:
    """The SplitMix64 state of deal `index` of `seed` (see shuffle.py)."""
    return mix64(mix64(seed) + index)
