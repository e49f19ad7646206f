"""Variants: what each court card pays (docs/rules.md, "Variants").

A card is stored as its penalty, so a variant maps the cards people hold to
the codes every engine plays: a deal or a deck is played, and stored, as its
cards pay. Written as a name (NAMED) or a table such as 'J1 Q2 K3' (ranks
left out pay nothing).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import ACE, JACK, RANKS, SYMBOLS
from .checks import cut, is_digits
from .errors import BadInput

#: What a card may pay: the highest code the engines play (the ace's).
MAX_PENALTY = ACE

#: The variants people play, by name: what J, Q, K and A pay.
NAMED = {
    "standard": (1, 2, 3, 4),
    "cassell": (1, 2, 3, 0),
}

COURTS = SYMBOLS[JACK:]


class VariantError(BadInput, ValueError):
    """A variant that cannot be played; the message says why."""


@dataclass(frozen=True)
class Variant:
    """What J, Q, K and A pay (`pays`, four numbers 0 .. MAX_PENALTY)."""

    pays: tuple = NAMED["standard"]

    def __post_init__(self):
        pays = self.pays
        if len(pays) != len(COURTS) or any(isinstance(n, bool) or not isinstance(n, int) for n in pays):
            raise VariantError(f"a variant is what J, Q, K and A pay (four whole numbers), not {pays!r}")
        for symbol, n in zip(COURTS, pays):
            if not 0 <= n <= MAX_PENALTY:
                raise VariantError(f"variant {self}: {symbol} pays {n}; a card pays 0 to {MAX_PENALTY} "
                                   "(the engines' codes stop at the ace's)")
        if not any(pays):
            raise VariantError(f"variant {self}: no card pays, so no trick could ever be taken")

    @classmethod
    def parse(cls, text):
        """A variant from its name or its table ('J1 Q2 K3'); a Variant as it is."""
        if isinstance(text, Variant):
            return text
        if not isinstance(text, str):
            raise VariantError(f"a variant is a name or a table such as 'J1 Q2 K3', not {cut(text)}")
        name = text.strip().lower()
        if name in NAMED:
            return cls(NAMED[name])
        known = f"known variants are {', '.join(NAMED)}, or a table such as 'J1 Q2 K3'"
        tokens = text.replace(",", " ").split()
        if not tokens:
            raise VariantError(f"the variant is empty: {known}")
        pays = [0] * len(COURTS)
        seen = set()
        for token in tokens:
            symbol, number = token[:1].upper(), token[1:]
            if symbol not in COURTS or not is_digits(number) or len(number) > 3:
                raise VariantError(f"unknown variant {cut(text)}: {known}" if len(tokens) == 1 else
                                   f"variant {cut(text)}: cannot read {cut(token)}; {known}")
            if symbol in seen:
                raise VariantError(f"variant {cut(text)}: {symbol} given twice")
            seen.add(symbol)
            pays[COURTS.index(symbol)] = int(number)
        return cls(tuple(pays))

    @property
    def codes(self):
        """The code each card's code (PENALTIES) is played as."""
        return (0,) + self.pays

    @property
    def standard(self):
        return self.pays == NAMED["standard"]

    def __str__(self):
        return next((name for name, pays in NAMED.items() if pays == self.pays), None) or \
            " ".join(f"{symbol}{n}" for symbol, n in zip(COURTS, self.pays))

    def hand(self, hand):
        """A hand of codes as this variant plays it (what is no code left for the engine to refuse)."""
        codes = self.codes
        return [codes[card] if card in range(RANKS) else card for card in hand]

    def deal(self, deal):
        """A Deal as this variant plays it (the Deal itself under the standard rules)."""
        from .deal import Deal
        return deal if self.standard else Deal([self.hand(hand) for hand in deal.hands])

    def deck(self, deck):
        """A Deck as this variant counts it: each card counted as the code it plays as."""
        from .decks import Deck
        counts = [0] * RANKS
        for card, count in enumerate(Deck.parse(deck).counts):
            counts[self.codes[card]] += count
        return Deck(tuple(counts))


STANDARD = Variant()
