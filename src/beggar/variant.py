"""Variants: what each court card pays, and how a trick starts (docs/rules.md, "Variants").

A card is stored as its penalty, so a variant maps the cards people hold to
the codes every engine plays: a deal or a deck is played, and stored, as its
cards pay. The trick's rule cannot be a code: it travels as Rules.lay_on.
Written as a name (NAMED) or a table such as 'J1 Q2 K3' (ranks left out pay
nothing), with 'lay-on' for the trick.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import ACE, CODES, JACK, SYMBOLS
from .checks import cut, is_digits
from .deal import Deal
from .decks import Deck, DeckError, written
from .errors import BadInput

#: The most a card may pay: the highest code the engines play (the ace's).
MAX_PENALTY = ACE

#: The variants people play, by name: the penalties of J, Q, K and A, and
#: whether the player to move lays on until he turns up a court card (while
#: no penalty runs) rather than the players laying in turn. "cassell" is the
#: game of Cassell's Book of In-door Amusements (1881): a king asks three, a
#: queen two, a knave one, an ace nothing, and the player to move lays on;
#: "aces-plain" is its table alone.
NAMED = {
    "standard": ((1, 2, 3, 4), False),
    "aces-plain": ((1, 2, 3, 0), False),
    "cassell": ((1, 2, 3, 0), True),
}
#: The word of a table that asks for the trick where the player to move lays on.
LAY_ON = "lay-on"

COURTS = SYMBOLS[JACK:]


class VariantError(BadInput, ValueError):
    """A variant that cannot be played; the message says why."""


@dataclass(frozen=True)
class Variant:
    """The penalties of J, Q, K and A (four numbers 0 .. MAX_PENALTY), and
    whether the player to move lays on to a court card (`lay_on`)."""

    penalties: tuple = NAMED["standard"][0]
    lay_on: bool = False

    def __post_init__(self):
        penalties = self.penalties
        if not isinstance(penalties, (tuple, list)) or len(penalties) != len(COURTS) or any(
                isinstance(n, bool) or not isinstance(n, int) for n in penalties):
            raise VariantError(f"a variant is the penalties of J, Q, K and A (four whole numbers), "
                               f"not {cut(penalties)}")
        object.__setattr__(self, "penalties", tuple(penalties))
        for symbol, n in zip(COURTS, penalties):
            if not 0 <= n <= MAX_PENALTY:
                raise VariantError(f"variant {self}: {symbol} pays {n}; a card pays 0 to {MAX_PENALTY} "
                                   "(the engines' codes stop at the ace's)")
        if not any(penalties):
            raise VariantError(f"variant {self}: no card pays, so no trick could ever be taken")
        if not isinstance(self.lay_on, bool):
            raise VariantError(f"a variant's lay_on is True or False, not {cut(self.lay_on)}")

    @classmethod
    def parse(cls, text):
        """A variant from its name or its table ('J1 Q2 K3'); a Variant as it is."""
        if isinstance(text, Variant):
            return text
        if not isinstance(text, str):
            raise VariantError(f"a variant is a name or a table such as 'J1 Q2 K3', not {cut(text)}")
        name = text.strip().lower()
        if name in NAMED:
            return cls(*NAMED[name])
        known = f"known variants are {', '.join(NAMED)}, or a table such as 'J1 Q2 K3', either with {LAY_ON} or not"
        tokens = text.replace(",", " ").split()
        table = [token for token in tokens if token.lower() != LAY_ON]
        lay_on = len(table) < len(tokens)
        if len(tokens) - len(table) > 1:
            raise VariantError(f"variant {cut(text)}: {LAY_ON} given twice")
        tokens = table
        if len(tokens) == 1 and tokens[0].lower() in NAMED:     # 'aces-plain lay-on': a named table laid on
            penalties, named_lay_on = NAMED[tokens[0].lower()]
            return cls(penalties, lay_on or named_lay_on)
        if not tokens:
            if lay_on:      # the trick alone: the standard table
                return cls(lay_on=True)
            raise VariantError(f"the variant is empty: {known}")
        penalties = [0] * len(COURTS)
        seen = set()
        for token in tokens:
            symbol, number = token[:1].upper(), token[1:]
            if symbol not in COURTS or not is_digits(number) or len(number) > 3:
                raise VariantError(f"unknown variant {cut(text)}: {known}" if len(tokens) == 1 else
                                   f"variant {cut(text)}: cannot read {cut(token)}; {known}")
            if symbol in seen:
                raise VariantError(f"variant {cut(text)}: {symbol} given twice")
            seen.add(symbol)
            penalties[COURTS.index(symbol)] = int(number)
        return cls(tuple(penalties), lay_on)

    @property
    def codes(self):
        """The code each card's code (cards.PENALTIES) is played as."""
        return (0,) + self.penalties

    @property
    def standard(self):
        return self == STANDARD

    @property
    def relabels(self):
        """Whether a card plays as another code (a table other than the standard one)."""
        return self.penalties != STANDARD.penalties

    @property
    def trick(self):
        """This variant's trick alone: what a deal stored as it plays is played under."""
        return Variant(lay_on=self.lay_on)

    def __str__(self):
        named = next((name for name, rules in NAMED.items() if rules == (self.penalties, self.lay_on)), None)
        table = [f"{symbol}{n}" for symbol, n in zip(COURTS, self.penalties)] if self.relabels else []
        return named or " ".join(table + [LAY_ON] * self.lay_on)

    def hand(self, hand):
        """A hand of codes as this variant plays it (what is no code left for the engine to refuse)."""
        codes = self.codes
        return [codes[card] if card in range(CODES) else card for card in hand]

    def rows(self, rows):
        """Rows of codes (engine.play_batch's) as this variant plays them: an
        array's looked up at once; others row by row (hand); the rows
        themselves under the standard table."""
        if not self.relabels:
            return rows
        import numpy as np
        array = np.asarray(rows) if isinstance(rows, np.ndarray) else None
        if array is not None and array.dtype.kind in "iu" and array.size and 0 <= array.min() and \
                array.max() < CODES:
            return np.asarray(self.codes, dtype=array.dtype)[array]
        return [self.hand(row) for row in rows]

    def deal(self, deal):
        """A Deal as this variant plays it (the Deal itself under the standard rules)."""
        return Deal([self.hand(hand) for hand in deal.hands]) if self.relabels else deal

    def deck(self, deck):
        """A Deck as this variant counts it: each card counted as the code it plays as."""
        deck = Deck.parse(deck)
        counts = [0] * CODES
        for card, count in enumerate(deck.counts):
            counts[self.codes[card]] += count
        try:
            return Deck(tuple(counts))
        except DeckError as error:
            raise VariantError(f"deck {deck} under the variant {self} plays as {written(counts)}: "
                               f"{str(error).split(': ', 1)[-1]}") from None


STANDARD = Variant()
