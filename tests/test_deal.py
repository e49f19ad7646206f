"""Reading, checking and printing deals."""

import itertools

import pytest

from beggar import Deal, DealError
from beggar.shuffle import shuffled_deck

RECORD = "K-KK----K-A-----JAA--Q--J-/---Q---Q-J-----J------AQ--"


def test_record_notation_round_trip():
    deal = Deal.parse(RECORD, deck="standard")
    assert str(deal) == RECORD
    assert deal.players == 2 and deal.total == 52
    assert deal.hands[0][:4] == (3, 0, 3, 3)
    assert Deal.parse(str(deal)) == deal


def spelled(separator="", suits=""):
    """RECORD with its plain cards spelled in every accepted way, and suit marks."""
    plain = itertools.cycle(["2", "3", "4", "5", "6", "7", "8", "9", "T", "10", "X", "-"])
    marks = itertools.cycle(suits or [""])
    hands = []
    for hand in RECORD.split("/"):
        hands.append(separator.join((next(plain) if c == "-" else c) + next(marks) for c in hand))
    return "/".join(hands)


@pytest.mark.parametrize("text", [
    spelled(),
    spelled(" ", "SHDC"),
    spelled(", ", "shdc"),
    spelled("", "\u2660\u2665\u2666\u2663"),
    RECORD.lower(),
])
def test_spellings_of_plain_cards_and_suits(text):
    assert str(Deal.parse(text, deck="standard")) == RECORD


def test_lists_of_card_names():
    deal = Deal([["2", "A", "7", "8", "Q", "10"], ["3", "4", "5", "6", "K", "9", "J"]])
    assert str(deal) == "-A--Q-/----K-J"
    assert Deal([[0, 4], ["K"]]).hands == ((0, 4), (3,))


def test_three_and_four_players():
    assert Deal.parse("J-/Q-/--/A").players == 4
    deal = Deal.shuffled(players=3, seed=7)
    assert [len(h) for h in deal.hands] == [18, 17, 17]
    assert deal.is_standard()


def test_shuffled_deals_one_card_at_a_time():
    deck = shuffled_deck(11, 5)
    deal = Deal.shuffled(2, seed=11, index=5)
    assert deal.hands == (tuple(deck[0::2]), tuple(deck[1::2]))
    assert Deal.shuffled(2, seed=11, index=6) != deal
    assert sorted(deck) == [0] * 36 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4


@pytest.mark.parametrize("text, message", [
    ("K-Z/--", "position 3: unknown card 'Z'"),
    ("K-1/--", "position 3: unknown card '1'"),
    ("K--/", "hand 2 is empty"),
    ("/K", "hand 1 is empty"),
    ("K--", "1 player: a deal has 2 to 4 hands"),
    ("J/Q/K/A/-", "5 players"),
    ("   ", "the deal is empty"),
])
def test_parse_errors_say_what_and_where(text, message):
    with pytest.raises(DealError) as error:
        Deal.parse(text)
    assert message in str(error.value)


def test_standard_deck_is_enforced_on_request():
    five_aces = "A" + RECORD[1:]          # a king turned into a fifth ace
    assert Deal.parse(five_aces).total == 52
    with pytest.raises(DealError, match=r"position 50: ace number 5; a standard deck has 4 aces"):
        Deal.parse(five_aces, deck="standard")
    with pytest.raises(DealError, match="51 cards: a standard deck has 52"):
        Deal.parse(RECORD[:-1], deck="standard")
    with pytest.raises(DealError, match="hand 1, card 5: queen number 5"):
        Deal([["Q"] * 5, ["-"]], deck="standard")
    with pytest.raises(DealError, match="unknown deck 'pinochle'"):
        Deal.parse(RECORD, deck="pinochle")


def test_list_errors_name_hand_and_card():
    with pytest.raises(DealError, match=r"hand 2, card 3: unknown card '11'"):
        Deal([["2"], ["3", "4", "11"]])
    with pytest.raises(DealError, match="hand 1 is empty"):
        Deal([[], ["3"]])
    with pytest.raises(DealError, match="use Deal.parse"):
        Deal(RECORD)


@pytest.mark.parametrize("seed", [-1, 2 ** 64, "7", 1.5])
def test_bad_seeds(seed):
    with pytest.raises(ValueError, match="seed must be an integer"):
        Deal.shuffled(2, seed=seed)
