"""Cards: the rank codes every engine uses, and reading and writing card names.

A card is stored as its penalty, so the code is the rule: 0 plain, 1 jack,
2 queen, 3 king, 4 ace. Suits and the values 2-10 never change play.
"""

from .errors import BadInput

PLAIN, JACK, QUEEN, KING, ACE = 0, 1, 2, 3, 4
PENALTIES = (PLAIN, JACK, QUEEN, KING, ACE)
#: How many codes a card plays as: a deck's counts and every engine's tables have one each.
CODES = len(PENALTIES)

#: The symbol each code is written with in the record notation.
SYMBOLS = "-JQKA"

NAMES = {PLAIN: "plain card", JACK: "jack", QUEEN: "queen", KING: "king", ACE: "ace"}

# Every accepted spelling of one card, upper-cased. "10" is the only one with
# two characters; "1" alone is not a card.
_CODES = {"-": PLAIN, "X": PLAIN, "T": PLAIN, "10": PLAIN, "J": JACK, "Q": QUEEN, "K": KING, "A": ACE}
_CODES.update({str(v): PLAIN for v in range(2, 10)})

#: Suit marks that may follow a rank; they are read and ignored.
SUIT_MARKS = frozenset("SHDCshdc\u2660\u2665\u2666\u2663\u2664\u2661\u2662\u2667")


class CardError(BadInput, ValueError):
    """A card name that is not one of the accepted spellings."""


def written(hand):
    """A hand (codes, top card first) in the record notation's symbols: 'K--Q-'."""
    return "".join(SYMBOLS[c] for c in hand)


def code(name):
    """The code of one card name: '-', '2'-'9', 'T', '10', 'X', 'J', 'Q', 'K', 'A'.

    A trailing suit mark ('KS', '10h', 'A\u2660') is ignored. An int 0-4 is
    taken as a code already.
    """
    if isinstance(name, int) and not isinstance(name, bool):
        if name in PENALTIES:
            return name
        raise CardError(f"unknown card code {name!r} (codes are 0-4)")
    if not isinstance(name, str):
        raise CardError(f"a card is a name such as 'K' or '7', not {type(name).__name__}")
    text = name.strip()
    if len(text) > 1 and text[-1] in SUIT_MARKS and text[:-1].upper() in _CODES:
        text = text[:-1]
    try:
        return _CODES[text.upper()]
    except KeyError:
        raise CardError(f"unknown card {name!r}") from None
