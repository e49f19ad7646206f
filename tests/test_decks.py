"""Every deck and table: deck notation, seeded deals of any shape, every
engine generating and playing them alike (tests/engines.py's harness, on
tests/shapes.py's tables), and the generator's uniformity."""

import json
from collections import Counter
from importlib import resources

import pytest

from beggar import Deal, DealError
from beggar import _engine as compiled
from beggar import reference
from beggar.climbing import ClimbRules
from beggar.decks import NAMED, STANDARD, Deck, DeckError, check_table, deal_out, hand_sizes
from beggar.shuffle import shuffled_deck
from engines import agree
from shapes import TABLES


def test_named_decks_are_those_of_the_shipped_data():
    decks = json.loads(resources.files("beggar").joinpath("data", "other-decks.json").read_text())["decks"]
    assert set(decks) == set(NAMED)
    for name, counts in decks.items():
        assert Deck.parse(name).counts == tuple(counts[k] for k in ("plain", "J", "Q", "K", "A"))


@pytest.mark.parametrize("text, counts, shown", [
    ("standard", (36, 4, 4, 4, 4), "standard"),
    ("36 4J 4Q 4K 4A", (36, 4, 4, 4, 4), "standard"),
    ("28 4j 4q 4k", (28, 4, 4, 4, 0), "camicia"),
    ("18, 2J, 2Q, 2K, 2A", (18, 2, 2, 2, 2), "half"),
    ("20- 2A", (20, 0, 0, 0, 2), "20 2A"),
    ("4J 4Q", (0, 4, 4, 0, 0), "4J 4Q"),
])
def test_deck_notation(text, counts, shown):
    deck = Deck.parse(text)
    assert deck.counts == counts and str(deck) == shown
    assert Deck.parse(str(deck)) == deck


@pytest.mark.parametrize("text, message", [
    ("pinochle", "unknown deck 'pinochle'"),
    ("", "the deck is empty"),
    ("30", "no court card"),
    ("4K", "two ranks at least"),
    ("300 4J", "304 cards; a deck holds at most 255"),
    ("10 2J 3J", "J counted twice"),
    ("10 2X", "cannot read '2X'"),
])
def test_nonsense_decks_are_refused(text, message):
    with pytest.raises(DeckError, match=message):
        Deck.parse(text)


def test_tables_are_checked():
    with pytest.raises(DeckError, match="cannot be dealt to 4 players"):
        check_table("1 1J 1Q", 4, None)
    with pytest.raises(DeckError, match="a split is for two players"):
        check_table("standard", 3, 10)
    with pytest.raises(DeckError, match="split must be a whole number from 1 to 39"):
        check_table("camicia", 2, 40)
    with pytest.raises(DeckError, match="players must be 2 to 4"):
        check_table("standard", 5, None)
    with pytest.raises(DealError, match="cannot be dealt to 3 players"):
        Deal.shuffled(3, 1, 0, deck="1J 1Q")


def test_dealing_one_at_a_time_the_leader_first():
    assert hand_sizes(52, 3) == [18, 17, 17] and hand_sizes(40, 4) == [10] * 4
    assert hand_sizes(26, 2, 5) == [5, 21]
    assert deal_out(list(range(7)), [2, 5]) == [[0, 2], [1, 3, 4, 5, 6]]
    assert deal_out(list(range(7)), [5, 2]) == [[0, 2, 4, 5, 6], [1, 3]]
    assert deal_out(list(range(7)), hand_sizes(7, 3)) == [[0, 3, 6], [1, 4], [2, 5]]


def test_the_standard_deals_of_every_seed_are_unchanged():
    # The 26/26 deals searches have always dealt: archives name them by seed and index.
    assert str(Deal.shuffled(2, 1, 0)) == "----K--AJ------J----------/KQJK--JQ-K--Q----AQ----A-A"
    deck = shuffled_deck(11, 5)
    assert Deal.shuffled(3, 11, 5).hands == tuple(tuple(deck[p::3]) for p in range(3))


@pytest.mark.slow
@pytest.mark.parametrize("deck, players, split", TABLES)
def test_both_engines_deal_and_play_every_table_alike(deck, players, split):
    n = 400
    fast = agree("sample", n, 7, 0, 3, Deck.parse(deck), players, split)
    assert len(fast) == n      # min_cards 0: every deal is a hit
    for i, (deal, outcome) in enumerate(fast):
        # Hit i is the deal the compiled engine dealt, and Deal.shuffled regenerates it alone.
        assert deal == Deal.shuffled(players, 7, 3 + i, deck, split)
        assert deal.deck() == Deck.parse(deck) and deal.players == players
        assert outcome == reference.play(deal)
    assert compiled.shuffled_deck(7, 3, deck) == shuffled_deck(7, 3, Deck.parse(deck))


@pytest.mark.parametrize("deck, players, split", TABLES[:9])
def test_both_engines_keep_the_same_hits_and_best(deck, players, split):
    fast = agree("sample_best", 3000, 2, 150, 0, Deck.parse(deck), players, split)
    assert fast[1] is not None


@pytest.mark.parametrize("deck, players, split", TABLES[:9])
@pytest.mark.parametrize("accept", ["late", "anneal"])
def test_both_engines_climb_every_table_alike(deck, players, split, accept):
    rules = ClimbRules(accept=accept, patience=40)
    fast = agree("climb", 5, 2, 300, 0, rules, Deck.parse(deck), players, split)
    assert len(fast.hits) == 300
    sizes = {tuple(len(hand) for hand in deal.hands) for deal, _ in fast.hits}
    if split != "random":
        assert sizes == {tuple(hand_sizes(Deck.parse(deck).total, players, split))}
    assert all(deal.deck() == Deck.parse(deck) for deal, _ in fast.hits)


def chi_square(counts, expected):
    return sum((observed - expected) ** 2 / expected for observed in counts)


@pytest.mark.parametrize("deck", ["standard", "camicia", "10 1J 1Q 1K 1A"])
def test_the_generator_is_uniform_over_positions(deck):
    """Each rank falls on each position of the deck equally often: a chi-square
    test per rank, fixed seed. An off-by-one (a position never or doubly drawn)
    puts the statistic far above the bound."""
    deck = Deck.parse(deck)
    n = 20000
    deals = [deal for deal, _ in compiled.sample(n, 12345, 0, 0, deck, 2, None)]
    for code, count in enumerate(deck.counts):
        if not count:
            continue
        per_position = Counter(position for deal in deals
                               for position, card in enumerate(deal.hands[0] + deal.hands[1]) if card == code)
        counts = [per_position[p] for p in range(deck.total)]
        statistic = chi_square(counts, n * count / deck.total)
        # Degrees of freedom total - 1; the bound is about the 99.99th percentile.
        bound = (deck.total - 1) + 4.5 * (2 * (deck.total - 1)) ** 0.5 + 10
        assert statistic < bound, (code, statistic, bound)


def test_random_split_is_uniform():
    deck = Deck.parse("half")
    n = 25000
    sizes = Counter(len(deal.hands[0]) for deal, _ in compiled.sample(n, 99, 0, 0, deck, 2, "random"))
    assert set(sizes) == set(range(1, deck.total))
    assert chi_square([sizes[k] for k in range(1, deck.total)], n / (deck.total - 1)) < 24 + 4.5 * 48 ** 0.5 + 10


def test_a_deal_knows_its_deck():
    assert Deal.shuffled(4, 3, 1, deck="camicia").deck() == Deck.parse("camicia")
    assert Deal.shuffled(2, 3, 1).deck() == STANDARD
    with pytest.raises(DealError, match="a camicia deck has 0 aces"):
        Deal.parse(str(Deal.shuffled(2, 3, 1)), deck="camicia")
