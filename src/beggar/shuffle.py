"""The seeded shuffle behind every random deal.

Deal number `index` of seed `seed` is a Fisher-Yates shuffle of the standard
deck driven by a SplitMix64 stream that starts at mix64(mix64(seed) + index).
Each deal has its own stream, so any deal of a run can be regenerated alone and
a run can be cut into index ranges (workers, resumes) without changing a deal.
The compiled engine implements the same steps; tests hold the two together.
"""

from .cards import STANDARD_DECK

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15

#: The standard deck in the fixed order the shuffle starts from.
STANDARD_ORDER = tuple(c for c, n in sorted(STANDARD_DECK.items()) for _ in range(n))


def mix64(x):
    """SplitMix64's finaliser: a bijection of 64-bit integers."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def check_seed(seed, what="seed"):
    """Raise ValueError unless seed is an integer in [0, 2**64)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MASK64:
        raise ValueError(f"{what} must be an integer from 0 to 2**64-1, not {seed!r}")


class Stream:
    """The SplitMix64 stream of one deal; `below(n)` draws uniformly from range(n)."""

    def __init__(self, seed, index):
        self.state = mix64((mix64(seed) + index) & MASK64)

    def next32(self):
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state) >> 32

    def below(self, n):
        # Lemire's multiply-shift with rejection: exact, and a division only in
        # the rare case that the low word falls under n.
        m = self.next32() * n
        low = m & 0xFFFFFFFF
        if low < n:
            threshold = (0x100000000 - n) % n
            while low < threshold:
                m = self.next32() * n
                low = m & 0xFFFFFFFF
        return m >> 32


def shuffled_deck(seed, index=0):
    """The standard deck (codes 0-4) shuffled for deal `index` of `seed`."""
    deck = list(STANDARD_ORDER)
    stream = Stream(seed, index)
    for i in range(len(deck) - 1, 0, -1):
        j = stream.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck
