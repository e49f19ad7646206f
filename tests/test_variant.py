"""Variants (variant.py): what each court card pays, read and refused, played
on every engine, carried by a job into the archive, and taken at the command line."""

import json
import signal

import pytest

from beggar import engine
from beggar.archive import Archive
from beggar.climbing import ClimbRules
from beggar.deal import Deal
from beggar.decks import Deck
from beggar.rules import Rules
from beggar.variant import Variant, VariantError

import engines
from beggar.search import drivers, job
from helpers import bad_input, beggar, in_process, job_file, kept, start, wait_for_chunks


@pytest.mark.parametrize("text, pays, written", [
    ("standard", (1, 2, 3, 4), "standard"),
    ("Aces-Plain", (1, 2, 3, 0), "aces-plain"),
    ("J1 Q2 K3", (1, 2, 3, 0), "aces-plain"),
    ("a1, j4", (4, 0, 0, 1), "J4 Q0 K0 A1"),
    ("K2", (0, 0, 2, 0), "J0 Q0 K2 A0"),
])
def test_a_variant_is_read_from_its_name_or_its_table(text, pays, written):
    variant = Variant.parse(text)
    assert variant.penalties == pays
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
# hand pays 2 and has none left: 3 cards. Under aces-plain the ace is plain:
# A, -, then the jack is paid with the last card: 4 cards. 'J----/A' with J
# paying 4 and A 1: J, A (the first hand now owes 1), -; the second hand takes
# 3 cards and leads J, which the first hand's 3 cards cannot pay: 7 cards, 2
# tricks (6 cards, 1 trick under the standard rules, where A asks 4).
# Under lay-on the player to move lays until he turns up a court card. '--/J':
# the leader lays both his cards and has none: the second hand takes 2 cards
# (3 under the standard rules, where the J comes second). '-J/-/--': hand 1 lays - J, hand 2 pays - and is out (3 cards); hand 1 lays
# - J, hand 3 pays - (3); hand 1 lays - - J, hand 3 pays his last - (4): 10
# cards, 3 tricks (5 and 1 under the standard rules). 'AJ/--' under cassell:
# A (plain) J, paid with -: 3; then A J again, paid with the last -: 6, 2 tricks.
HAND_PLAYED = [
    ("AJ/--", "standard", 0, 3, 1),
    ("AJ/--", "aces-plain", 0, 4, 1),
    ("J----/A", "standard", 1, 6, 1),
    ("J----/A", "J4 A1", 1, 7, 2),
    ("--/J", "lay-on", 1, 2, 1),
    ("--/J", "standard", 1, 3, 1),
    ("-J/-/--", "lay-on", 0, 10, 3),
    ("-J/-/--", "standard", 0, 5, 1),
    ("AJ/--", "cassell", 0, 6, 2),
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
    assert [row[2] for row in engine.play_batch(rows, engine=name, variant="aces-plain")] == [4, 5]
    with pytest.raises(ValueError, match="card codes 0-4"):
        engine.play_batch([[4, 9, 0, 0]], engine=name, variant="aces-plain")


def test_a_variant_counts_a_deck_and_writes_a_deal_as_they_play():
    plain_aces = Variant.parse("aces-plain")
    assert str(plain_aces.deck("standard")) == "40 4J 4Q 4K"
    assert str(Variant.parse("J4 Q2 K3 A1").deck("18 4J 2Q 2K 1A")) == "18 1J 2Q 2K 4A"
    assert str(Variant.parse("J4 A1").deck("half")) == "22 2J 2A"
    assert str(Variant.parse("K1").deck("half")) == "24 2J"
    assert str(plain_aces.deal(Deal.parse("AKJ-/QA--"))) == "-KJ-/Q---"
    with pytest.raises(VariantError, match="deck camicia under the variant J0 Q0 K0 A1 plays as 40: it has no court"):
        Variant.parse("A1").deck("camicia")
    assert Variant([1, 2, 3, 4]).standard and Variant([1, 2, 3, 4]) == Variant()


@pytest.mark.parametrize("variant", ["aces-plain", "J1 Q1 K2 A2", "J4 Q0 K0 A3"])
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
    """A job of the standard deck under aces-plain rules is the job of the
    deck its cards play as: the same games kept, its spec naming the variant."""
    given = job_file(tmp_path, "given", min_cards=1000, deals=40_000, extra='deck = "standard"\nvariant = "aces-plain"\n')
    played = job_file(tmp_path, "played", min_cards=1000, deals=40_000, extra='deck = "40 4J 4Q 4K"\n')
    for path in (given, played):
        result = beggar("search", path, "--archive", tmp_path / f"{path.stem}.sqlite")
        assert result.returncode == 0, result.stderr
    assert "40 4J 4Q 4K deck (variant aces-plain)" in in_process("archive", "jobs", "--archive",
                                                               tmp_path / "given.sqlite").stdout
    with Archive(tmp_path / "given.sqlite") as archive:
        ((_, spec),) = archive.jobs()
    assert (spec["deck"], spec["variant"]) == ("40 4J 4Q 4K", "aces-plain")
    games = kept(tmp_path / "given.sqlite")
    assert games and games == kept(tmp_path / "played.sqlite")
    assert all("A" not in deal for deal in games)
    with Archive(tmp_path / "given.sqlite") as archive:
        first = archive.games()[0]["id"]
    exported = json.loads(in_process("archive", "export", first, "--archive", tmp_path / "given.sqlite").stdout)
    assert exported["provenance"]["played_under"] == "aces-plain" and "variant" not in exported


def killed_resumed_and_whole(tmp_path, path):
    """Job file `path` killed after two chunks and resumed to its end, then
    played whole into whole.sqlite: the first archive's path."""
    stopped = tmp_path / "stopped.sqlite"
    job = start("search", path, "--archive", stopped, "--quiet")
    name = wait_for_chunks(stopped, 2, job)
    job.send_signal(signal.SIGKILL)
    job.communicate(timeout=30)
    again = beggar("search", "--resume", name, "--archive", stopped, "--quiet")
    assert again.returncode == 0 and "done (budget spent)" in again.stdout, again.stderr
    whole = beggar("search", path, "--archive", tmp_path / "whole.sqlite", "--quiet")
    assert whole.returncode == 0, whole.stderr
    return stopped


def test_a_job_whose_variant_moves_the_ranks_resumes_as_stored(tmp_path):
    """Stored as it plays: the deck is not counted again under the variant
    when the stopped job is read back to go on (counted again, its jacks
    and aces would trade places back), and the job resumed keeps what one
    never stopped keeps."""
    extra = 'deck = "36 2J 4Q 4K 6A"\nvariant = "J2 Q3 K4 A1"\n'
    path = job_file(tmp_path, "moved", min_cards=2500, deals=200_000, chunk=10_000, extra=extra)
    stopped = killed_resumed_and_whole(tmp_path, path)
    with Archive(stopped) as opened:
        ((_, spec),) = opened.jobs()
    assert (spec["deck"], spec["variant"]) == ("36 6J 2Q 4K 4A", "J2 Q3 K4 A1")
    assert kept(stopped) == kept(tmp_path / "whole.sqlite") and kept(stopped)


def test_the_shipped_job_plays_the_standard_deck_under_aces_plain():
    spec = job.load("aces-plain")
    assert (spec["deck"], spec["variant"], spec["driver"]) == ("40 4J 4Q 4K", "aces-plain", "sample")


def test_a_stored_spec_is_read_back_with_its_deck_as_it_plays():
    """Counted again under "J0 Q0 K0 A1", the jacks of "48 4J" (its aces as
    played) would pay nothing: a deck of no court card, a spec read as damaged."""
    spec = job.check({"driver": "sample", "variant": "J0 Q0 K0 A1", "seed": 1})
    assert (spec["deck"], spec["variant"]) == ("48 4J", "J0 Q0 K0 A1")
    assert job.stored(dict(spec))["deck"] == "48 4J"


@pytest.mark.parametrize("driver", [driver.name for driver in drivers.ALL if driver.name != "eliminate"])
def test_every_driver_s_job_names_its_variant(driver):
    spec = job.check({"driver": driver, "variant": "J1 Q2 K3", "seed": 1})
    assert drivers.of(spec).describe(spec).startswith("40 4J 4Q 4K deck (variant aces-plain), ")


def test_the_command_line_takes_a_variant(tmp_path):
    result = in_process("play", "AJ/--", "--variant", "aces-plain")
    assert result.returncode == 0
    assert "variant  aces-plain" in result.stdout and "\ncards    4\n" in result.stdout
    shown = json.loads(in_process("play", "AJ/--", "--variant", "J1 Q2 K3", "--json").stdout)
    assert (shown["played_under"], shown["deal"], shown["cards"]) == ("aces-plain", "-J/--", 4)
    # A shuffled deal under a variant is the job's: dealt from the deck as it plays.
    shuffled = in_process("play", "--seed", 3, "--index", 2, "--variant", "aces-plain").stdout
    assert shuffled.splitlines()[1] == f"deal     {Deal.shuffled(2, 3, 2, Deck.parse('40 4J 4Q 4K'))}"
    bad_input(beggar("play", "AJ/--", "--variant", "A7"), "--variant", "A pays 7")
    bad_input(beggar("search", job_file(tmp_path, extra='variant = "house"\n'), "--archive", tmp_path / "a.sqlite"),
              "t.toml", "unknown variant 'house'")
    assert not (tmp_path / "a.sqlite").exists()


def test_a_saved_game_names_the_variant_its_deal_was_written_for(tmp_path):
    saved = tmp_path / "aces-plain.json"
    saved.write_text(json.dumps({"deal": "AJ/--", "variant": "aces-plain",
                                 "expected": {"status": "finished", "cards": 4, "tricks": 1}}))
    verified = beggar("verify", saved)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "all OK" in verified.stdout
    played = in_process("play", saved).stdout
    assert "variant  aces-plain" in played and "deal     -J/--" in played
    assert in_process("play", saved, "--variant", "aces-plain").stdout == played
    bad_input(beggar("play", saved, "--variant", "J1 Q2 K3 A1"), "aces-plain.json",
              "its field 'variant' already says how its cards pay (aces-plain)")
    saved.write_text(json.dumps({"deal": "AJ/--", "variant": "A6"}))
    bad_input(beggar("play", saved), "aces-plain.json", "field 'variant'", "A pays 6")


# ---------------------------------------------------------------- lay-on: Cassell's trick

@pytest.mark.parametrize("text, pays, lay_on, written", [
    ("cassell", (1, 2, 3, 0), True, "cassell"),
    ("J1 Q2 K3 lay-on", (1, 2, 3, 0), True, "cassell"),
    ("Lay-On", (1, 2, 3, 4), True, "lay-on"),
    ("lay-on, J4 A1", (4, 0, 0, 1), True, "J4 Q0 K0 A1 lay-on"),
    ("aces-plain lay-on", (1, 2, 3, 0), True, "cassell"),
])
def test_a_variant_that_lays_on_is_read_and_written(text, pays, lay_on, written):
    variant = Variant.parse(text)
    assert (variant.penalties, variant.lay_on, str(variant)) == (pays, lay_on, written)
    assert Variant.parse(str(variant)) == variant and not variant.standard
    assert variant.trick == Variant(lay_on=True) and str(variant.trick) == "lay-on"


def test_lay_on_given_twice_is_refused():
    with pytest.raises(VariantError, match="lay-on given twice"):
        Variant.parse("lay-on J1 lay-on")


@pytest.mark.parametrize("players, deck", [(2, "standard"), (3, "standard"), (4, "half"), (2, "18 2J 2Q 2K 2A")])
def test_the_engines_agree_on_lay_on_games_and_their_limits(players, deck):
    """Every game of a lay-on sample, and each again with a limit of tricks
    and of cards, the same on both engines: the compiled engine plays every
    table's lay-on trick by its n-player trick, not its two-player one."""
    hits = engines.agree("sample", 1500, 5, 0, 0, Deck.parse(deck), players, None, True)
    assert len(hits) == 1500
    assert hits != engine.sample(1500, 5, 0, players=players, deck=deck)
    for deal, outcome in hits[:150]:
        for limits in ({"max_tricks": max(1, outcome.tricks // 2)}, {"max_cards": max(1, outcome.cards // 3)}):
            compiled = engine.play(deal, variant="lay-on", **limits)
            assert compiled == engine.play(deal, variant="lay-on", engine="reference", **limits)
            assert compiled.status == "stopped"


def test_the_engines_agree_on_lay_on_climbs_batches_and_censuses():
    deck = Deck.parse("12 2J 2Q 2K")
    assert engines.agree("census", 0, 20_000, deck, 3, None, 5, True).statuses["finished"] == 20_000
    assert engines.agree("climb", 4, 0, 600, 500, ClimbRules(), Deck.parse("40 4J 4Q 4K"), 2,
                         None, True).hits
    rows = [[code for hand in deal.hands for code in hand] for deal in (Deal.shuffled(2, 9, i) for i in range(60))]
    batch = engine.play_batch(rows, variant="lay-on")
    assert (batch == engine.play_batch(rows, variant="lay-on", engine="reference")).all()
    assert list(batch["cards"]) == [engine.play(Deal.from_codes((row[:26], row[26:])), variant="lay-on").cards
                                    for row in rows]


def test_the_kernels_refuse_lay_on_in_one_line():
    gpu = engine.get("gpu-host")
    for call in (lambda: gpu.sample(10, 1, 0, 0, Deck.parse("standard"), 2, None, True),
                 lambda: gpu.play_batch([[1, 0, 0, 0]], None, Rules(lay_on=True)),
                 lambda: gpu.census(0, 10, Deck.parse("8 2J 2Q"), 2, None, 1, True)):
        with pytest.raises(engine.EngineError, match="kernels play the standard trick; a variant that lays on"):
            call()
    # A game alone is the compiled engine's, on every engine: it lays on.
    assert gpu.play(Deal.parse("--/J"), Rules(lay_on=True)).cards == 2


def test_a_lay_on_job_keeps_its_games_under_their_trick(tmp_path):
    """A sample job under cassell: its games are kept with their trick in
    their rules (apart from the same deals' standard games), checked by the
    reference engine under it, exported and replayed with it; its chunks
    the same stopped and resumed as played whole."""
    path = job_file(tmp_path, "cassell", min_cards=3000, deals=60_000, chunk=10_000, extra='variant = "cassell"\n')
    stopped = killed_resumed_and_whole(tmp_path, path)
    games = kept(stopped)
    assert games and games == kept(tmp_path / "whole.sqlite")
    with Archive(stopped) as archive:
        ((_, spec),) = archive.jobs()
        rows = archive.games()
    assert (spec["deck"], spec["variant"]) == ("40 4J 4Q 4K", "cassell")
    assert all(row["rules"]["lay_on"] and row["compiled"] == {**row["reference"], "engine": "compiled"}
               for row in rows)
    deal = rows[0]["deal"]
    assert engine.play(deal, variant="lay-on").cards == rows[0]["cards"] != engine.play(deal).cards
    exported = tmp_path / "game.json"
    assert in_process("archive", "export", rows[0]["id"], exported, "--archive", stopped).returncode == 0
    assert json.loads(exported.read_text())["variant"] == "lay-on"
    replayed = in_process("replay", exported).stdout
    assert "variant  lay-on\n" in replayed and "expected OK, as saved" in replayed
    shown = in_process("archive", "report", tmp_path / "r.html", "--archive", stopped)
    assert shown.returncode == 0
    assert f"beggar play --variant lay-on {deal}" in (tmp_path / "r.html").read_text()


def test_a_lay_on_census_keeps_its_loops_as_games_and_no_record(tmp_path):
    """Lay-on games loop too ('6 4J', 5/5: one loop of 38 tricks). The
    archive's loops are the standard trick's, so a lay-on loop game is kept
    with no loop of the archive's, announced as nothing new, and read back
    whole; the published records' listing leaves lay-on games out."""
    path = tmp_path / "c.sqlite"
    census = beggar("census", "6 4J", "--variant", "lay-on", "--archive", path, "--quiet")
    assert census.returncode == 0, census.stderr
    assert "NEW LOOP" not in census.stdout + census.stderr
    with Archive(path) as archive:
        looped = archive.games(status="loop")
        assert len(looped) == 37 and {game["loop"] for game in looped} == {None}
        assert not archive.loops()
    assert in_process("archive", "show", looped[0]["id"], "--archive", path).returncode == 0
    assert in_process("archive", "report", tmp_path / "r.html", "--archive", path).returncode == 0
    deal = Deal.parse("J-AKQ----K---K-Q-----JJ-Q-/--A----J-Q----A-A------K--")
    with Archive(tmp_path / "records.sqlite") as archive, archive.transaction():
        for rules in (Rules(), Rules(lay_on=True)):
            outcome = engine.play(deal, variant=Variant(lay_on=rules.lay_on))
            archive.add_game(deal, rules, outcome, outcome)
    with Archive(tmp_path / "records.sqlite") as archive:
        assert [game["rules"].get("lay_on") for game in archive.games(record_cards=1)] == [None]


@pytest.mark.parametrize("driver, extra, fragment", [
    ("hunt", "", "the hunt driver's walks and backward play are the standard trick's"),
    ("sample", 'engine = "gpu-host"\n', "which the gpu-host engine's kernels do not play"),
])
def test_a_job_that_cannot_lay_on_is_refused(tmp_path, driver, extra, fragment):
    path = job_file(tmp_path, driver=driver, extra='variant = "lay-on"\n' + extra)
    bad_input(beggar("search", path, "--archive", tmp_path / "a.sqlite"), "t.toml", "variant lay-on lays on",
              fragment)
    assert not (tmp_path / "a.sqlite").exists()


def test_a_stopped_lay_on_job_resumed_on_a_kernel_engine_is_refused_before_it_starts(tmp_path):
    path = job_file(tmp_path, deals=10 ** 9, chunk=10_000, extra='variant = "lay-on"\n')
    archive = tmp_path / "a.sqlite"
    job = start("search", path, "--archive", archive, "--quiet")
    name = wait_for_chunks(archive, 1, job)
    job.send_signal(signal.SIGKILL)
    job.communicate(timeout=30)
    before = kept(archive)
    refused = beggar("search", "--resume", name, "--archive", archive, "--engine", "gpu-host")
    bad_input(refused, f"job {name}: variant lay-on lays on", "--engine compiled")
    assert kept(archive) == before


def test_backward_play_refuses_lay_on():
    bad_input(beggar("basin", "AJ/--", "--variant", "cassell"), "basin plays back by the standard trick")
    bad_input(beggar("family", "AJ/--", "--variant", "lay-on"), "family plays back by the standard trick")
