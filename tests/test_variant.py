"""Variants (variant.py): what each court card pays, read and refused, played
on every engine, carried by a job into the archive, and taken at the command line."""

import json

import pytest

from beggar import engine
from beggar.archive import Archive
from beggar.deal import Deal
from beggar.decks import Deck
from beggar.variant import Variant, VariantError

import engines
from helpers import bad_input, beggar, in_process, job_file, job_id, kept


@pytest.mark.parametrize("text, pays, written", [
    ("standard", (1, 2, 3, 4), "standard"),
    ("Cassell", (1, 2, 3, 0), "cassell"),
    ("J1 Q2 K3", (1, 2, 3, 0), "cassell"),
    ("a1, j4", (4, 0, 0, 1), "J4 Q0 K0 A1"),
    ("K2", (0, 0, 2, 0), "J0 Q0 K2 A0"),
])
def test_a_variant_is_read_from_its_name_or_its_table(text, pays, written):
    variant = Variant.parse(text)
    assert variant.pays == pays
    assert str(variant) == written
    assert Variant.parse(str(variant)) == variant


@pytest.mark.parametrize("text, fragment", [
    ("", "the variant is empty"),
    ("house", "unknown variant 'house'"),
    ("J1 X2", "cannot read 'X2'"),
    ("J1 J2", "J given twice"),
    ("A5", "A pays 5; a card pays 0 to 4"),
    ("J0", "no card pays"),
    ("Jx", "unknown variant"),
    (4, "not 4"),
])
def test_a_variant_that_cannot_be_played_is_refused_in_words(text, fragment):
    with pytest.raises(VariantError, match=fragment):
        Variant.parse(text)


# Played by hand. 'AJ/--' under the standard rules: the ace asks 4, the second
# hand pays 2 and has none left: 3 cards. Under Cassell's the ace is plain:
# A, -, then the jack is paid with the last card: 4 cards. 'J----/A' with J
# paying 4 and A 1: J, A (the first hand now owes 1), -; the second hand takes
# 3 cards and leads J, which the first hand's 3 cards cannot pay: 7 cards, 2
# tricks (6 cards, 1 trick under the standard rules, where A asks 4).
HAND_PLAYED = [
    ("AJ/--", "standard", 0, 3, 1),
    ("AJ/--", "cassell", 0, 4, 1),
    ("J----/A", "standard", 1, 6, 1),
    ("J----/A", "J4 A1", 1, 7, 2),
]


@pytest.mark.parametrize("name", engines.NAMES)
@pytest.mark.parametrize("deal, variant, winner, cards, tricks", HAND_PLAYED)
def test_every_engine_plays_a_variant_as_it_is_played_by_hand(name, deal, variant, winner, cards, tricks):
    if engines.why_absent(name):
        pytest.skip(engines.why_absent(name))
    outcome = engine.play(deal, engine=name, variant=variant)
    assert (outcome.status, outcome.winner, outcome.cards, outcome.tricks) == ("finished", winner, cards, tricks)


@pytest.mark.parametrize("name", engines.EVERY_TABLE)
def test_a_batch_of_rows_is_played_under_a_variant(name):
    rows = [[4, 1, 0, 0], [1, 0, 0, 0]]
    assert [row[2] for row in engine.play_batch(rows, engine=name)] == [3, 5]
    assert [row[2] for row in engine.play_batch(rows, engine=name, variant="cassell")] == [4, 5]
    with pytest.raises(ValueError, match="card codes 0-4"):
        engine.play_batch([[4, 9, 0, 0]], engine=name, variant="cassell")


def test_a_variant_counts_a_deck_and_writes_a_deal_as_they_play():
    cassell = Variant.parse("cassell")
    assert str(cassell.deck("standard")) == "40 4J 4Q 4K"
    assert str(Variant.parse("J4 Q2 K3 A1").deck("18 4J 2Q 2K 1A")) == "18 1J 2Q 2K 4A"
    assert str(Variant.parse("J4 A1").deck("half")) == "22 2J 2A"
    assert str(Variant.parse("K1").deck("half")) == "24 2J"
    assert str(cassell.deal(Deal.parse("AKJ-/QA--"))) == "-KJ-/Q---"
    with pytest.raises(ValueError, match="no court card"):
        Variant.parse("A1").deck("camicia")


@pytest.mark.parametrize("variant", ["cassell", "J1 Q1 K2 A2", "J4 Q0 K0 A3"])
def test_the_engines_agree_on_a_variant_s_random_deals(variant):
    deck = Variant.parse(variant).deck("standard")
    hits = engines.agree("sample", 4000, 11, 600, 0, deck, 2, None)
    assert hits == engine.sample(4000, 11, 600, deck="standard", variant=variant)
    assert hits and all(deal.counts() == deck.counts for deal, _ in hits)
    # Each hit is the game of its deal under the variant, written as played.
    deal, outcome = hits[0]
    replayed = engine.play(deal, engine="reference")
    assert (replayed.status, replayed.cards, replayed.tricks) == (outcome.status, outcome.cards, outcome.tricks)


def test_a_job_carries_its_variant_into_the_archive_and_plays_its_deck(tmp_path):
    """A job of the standard deck under Cassell's rules is the job of the
    deck its cards play as: the same games kept, its spec naming the variant."""
    given = job_file(tmp_path, "given", min_cards=1000, deals=40_000, extra='deck = "standard"\nvariant = "cassell"\n')
    played = job_file(tmp_path, "played", min_cards=1000, deals=40_000, extra='deck = "40 4J 4Q 4K"\n')
    for path in (given, played):
        result = beggar("search", path, "--archive", tmp_path / f"{path.stem}.sqlite")
        assert result.returncode == 0, result.stderr
    assert "40 4J 4Q 4K deck (variant cassell)" in in_process("archive", "jobs", "--archive",
                                                               tmp_path / "given.sqlite").stdout
    with Archive(tmp_path / "given.sqlite") as archive:
        ((_, spec),) = archive.jobs()
    assert (spec["deck"], spec["variant"]) == ("40 4J 4Q 4K", "cassell")
    games = kept(tmp_path / "given.sqlite")
    assert games and games == kept(tmp_path / "played.sqlite")
    assert all("A" not in deal for deal in games)


def test_a_job_whose_variant_moves_a_rank_resumes_as_stored(tmp_path):
    """Stored as it plays: the deck is not counted again under the variant
    when the job is read back (the ace paying 1 becomes a jack; counted again
    the jacks would pay nothing, a deck of no court card)."""
    path = job_file(tmp_path, "moved", min_cards=5000, deals=20_000, extra='variant = "J0 Q0 K0 A1"\n')
    archive = tmp_path / "moved.sqlite"
    first = beggar("search", path, "--archive", archive)
    assert first.returncode == 0, first.stderr
    again = beggar("search", "--resume", job_id(first.stdout), "--archive", archive)
    assert again.returncode == 0, again.stderr
    with Archive(archive) as opened:
        ((_, spec),) = opened.jobs()
    assert (spec["deck"], spec["variant"]) == ("48 4J", "J0 Q0 K0 A1")


def test_the_command_line_takes_a_variant(tmp_path):
    result = in_process("play", "AJ/--", "--variant", "cassell")
    assert result.returncode == 0
    assert "variant  cassell" in result.stdout and "\ncards    4\n" in result.stdout
    shown = json.loads(in_process("play", "AJ/--", "--variant", "J1 Q2 K3", "--json").stdout)
    assert (shown["variant"], shown["deal"], shown["cards"]) == ("cassell", "-J/--", 4)
    # A shuffled deal under a variant is the job's: dealt from the deck as it plays.
    shuffled = in_process("play", "--seed", 3, "--index", 2, "--variant", "cassell").stdout
    assert shuffled.splitlines()[1] == f"deal     {Deal.shuffled(2, 3, 2, Deck.parse('40 4J 4Q 4K'))}"
    bad_input(beggar("play", "AJ/--", "--variant", "A7"), "--variant", "A pays 7")
    bad_input(beggar("search", job_file(tmp_path, extra='variant = "house"\n'), "--archive", tmp_path / "a.sqlite"),
              "t.toml", "unknown variant 'house'")
    assert not (tmp_path / "a.sqlite").exists()


def test_a_saved_game_names_the_variant_its_deal_was_written_for(tmp_path):
    saved = tmp_path / "cassell.json"
    saved.write_text(json.dumps({"deal": "AJ/--", "variant": "cassell",
                                 "expected": {"status": "finished", "cards": 4, "tricks": 1}}))
    verified = beggar("verify", saved)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "all OK" in verified.stdout
    played = in_process("play", saved).stdout
    assert "variant  cassell" in played and "deal     -J/--" in played
    bad_input(beggar("play", saved, "--variant", "J1 Q2 K3 A1"), "cassell.json", "plays under the variant cassell")
    saved.write_text(json.dumps({"deal": "AJ/--", "variant": "A6"}))
    bad_input(beggar("play", saved), "cassell.json", "field 'variant'", "A pays 6")
