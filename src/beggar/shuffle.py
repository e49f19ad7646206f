"""The seeded shuffle behind every random deal.

Deal number `index` of seed `seed` is the standard deck shuffled by a
SplitMix64 stream that starts at mix64(mix64(seed) + index). Plain cards are
interchangeable, so only the 16 court cards are placed: a partial Fisher-Yates
shuffle of the 52 positions picks, in turn, a uniformly random free position
for each of J J J J Q Q Q Q K K K K A A A A. Every arrangement of the deck is
equally likely, and it takes 16 draws instead of 51.
Each deal has its own stream, so any deal of a run can be regenerated alone and
a run can be cut into index ranges (workers, resumes) without changing a deal.
The compiled engine implements the same steps; tests hold the two together.
"""

from .cards import STANDARD_DECK

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15

#: The court cards in the order they are placed.
COURT_ORDER = tuple(c for c, n in sorted(STANDARD_DECK.items()) if c for _ in range(n))
DECK_SIZE = sum(STANDARD_DECK.values())


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
    return deck_from(Stream(seed, index))


def deck_from(stream):
    """A standard deck shuffled with the next 16 draws of `stream`."""
    deck = [0] * DECK_SIZE
    positions = list(range(DECK_SIZE))
    for i, court in enumerate(COURT_ORDER):
        j = i + stream.below(DECK_SIZE - i)
        positions[i], positions[j] = positions[j], positions[i]
        deck[positions[i]] = court
    return deck
