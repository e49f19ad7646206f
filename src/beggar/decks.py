"""Decks: how many cards of each rank a game is played with, by name or in a short notation.

A deck is written as its name (`standard`, `camicia`, `half`, `half-camicia`)
or as counts: a bare number is the plain cards, a number followed by J, Q, K or
A is that many of the court card, e.g. `18 2J 2Q 2K 2A` (the half deck) or
`28 4J 4Q 4K` (the 40-card Italian deck, whose penalty-1/2/3 cards play as
J/Q/K). Ranks left out count 0. Every error is a DeckError naming the problem.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import ACE, JACK, KING, PLAIN, QUEEN, CODES, SYMBOLS
from .checks import cut, is_digits
from .errors import BadInput

#: A table seats 2 to 4 players (the compiled engine's MAX_PLAYERS in _game.pxd,
#: checked when it is imported).
MIN_PLAYERS, MAX_PLAYERS = 2, 4

#: More cards than this do not fit the engines' byte-sized positions (MAX_DECK
#: in _game.pxd, checked likewise).
MAX_DECK = 255

#: The decks people play, by name: (plain, J, Q, K, A).
NAMED = {
    "standard": (36, 4, 4, 4, 4),
    "camicia": (28, 4, 4, 4, 0),
    "half": (18, 2, 2, 2, 2),
    "half-camicia": (14, 2, 2, 2, 0),
}


class DeckError(BadInput, ValueError):
    """A deck that cannot be played with; the message says why."""


@dataclass(frozen=True)
class Deck:
    """How many cards of each code (0 plain, 1 J, 2 Q, 3 K, 4 A) the deck holds."""

    counts: tuple

    def __post_init__(self):
        counts = self.counts
        if len(counts) != CODES or any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in counts):
            raise DeckError(f"a deck is five counts of cards (plain, J, Q, K, A), not {counts!r}")
        if not any(counts[1:]):
            raise DeckError(f"deck {self}: it has no court card, so no trick could ever be taken")
        if sum(n > 0 for n in counts) < 2:
            raise DeckError(f"deck {self}: every card has the same rank; a deck needs two ranks at least")
        if self.total > MAX_DECK:
            raise DeckError(f"deck {self}: {self.total} cards; a deck holds at most {MAX_DECK}")

    @classmethod
    def parse(cls, text):
        """A deck from its name or its notation ('18 2J 2Q 2K 2A')."""
        if isinstance(text, Deck):
            return text
        if not isinstance(text, str):
            raise DeckError(f"a deck is a name or counts such as '18 2J 2Q 2K 2A', not {cut(text)}")
        name = text.strip().lower()
        if name in NAMED:
            return cls(NAMED[name])
        counts = [0] * CODES
        seen = set()
        tokens = text.replace(",", " ").split()
        if not tokens:
            raise DeckError("the deck is empty: give a name "
                            f"({', '.join(NAMED)}) or counts such as '18 2J 2Q 2K 2A'")
        for token in tokens:
            number, rank = token, "-"
            if token[-1:].upper() in "-JQKA":
                number, rank = token[:-1], token[-1].upper()
            code = SYMBOLS.index(rank)
            if not is_digits(number):
                known = f"known decks are {', '.join(NAMED)}, or counts such as '18 2J 2Q 2K 2A'"
                if len(tokens) == 1:
                    raise DeckError(f"unknown deck {cut(text)}: {known}")
                raise DeckError(f"deck {cut(text)}: cannot read {cut(token)}; {known}")
            if code in seen:
                raise DeckError(f"deck {cut(text)}: {SYMBOLS[code] if code else 'plain'} counted twice")
            seen.add(code)
            counts[code] = int(number)
        return cls(tuple(counts))

    @property
    def total(self):
        return sum(self.counts)

    @property
    def courts(self):
        """The court cards in the order a shuffle places them: J..J Q..Q K..K A..A."""
        return tuple(code for code in (JACK, QUEEN, KING, ACE) for _ in range(self.counts[code]))

    def notation(self):
        return notation(self.counts)

    def __str__(self):
        return written(self.counts)


STANDARD = Deck(NAMED["standard"])


def notation(counts):
    """Counts of (plain, J, Q, K, A) in the deck notation: '18 2J 2Q 2K 2A'."""
    plain = [str(counts[PLAIN])] if counts[PLAIN] else []
    return " ".join(plain + [f"{n}{SYMBOLS[c]}" for c, n in enumerate(counts) if c and n]) or "0"


def written(counts):
    """Counts as a deck is written: its name, or its notation. Any cards at
    all: the cards of a deal someone wrote need not make a deck to deal from."""
    return next((name for name, named in NAMED.items() if named == tuple(counts)), None) or notation(counts)


def check_table(deck, players, split):
    """(Deck, players, split) checked for random deals: the deck by name,
    notation or Deck, 2-4 players that it can be dealt to, and check_split."""
    if isinstance(players, bool) or not isinstance(players, int) or players not in range(MIN_PLAYERS,
                                                                                          MAX_PLAYERS + 1):
        raise DeckError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {players!r}")
    deck = Deck.parse(deck)
    if deck.total < players:
        raise DeckError(f"deck {deck}: {deck.total} cards cannot be dealt to {players} players")
    return deck, players, check_split(split, players, deck.total)


def check_split(split, players, total):
    """The split of two-player deals as the engines take it: None (even), a
    number of cards for the first hand, or "random" (uniform over 1 .. total-1,
    drawn for each deal); "even" is None. DeckError for anything else."""
    if split is None or split == "even":
        return None
    if players != 2:
        raise DeckError(f"a split is for two players, not {players}")
    if split != "random":
        hand_sizes(total, players, split)       # DeckError for a split that leaves a hand no card
    return split


def hand_sizes(total, players, split=None):
    """Cards in each hand: as evenly as possible, the leader first (18, 17, 17),
    or, for two players, `split` cards in the first hand."""
    if split is None:
        return [total // players + (p < total % players) for p in range(players)]
    if players != 2:
        raise DeckError(f"a split is for two players, not {players}")
    if isinstance(split, bool) or not isinstance(split, int) or not 1 <= split <= total - 1:
        raise DeckError(f"split must be a whole number from 1 to {total - 1} (cards in the first hand), "
                        f"not {split!r}")
    return [split, total - split]


def deal_out(cards, sizes):
    """Deal `cards` one at a time, the leader first, to hands of `sizes`: a full
    hand is skipped. Returns the hands, top card first."""
    hands = [[] for _ in sizes]
    player = 0
    for card in cards:
        while len(hands[player]) == sizes[player]:
            player = (player + 1) % len(sizes)
        hands[player].append(card)
        player = (player + 1) % len(sizes)
    return hands
