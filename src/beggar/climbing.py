"""Hill climbing over 26/26 deals: the parameters and the result both engines share.

A walker holds a deal and, at every step, proposes one mutation of it: a swap
of two cards of different rank (within a hand or across the hands), or a court
card moved to another place (the cards between shift by one, so the hands stay
26/26). The proposal is played and accepted by the chosen rule:

- "strict": only if it is better;
- "equal": if it is at least as good (walks plateaus);
- "anneal": also, when worse by d, with probability exp(-d / T), the
  temperature T = temperature / (1 + k / patience) after k steps of the walk;
- "late": late acceptance: also if at least as good as the walk was `history`
  steps ago.

Better means more cards (tricks break ties), or more tricks with
fitness="tricks". A walker that has not beaten its best for `patience` steps
restarts from a fresh random deal. Every deal it plays with at least
`min_cards` cards, and every loop, is a hit.

Walk `index` of seed `seed` draws everything from the SplitMix64 stream of
deal `index` (shuffle.py): its first deal is Deal.shuffled(2, seed, index), and
the mutations, acceptance draws and restarts follow from the same stream, so a
walk is reproducible from (seed, index) and both engines take the same steps.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .checks import whole
from .decks import check_table
from .shuffle import check_seed

FITNESSES = ("cards", "tricks")
ACCEPTS = ("strict", "equal", "anneal", "late")

#: A fitness is primary << SECONDARY_BITS | secondary, so ints compare as pairs.
SECONDARY_BITS = 24


@dataclass(frozen=True)
class ClimbRules:
    """How a walker climbs; see the module docstring."""

    fitness: str = "cards"
    accept: str = "equal"
    patience: int = 20000
    temperature: float = 100.0
    history: int = 50
    swap_percent: int = 50

    def __post_init__(self):
        if self.fitness not in FITNESSES:
            raise ValueError(f"fitness must be one of {', '.join(FITNESSES)}, not {self.fitness!r}")
        if self.accept not in ACCEPTS:
            raise ValueError(f"accept must be one of {', '.join(ACCEPTS)}, not {self.accept!r}")
        whole(self.patience, "patience", 1, 10 ** 12)
        whole(self.history, "history", 1, 100000)
        whole(self.swap_percent, "swap_percent", 0, 100)
        if isinstance(self.temperature, bool) or not isinstance(self.temperature, (int, float)) \
                or not 0 < self.temperature < 1e9:
            raise ValueError(f"temperature must be a number above 0, not {self.temperature!r}")

    def as_dict(self):
        return asdict(self)


@dataclass(frozen=True)
class Climb:
    """What a walk found: hits [(deal, outcome)], in the order played; the best
    game it played (deal, outcome); how many times it restarted; the lengths
    of every game it played (lengths.Lengths)."""

    hits: list
    best: tuple | None
    restarts: int
    lengths: object = None


def fitness(outcome, by):
    """The fitness of an outcome as one comparable int (see SECONDARY_BITS)."""
    primary, secondary = (outcome.cards, outcome.tricks) if by == "cards" else (outcome.tricks, outcome.cards)
    return (primary << SECONDARY_BITS) | min(secondary, (1 << SECONDARY_BITS) - 1)


def check_climb(seed, index, steps, min_cards, rules, deck, players, split):
    """Every engine's climb() arguments checked; (Deck, players, split) as decks.check_table.
    `rules` is a ClimbRules, checked when made (its numbers size the engines' buffers)."""
    check_seed(seed)
    check_seed(index, "index")
    whole(steps, "steps")
    whole(min_cards, "min_cards")
    if not isinstance(rules, ClimbRules):
        raise TypeError(f"climb() takes its rules as a climbing.ClimbRules, not {type(rules).__name__}")
    return check_table(deck, players, split)
