"""The seeded shuffle behind every random deal.

Deal number `index` of seed `seed` is the deck shuffled by a SplitMix64
stream that starts at mix64(mix64(seed) + index). Plain cards are
interchangeable, so only the court cards are placed: a partial Fisher-Yates
shuffle of the deck's positions picks, in turn, a uniformly random free
position for each court card, jacks first, then queens, kings and aces (for
the standard deck J J J J Q Q Q Q K K K K A A A A). Every arrangement of the
deck is equally likely, and the standard deck takes 16 draws instead of 51.
Each deal has its own stream, so any deal of a run can be regenerated alone and
a run can be cut into index ranges (workers, resumes) without changing a deal.
The compiled engines take the same steps (c/deal.h); tests hold them to this twin.
"""

from .checks import whole
from .decks import STANDARD, deal_out, hand_sizes

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(x):
    """SplitMix64's finaliser: a bijection of 64-bit integers."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def check_seed(seed, what="seed"):
    """Raise ValueError unless seed is an integer in [0, 2**64)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MASK64:
        raise ValueError(f"{what} must be an integer from 0 to 2**64-1, not {seed!r}")


def check_sample(n_deals, seed, min_cards, start):
    """A sample's seed and counts: deals start .. start+n_deals-1, all of the seed's 2**64."""
    check_seed(seed)
    for value, name in ((n_deals, "n_deals"), (start, "start"), (min_cards, "min_cards")):
        whole(value, name)
    if start + n_deals > 2 ** 64:
        raise ValueError("start + n_deals must stay below 2**64")


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


def shuffled_deck(seed, index=0, deck=STANDARD):
    """`deck` (codes 0-4) shuffled for deal `index` of `seed`."""
    return deck_from(Stream(seed, index), deck)


def deck_from(stream, deck=STANDARD):
    """`deck` shuffled with the next draws of `stream`, one for each court card."""
    cards = [0] * deck.total
    positions = list(range(deck.total))
    for i, court in enumerate(deck.courts):
        j = i + stream.below(deck.total - i)
        positions[i], positions[j] = positions[j], positions[i]
        cards[positions[i]] = court
    return cards


def deal_from(stream, deck=STANDARD, players=2, split=None):
    """The hands of a random deal: `deck` shuffled by `stream`, then, for
    split "random", the first hand's size drawn uniformly from 1 .. total-1,
    and the cards dealt one at a time, the leader first (decks.deal_out)."""
    cards = deck_from(stream, deck)
    if split == "random":
        split = 1 + stream.below(deck.total - 1)
    return deal_out(cards, hand_sizes(deck.total, players, split))
