"""Deals: one hand per player, top card first; reading, checking and printing them.

Every input error is a DealError whose message says what is wrong and where
(the position in the text, or the hand and card), so that a command can print
it as one line.
"""

from collections import Counter
from numbers import Integral

from . import cards
from .cards import CODES, CardError
from .checks import cut, listed
from .decks import MAX_PLAYERS, MIN_PLAYERS, STANDARD, Deck, DeckError, check_table, written
from .errors import BadInput
from .rules import Rules
from .shuffle import Stream, check_seed, deal_from

#: Beyond this a deal is surely a mistake; it also bounds the engines' buffers.
MAX_CARDS = 65535

#: The `deck` a deal is checked against: "any" (no check), or a deck (decks.py).
ANY = "any"


class DealError(BadInput, ValueError):
    """A deal that cannot be read or breaks the rules of a deal."""


class Deal:
    """One hand per player, each a tuple of card codes (0-4), top card first.

    The first hand leads. Build one from lists of card names
    (`Deal([["K", "-", ...], [...]])`), from the record notation
    (`Deal.parse("K-KK.../---Q...")`) or from a seed (`Deal.shuffled(...)`).
    `deck="standard"` (or any deck of decks.py) also demands exactly that deck;
    the default "any" takes any cards.
    """

    __slots__ = ("hands",)

    # Every way to make a Deal checks its hands once (from_codes, checked,
    # shuffled), and a Deal cannot be changed after: so an engine given a
    # Deal is given 2-4 hands of codes 0-4 within MAX_CARDS, whoever made it.
    def __setattr__(self, name, value):
        raise AttributeError(f"a Deal cannot be changed; make another (tried to set {name!r})")

    def __reduce__(self):
        return (Deal.from_codes, (self.hands,))

    def __init__(self, hands, deck="any"):
        if isinstance(hands, str):
            raise DealError("Deal() takes lists of card names; use Deal.parse() for text")
        try:
            hands = [list(hand) for hand in hands]
        except TypeError:
            raise DealError("a deal is a list of hands, each a list of card names") from None
        coded = []
        for h, hand in enumerate(hands, 1):
            row = []
            for i, name in enumerate(hand, 1):
                try:
                    row.append(cards.code(name))
                except CardError as error:
                    raise DealError(f"hand {h}, card {i}: {error}") from None
            coded.append(row)
        object.__setattr__(self, "hands", Deal.checked(coded, deck).hands)

    @classmethod
    def parse(cls, text, deck="any"):
        """Read the record notation: hands split by '/', top card first.

        Plain cards are '-', '2'-'9', 'T', '10' or 'X'; courts 'J', 'Q', 'K',
        'A'. Spaces and commas between cards are ignored, and so is a suit mark
        after a rank ('KS', '10h'). Errors name the 1-based position.
        """
        if not isinstance(text, str):
            raise DealError(f"a deal in record notation is text, not {type(text).__name__}")
        if not text.strip():
            raise DealError("the deal is empty")
        hands, columns = read_hands(text)
        return cls.checked(hands, deck, lambda h, i: f"position {columns[h - 1][i - 1]}")

    @classmethod
    def checked(cls, hands, deck="any", where=lambda h, i: f"hand {h}, card {i}"):
        """A deal from lists of codes, after the checks every deal passes: 2-4
        hands, none empty, at most MAX_CARDS cards, and `deck`. `where(h, i)`
        names the place of card i of hand h (both from 1) in an error."""
        _check_player_count(len(hands))
        for h, hand in enumerate(hands, 1):
            if not hand:
                raise DealError(f"hand {h} is empty")
        deal = cls.from_codes(hands)      # DealError past MAX_CARDS cards (codes_of)
        if deck == ANY:
            return deal
        try:
            deck = Deck.parse(deck)
        except DeckError as error:
            raise DealError(str(error)) from None
        seen = Counter()
        for h, hand in enumerate(deal.hands, 1):
            for i, c in enumerate(hand, 1):
                seen[c] += 1
                if seen[c] > deck.counts[c]:
                    name = cards.NAMES[c]
                    raise DealError(f"{where(h, i)}: {name} number {seen[c]}; "
                                    f"a {deck} deck has {deck.counts[c]} {name}s")
        if deal.total != deck.total:
            raise DealError(f"{deal.total} cards: a {deck} deck has {deck.total}")
        return deal

    @classmethod
    def shuffled(cls, players=2, seed=0, index=0, deck=STANDARD, split=None):
        """Deal number `index` of `seed`: `deck` (a Deck or its name or
        notation) shuffled and dealt one card at a time, the leader first, as
        evenly as possible; for two players, `split` may give the first hand's
        size, or be "random" (drawn for each deal). See shuffle.py."""
        _check_player_count(players)
        check_seed(seed)
        check_seed(index, "index")
        try:
            deck, players, split = check_table(deck, players, split)
        except DeckError as error:
            raise DealError(str(error)) from None
        # Dealt from a checked deck to players it can be dealt to: every hand
        # holds a card, so the checks of from_codes hold already.
        deal = cls.__new__(cls)
        object.__setattr__(deal, "hands", tuple(tuple(hand) for hand in deal_from(Stream(seed, index), deck,
                                                                                  players, split)))
        return deal

    @classmethod
    def from_codes(cls, hands):
        """A deal from sequences of codes 0-4, one per hand (an engine's
        output, a state's hands): 2-4 hands, the first (the leader's) and one
        more holding a card, at most MAX_CARDS cards. Other hands may be empty
        (players who are out of a game of 3 or 4). DealError otherwise."""
        deal = cls.__new__(cls)
        object.__setattr__(deal, "hands", check_hands(hands))
        return deal

    @property
    def players(self):
        return len(self.hands)

    @property
    def total(self):
        return sum(len(hand) for hand in self.hands)

    def counts(self):
        """How many cards of each code (plain, J, Q, K, A) the deal holds."""
        held = Counter(c for hand in self.hands for c in hand)
        return tuple(held[c] for c in range(CODES))

    def deck(self):
        """The Deck of this deal's cards (DealError if no deck could hold them)."""
        try:
            return Deck(self.counts())
        except DeckError as error:
            raise DealError(str(error)) from None

    def deck_written(self):
        """The deal's cards as a deck is written (decks.written), whatever they are."""
        return written(self.counts())

    def is_standard(self):
        """True for exactly the 52-card deck."""
        return self.counts() == STANDARD.counts

    def __str__(self):
        return "/".join(cards.written(hand) for hand in self.hands)

    def __repr__(self):
        return f"Deal.parse({str(self)!r})"

    def __eq__(self, other):
        return isinstance(other, Deal) and self.hands == other.hands

    def __hash__(self):
        return hash(self.hands)


def check_play(deal, rules):
    """TypeError unless `deal` is a Deal and `rules` a Rules, as an engine's
    play() takes them: both are checked when made and cannot be changed."""
    if not isinstance(deal, Deal):
        raise TypeError(f"play() takes a Deal, not {type(deal).__name__}")
    if not isinstance(rules, Rules):
        raise TypeError(f"play() takes its rules as a Rules, not {type(rules).__name__}")


def read_hands(text, place=lambda column: f"position {column}"):
    """Split record notation into hands of codes, with the 1-based column of
    every card: (hands, columns). `place(column)` names a column in an error."""
    hands, columns = [[]], [[]]
    i, n, cards_read = 0, len(text), 0
    while i < n:
        ch = text[i]
        if ch == "/":
            hands.append([])
            columns.append([])
            i += 1
        elif ch.isspace() or ch == ",":
            i += 1
        else:
            size = 2 if text[i:i + 2] == "10" else 1
            try:
                code = cards.code(text[i:i + size])
            except CardError:
                raise DealError(f"{place(i + 1)}: unknown card {ch!r}") from None
            hands[-1].append(code)
            columns[-1].append(i + 1)
            cards_read += 1
            if cards_read > MAX_CARDS:      # stop at once: the rest may be huge
                raise DealError(f"{place(i + 1)}: more than {MAX_CARDS} cards; a deal holds at most {MAX_CARDS}")
            i += size
            if i < n and text[i] in cards.SUIT_MARKS:
                i += 1
    return hands, columns


def check_hands(hands):
    """`hands` as a deal's tuples of codes, after the checks of from_codes."""
    coded = codes_of(hands)
    # The first hand leads, so it holds a card; a game of one hand with
    # cards is over before it starts (the engines would not agree on it).
    if not coded[0]:
        raise DealError("hand 1 is empty: the first hand leads, so it holds a card")
    if not any(coded[1:]):
        raise DealError("only hand 1 holds cards: a game needs two hands with cards")
    return coded


def codes_of(hands):
    """`hands` as tuples of codes, when they are 2-4 sequences of codes 0-4
    (ints, NumPy's too) of at most MAX_CARDS cards in all; else DealError
    naming the hand and the card. Empty hands are left to the caller."""
    hands = listed(hands, lambda: DealError(f"a deal is a list of hands, each a list of card codes 0-4, "
                                            f"not {cut(hands)}"))
    _check_player_count(len(hands))
    coded, total = [], 0
    for h, hand in enumerate(hands, 1):
        if isinstance(hand, str):
            raise DealError(f"hand {h}: a hand is a list of card codes 0-4, not {cut(hand)}")
        try:
            row = tuple(hand)
        except TypeError:
            raise DealError(f"hand {h}: a hand is a list of card codes 0-4, not {cut(hand)}") from None
        total += len(row)
        if total > MAX_CARDS:
            raise DealError(f"more than {MAX_CARDS} cards: a deal holds at most {MAX_CARDS}")
        # The common case, plain ints 0-4, at the speed of a set test.
        if not (all(type(c) is int for c in row) and _CODES.issuperset(row)):
            for i, c in enumerate(row, 1):
                if isinstance(c, bool) or not isinstance(c, Integral) or not 0 <= c <= 4:
                    raise DealError(f"hand {h}, card {i}: {cut(c)} is not a card code (codes are 0-4)")
            row = tuple(int(c) for c in row)
        coded.append(row)
    return tuple(coded)


_CODES = frozenset(cards.PENALTIES)


def _check_player_count(players):
    if isinstance(players, bool) or not isinstance(players, int):
        raise DealError(f"the number of players is a whole number, not {players!r}")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise DealError(f"{players} player{'' if players == 1 else 's'}: "
                        f"a deal has {MIN_PLAYERS} to {MAX_PLAYERS} hands")

