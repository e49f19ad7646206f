"""Length histograms of every chunk (lengths.py), `beggar stats` and the odds
of long games (reports/odds.py: of every driver and table, a census's exact
counts, other tables aimed at their own record, --json that is JSON), fresh
seeds, plain progress lines and the announcement of a record or a new loop."""

import json
import shutil
import math
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from beggar import Deal, engine, lengths, loops, play
from beggar.archive import Archive
from beggar.climbing import ClimbRules
from beggar.decks import STANDARD, Deck
from beggar.lengths import Lengths
from beggar.search import job as jobs
from beggar.reports import odds
from beggar.search import announce
from beggar.search.drivers import ChunkResult, keep
from beggar.search.runner import Summary
from engines import agree
from helpers import CASELLA, MANN_WU, bad_input, beggar, fault, in_process, job_file, job_id, load_data

ROOT = Path(__file__).resolve().parents[1]


def chunk_histograms(path, job):
    with Archive(path) as archive:
        stats = archive.chunk_stats(job)
        deals = archive.job(job)["deals"]
    total = Lengths()
    for chunk in stats:
        total = total + Lengths(chunk["lengths"])
        assert sum(chunk["statuses"].values()) == sum(chunk["lengths"])
    return total, deals, len(stats)


# ---------------------------------------------------------------- the bins


def test_the_bins_cover_every_length_once_with_edges_at_every_hundred():
    assert [lengths.bin_of(c) for c in (0, 1, 2999, 3000, 3099, 3100, 9999, 10_000, 10 ** 9)] == \
        [0, 1, 2999, 3000, 3000, 3001, lengths.BINS - 2, lengths.BINS - 1, lengths.BINS - 1]
    for index in range(lengths.BINS - 1):
        assert lengths.bin_of(lengths.low(index)) == index == lengths.bin_of(lengths.high(index) - 1)
        assert lengths.high(index) == lengths.low(index + 1)
    assert lengths.high(lengths.BINS - 1) is None
    assert all(lengths.is_edge(c) for c in range(100, 10_001, 100))
    assert not lengths.is_edge(3050) and not lengths.is_edge(10_100)
    games = Lengths.of([5, 5, 2999, 3000, 3099, 8345, 12_000])
    assert games.games == 7 and games.at_least(3000) == 4 and games.at_least(8300) == 2
    assert games.at_least(10_000) == 1 and games.at_least(6) == 5
    with pytest.raises(ValueError, match="not a bin edge"):
        games.at_least(3050)
    assert games + Lengths.of([5]) == Lengths.of([5, 5, 5, 2999, 3000, 3099, 8345, 12_000])
    assert Lengths.from_exact({"5": 2, "8345": 1}) == Lengths.of([5, 5, 8345])
    assert Lengths([1, 0, 0]) == Lengths([1])


def test_lengths_has_a_short_repr():
    from beggar.lengths import Lengths
    histogram = engine.sample_best(1000, seed=1, min_cards=10 ** 6)[2]
    text = repr(histogram)
    assert len(text) < 80 and text.startswith("Lengths(1,000 games, the longest ") and text.endswith(" cards)")
    assert repr(Lengths()) == "Lengths(0 games)" and repr(Lengths.of([5000])) == \
        "Lengths(1 game, the longest 5000 to 5099 cards)"


# ---------------------------------------------------------------- the engines


@pytest.mark.parametrize("deck, players, split", [("standard", 2, None), ("camicia", 2, "random"),
                                                  ("half", 2, 7), ("standard", 3, None)])
def test_both_engines_count_every_game_of_sample_alike(deck, players, split):
    fast = agree("sample_best", 1500, 4, 10 ** 6, 100, Deck.parse(deck), players, split)[2]
    one_by_one = Lengths.of(play(Deal.shuffled(players, 4, i, deck, split), engine="reference").cards
                            for i in range(100, 1600))
    assert fast == one_by_one and fast.games == 1500


def test_the_histogram_counts_loops_at_their_cards():
    # A small deck, split at random: about one deal in 40 loops.
    fast = agree("sample_best", 2_000, 2, 10 ** 6, 0, Deck.parse("8 2J 1Q"), 2, "random")
    loops = [outcome.cards for _, outcome in fast[0] if outcome.status == "loop"]
    assert len(loops) > 10 and fast[2].games == 2_000
    assert all(fast[2].counts[cards] for cards in loops)


def test_both_engines_count_every_game_of_a_climb_alike():
    rules = ClimbRules(accept="late", patience=30)
    fast = agree("climb", 3, 1, 800, 10 ** 6, rules, STANDARD, 2, None)
    assert fast.lengths.games == 800


# ---------------------------------------------------------------- jobs


@pytest.mark.slow
def test_a_sample_job_keeps_the_histogram_of_every_deal_it_played(tmp_path):
    archive = tmp_path / "a.sqlite"
    spec = job_file(tmp_path, deals=9_000, chunk=2_000, min_cards=700)
    result = beggar("search", spec, "--archive", archive, "--quiet")
    assert result.returncode == 0, result.stderr
    total, deals, chunks = chunk_histograms(archive, job_id(result.stdout))
    assert chunks == 5 and deals == total.games == 9_000
    assert total == Lengths.of(play(Deal.shuffled(2, 3, i), engine="reference").cards for i in range(9_000))


@pytest.mark.slow
def test_a_climb_job_keeps_the_histogram_of_every_deal_it_played(tmp_path):
    archive = tmp_path / "a.sqlite"
    spec = job_file(tmp_path, driver="climb", deals=1_500, chunk=500, min_cards=700,
                    extra="[climb]\naccept = \"late\"\npatience = 50\n")
    result = beggar("search", spec, "--archive", archive, "--quiet")
    assert result.returncode == 0, result.stderr
    total, deals, chunks = chunk_histograms(archive, job_id(result.stdout))
    walks = [engine.climb(3, walk, 500, 700, ClimbRules(accept="late", patience=50), engine="reference")
             for walk in range(3)]
    assert chunks == 3 and total == walks[0].lengths + walks[1].lengths + walks[2].lengths
    assert total.games == deals == 1_500


@pytest.mark.slow
def test_a_resumed_job_has_the_histogram_of_one_never_stopped(tmp_path):
    spec = job_file(tmp_path, deals=20_000, chunk=2_000, min_cards=800)
    whole = tmp_path / "whole.sqlite"
    result = beggar("search", spec, "--archive", whole, "--quiet")
    assert result.returncode == 0, result.stderr
    name = job_id(result.stdout)
    # The same job, stopped before its last chunks were kept: as if killed then.
    cut = tmp_path / "cut.sqlite"
    with Archive(whole) as archive:
        archive.db.execute("VACUUM INTO ?", (str(cut),))
    with sqlite3.connect(cut) as db:
        db.execute("DELETE FROM chunks WHERE chunk >= 6")
        db.execute("UPDATE jobs SET state = 'stopped'")
    assert chunk_histograms(cut, name)[0].games == 12_000
    resumed = beggar("search", "--resume", name, "--archive", cut, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert chunk_histograms(cut, name) == chunk_histograms(whole, name)


@pytest.mark.slow
def test_two_default_runs_on_one_archive_play_different_deals(tmp_path):
    archive = tmp_path / "a.sqlite"
    runs = [beggar("search", "--deals", 30_000, "--min-cards", 600, "--archive", archive, "--quiet")
            for _ in range(2)]
    seeds = []
    for result in runs:
        assert result.returncode == 0, result.stderr
        seed = int(result.stderr.split("seed ")[1].split()[0])
        assert f"(fresh: --seed {seed} plays these deals again)" in result.stderr
        seeds.append(seed)
    with Archive(archive) as opened:
        jobs_kept = opened.jobs()
        games = [{g["deal"] for g in opened.games(job=name)} for name, _ in jobs_kept]
    assert [spec["seed"] for _, spec in jobs_kept] == seeds and seeds[0] != seeds[1]
    assert games[0] and games[1] and not games[0] & games[1]
    # --seed plays the first run's deals again.
    again = tmp_path / "again.sqlite"
    assert beggar("search", "--deals", 30_000, "--min-cards", 600, "--seed", seeds[0], "--archive", again,
                  "--quiet").returncode == 0
    with Archive(again) as opened:
        assert {g["deal"] for g in opened.games()} == games[0]


@pytest.mark.slow
def test_without_a_terminal_progress_is_plain_lines(tmp_path):
    spec = job_file(tmp_path, deals=400_000, chunk=20_000, min_cards=3000)
    result = beggar("search", spec, "--archive", tmp_path / "a.sqlite", env={"BEGGAR_PROGRESS_SECONDS": "0.2"})
    assert result.returncode == 0, result.stderr
    assert "\r" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if " deals/s" in line]
    assert lines and lines[-1].split(": ", 1)[1].startswith("400,000 of 400,000 deals (100.0 %)"), result.stderr
    assert len(lines) == len(set(lines))


# ---------------------------------------------------------------- announcements and the best

#: A balanced 10/10 deal of the half-camicia deck's loop, published nowhere.
LOOP_10_10 = "----J--Q--/--K-K-Q-J-"


def test_a_new_balanced_loop_is_announced_and_saved_next_to_the_archive(tmp_path):
    # A balanced 10/10 deal of the half-camicia deck's loop, published nowhere
    # (Casella's loop is published: known, so not announced).
    deal = Deal.parse(LOOP_10_10)
    casella = Deal.parse(CASELLA)
    spec = jobs.check({"seed": 1})
    heard = []
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.add_job("j", spec)
        summary = Summary("j", "running", 1)
        keep(archive, "j", spec, ChunkResult(0, 1000, [(casella, play(casella))], None, seconds=0.1), summary,
              heard.append)
        assert heard == []
        keep(archive, "j", spec, ChunkResult(1, 1000, [(deal, play(deal))], None, seconds=0.1), summary, heard.append)
        # Found again, it is not new.
        keep(archive, "j", spec, ChunkResult(2, 1000, [(deal, play(deal))], None, seconds=0.1), summary, heard.append)
    assert len(heard) == 1 and summary.announced == heard and "NEW LOOP" in heard[0] and str(deal) in heard[0]
    [saved] = (tmp_path / "a-finds" / "j").glob("loop-74-*.json")
    assert f"saved to {saved}" in heard[0]
    replayed = beggar("replay", saved)
    assert replayed.returncode == 0 and "loop: the game never ends" in replayed.stdout
    # A second archive whose finds go to the same folder (a.db beside a.sqlite),
    # keeping the same deal, finds it saved, truly.
    with Archive(tmp_path / "a.db") as other:
        other.add_job("j", spec)
        summary = Summary("j", "running", 1)
        keep(other, "j", spec, ChunkResult(0, 1000, [(deal, play(deal))], None, seconds=0.1), summary)
    assert f"saved before to {saved}" in summary.announced[0]


def test_a_saved_game_never_claims_a_file_that_holds_another_deal(tmp_path):
    deal = Deal.parse(LOOP_10_10)
    spec = jobs.check({"seed": 1})
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.add_job("j", spec)
        summary = Summary("j", "running", 1)
        keep(archive, "j", spec, ChunkResult(0, 1000, [(deal, play(deal))], None, seconds=0.1), summary)
    [saved] = (tmp_path / "a-finds" / "j").glob("loop-74-*.json")
    # The same name in another archive's folder of finds, holding another
    # deal (a file written by hand, another archive's), and a planted link.
    other = tmp_path / "other"
    (other / "a-finds" / "j").mkdir(parents=True)
    (other / "a-finds" / "j" / saved.name).write_text(f"{MANN_WU}\n")
    (other / "a-finds" / "j" / saved.name.replace(".json", "-2.json")).symlink_to(tmp_path / "nowhere.json")
    with Archive(other / "a.sqlite") as archive:
        archive.add_job("j", spec)
        summary = Summary("j", "running", 1)
        keep(archive, "j", spec, ChunkResult(0, 1000, [(deal, play(deal))], None, seconds=0.1), summary)
    third = other / "a-finds" / "j" / saved.name.replace(".json", "-3.json")
    assert f"saved to {third}" in summary.announced[0], summary.announced
    assert (other / "a-finds" / "j" / saved.name).read_text() == f"{MANN_WU}\n"
    assert not (tmp_path / "nowhere.json").exists()
    assert beggar("verify", third).returncode == 0


def test_a_record_is_announced_and_the_best_counts_extension_games(tmp_path, monkeypatch):
    # Beating 8344 cannot be arranged in a test: the published record stands in for a
    # longer one, with the bar lowered below it.
    monkeypatch.setattr(announce.published, "LONGEST_CARDS", 8000)
    record = next(g for g in load_data("published-deals.json") if g["cards"] == 8344)
    deal = Deal.parse(f"{record['p1']}/{record['p2']}")
    mann_wu = Deal.parse("K-KK----K-A-----JAA--Q--J-/---Q---Q-J-----J------AQ--")
    spec = jobs.check({"seed": 1, "extend_cards": 7000})
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.add_job("j", spec)
        summary = Summary("j", "running", 1)
        keep(archive, "j", spec, ChunkResult(0, 10, [(deal, play(deal))], (deal, play(deal)), seconds=0.1), summary)
        assert len(summary.announced) == 1 and "NEW RECORD: 8344 cards" in summary.announced[0]
        assert len(list((tmp_path / "a-finds" / "j").glob("record-8344-*.json"))) == 1
        # Mann and Wu 2007 (7157) is extended to Anderson 2013 (7225): the best of the chunk.
        outcome = play(mann_wu)
        summary = Summary("j", "running", 1)
        keep(archive, "j", spec, ChunkResult(1, 10, [(mann_wu, outcome)], (mann_wu, outcome), seconds=0.1), summary)
        assert summary.best[1].cards == 7225 and summary.extended == 1 and summary.best_extended
        assert archive.job("j")["best_cards"] == 8344
        assert max(row[0] for row in archive.db.execute("SELECT best_cards FROM chunks WHERE chunk = 1")) == 7225


# ---------------------------------------------------------------- beggar stats


SCALE = 200.0       # the tail of the archive below: exactly exponential beyond 2000 cards
BODY = 1_000_000    # games under 2000 cards
TAIL = 20_000       # games of 2000 cards or more


def known_archive(path):
    """An archive holding one sample job of two chunks whose lengths are known:
    1,000,000 games of 100 cards (chunk 0), and 20,000 whose lengths beyond
    2000 follow an exponential tail of scale 200 (chunk 1, bins rounded);
    4 s of chunks on 2 workers, and two family searches, gains 300 and 0."""
    counts = [0] * lengths.BINS
    counts[100] = BODY
    tail = [0] * lengths.BINS
    for index in range(lengths.bin_of(2000), lengths.BINS):
        low, high = lengths.low(index) - 2000, lengths.high(index)
        upper = 1.0 if high is None else 1 - math.exp(-(high - 2000 - low) / SCALE)
        tail[index] = round(TAIL * math.exp(-low / SCALE) * upper)
    spec = jobs.check({"seed": 1, "extend_cards": 2000, "workers": 2})
    parent = Deal.shuffled(2, 1, 1)
    with Archive(path) as archive:
        archive.add_job("known", spec)
        with archive.transaction():
            archive.add_chunk("known", 0, BODY, 0, 100, 1.0, {"statuses": {"finished": BODY},
                                                              "lengths": counts, "workers": 2})
            archive.add_chunk("known", 1, sum(tail), 0, 3000, 3.0, {"statuses": {"finished": sum(tail)},
                                                                   "lengths": tail, "workers": 2})
            outcome = play(parent)
            # Two kept games of 2000+ cards, as a job keeps them: one with an extension 300 cards longer.
            first, _ = archive.add_game(parent, jobs_rules(), longer(outcome, 2500), longer(outcome, 2500),
                                        "known", "sample")
            archive.add_game(Deal.shuffled(2, 1, 2), jobs_rules(), longer(outcome, 2800), longer(outcome, 2800),
                             "known", "extension", parent=first)
            archive.add_game(Deal.shuffled(2, 1, 3), jobs_rules(), longer(outcome, 2100), longer(outcome, 2100),
                             "known", "sample")
    return tail


def jobs_rules():
    from beggar import Rules
    return Rules()


def longer(outcome, cards):
    from dataclasses import replace
    return replace(outcome, status="finished", cards=cards)


def test_stats_gives_the_known_numbers_of_a_fixed_archive(tmp_path):
    path = tmp_path / "known.sqlite"
    counts = known_archive(path)
    tail = sum(counts)
    result = beggar("stats", "known", "--archive", path, "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    deals = BODY + tail
    assert figures["deals"] == deals and figures["statuses"]["finished"] == deals
    assert figures["rate"] == pytest.approx(deals / 4.0 * 2)
    rows = {row["cards"]: row for row in figures["survival"]}
    assert rows[1000]["games"] == rows[2000]["games"] == tail
    assert rows[3000]["games"] == sum(counts[3000:]) and rows[4000]["games"] == sum(counts[3010:])
    assert rows[1000]["low"] < tail / deals < rows[1000]["high"]
    assert rows[2000]["p"] == tail / deals and figures["median"] == 100
    assert figures["mean"] == pytest.approx(sum(c * ((lengths.low(i) + lengths.high(i) - 1) / 2 if lengths.high(i)
                                                     else lengths.low(i)) for i, c in enumerate(counts))
                                            / deals + 100 * BODY / deals)
    fit = figures["tail"]
    assert fit["from"] == 2000 and fit["games"] == tail and fit["p_from"] == tail / deals
    assert fit["scale"] == pytest.approx(SCALE, rel=0.01) and fit["scale_low"] < SCALE < fit["scale_high"]
    expected = {row["cards"]: row for row in figures["expected"]}
    assert sorted(expected) == [5000, 6000, 7000, 8345]
    p5000 = tail / deals * math.exp(-3000 / fit["scale"])
    assert expected[5000]["deals"] == pytest.approx(1 / p5000)
    assert expected[5000]["seconds"] == pytest.approx(1 / p5000 / figures["rate"])
    assert expected[5000]["deals_low"] < expected[5000]["deals"] < expected[5000]["deals_high"]
    # Gains 300 and 0: exponential of scale 150 at every length; from 2000 cards (extend_cards, the
    # tail's start) to 5000 the factor is 1 + (exp(k 3000) - 1) / (s k), k = 1/s - 1/150.
    extension = figures["extension"]
    assert extension["families"] == 2 and extension["mean_gain"] == 150 == extension["gain_scale"]
    assert extension["gain_scale_low"] < 150 < extension["gain_scale_high"]
    k = 1 / fit["scale"] - 1 / 150
    factor = 1 + math.expm1(k * 3000) / (fit["scale"] * k)
    assert expected[5000]["extension_factor"] == pytest.approx(factor) and 3.5 < factor < 4.5
    assert expected[5000]["extension_p"] == pytest.approx(tail / deals * math.exp(-3000 / fit["scale"]) * factor)
    assert expected[5000]["extension_deals_low"] < expected[5000]["extension_deals"] \
        < expected[5000]["extension_deals_high"]
    text = beggar("stats", "known", "--archive", path)
    assert text.returncode == 0 and "Wilson" in text.stdout and "maximum likelihood" in text.stdout
    assert "2 searched, mean gain 150 cards, largest 300; 'with extension' models the gain as exponential of " \
           "scale 150 cards" in text.stdout
    [row] = [line.split() for line in text.stdout.splitlines() if line.startswith("  5000 ")]
    assert row[-1] == f"x{factor:.1f}"


def test_the_survival_rows_are_scaled_to_the_deck_s_lengths():
    """A small deck's census printed one row, '1000  0  0', for a deck whose
    longest game is 517 cards."""
    assert [odds.row_step(cards) for cards in (5, 137, 517, 1499, 2999, 3761, 8344)] == \
        [1, 20, 100, 200, 500, 1000, 1000]
    spec = jobs.check({"driver": "census", "deck": "8 2J 2Q 1K"})
    for longest in (137, 517, 2000, 3761):
        played = odds.Played(["j"], spec, deals=1000, lengths=Lengths.of([10] * 990 + [longest // 2] * 9 + [longest]))
        rows = odds.survival(played)
        step = odds.row_step(longest)
        # Rows at step, 2 step, ... to the first past the longest game: every one counts games but that last.
        assert [row["cards"] for row in rows] == list(range(step, (longest // step + 1) * step + 1, step))
        assert rows[-1]["games"] == 0 and all(row["games"] for row in rows[:-1]) and len(rows) >= 4


def test_the_odds_read_the_histograms_and_the_families_not_every_game_kept(tmp_path):
    """The odds of `archive report` read every game the job kept (11-20 s and
    190 MB for 528,081 games): the games played are the chunks' histograms,
    and of the games kept only those of extend_cards and more are read (the
    families). A short game's row, damaged, is not read: stats and the
    report's odds say what they said, where a listing of every game tells."""
    path = tmp_path / "known.sqlite"
    known_archive(path)
    with Archive(path) as archive:
        with archive.transaction():
            outcome = play(Deal.shuffled(2, 1, 4))
            archive.add_game(Deal.shuffled(2, 1, 4), jobs_rules(), longer(outcome, 900), longer(outcome, 900),
                             "known", "sample")
    before = in_process("stats", "known", "--archive", path, "--json").stdout
    page = in_process("archive", "report", tmp_path / "before.html", "--archive", path)
    assert page.returncode == 0, page.stderr
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE games SET status = 'won', driver = x'00' WHERE cards = 900")
        db.commit()
    assert in_process("stats", "known", "--archive", path, "--json").stdout == before
    page = in_process("archive", "report", tmp_path / "after.html", "--archive", path)
    assert page.returncode == 0, page.stderr

    def odds_section(page):
        return page.read_text().split("<h2>Survival and odds</h2>")[1]
    assert odds_section(tmp_path / "after.html") == odds_section(tmp_path / "before.html")
    assert in_process("archive", "list", "--archive", path).returncode == 3
    # A long one, which the families are read from, is told.
    with closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE games SET status = 'won' WHERE cards = 2100")
        db.commit()
    fault(in_process("stats", "known", "--archive", path), "its status")


@pytest.mark.parametrize("gain_scale", [120.0, 200.0, 260.0])
def test_the_extension_factor_is_what_families_of_its_model_reach(gain_scale):
    """Games drawn from the tail (scale s, from T on), each carried on by a
    gain exponential of scale G whatever its length: the families that reach
    X over the games that do, counted, are the factor the formula gives, as
    it grows with X (below G = s towards s / (s - G), at G = s by one every
    s cards, above it without end)."""
    rng = np.random.default_rng(7)
    s, start = 200.0, 2400
    tail = odds.Tail(start, 1e-4, 1000, s, s, s)
    games = start + rng.exponential(s, 4_000_000)
    reached = games + rng.exponential(gain_scale, games.size)
    for cards in (2600, 3000, 3400):
        counted = np.count_nonzero(reached >= cards) / np.count_nonzero(games >= cards)
        assert odds.extension_factor(tail, gain_scale, start, cards) == pytest.approx(counted, rel=0.03), cards
    assert odds.extension_factor(tail, gain_scale, start, start) == 1.0
    assert odds.extension_factor(tail, 0.0, start, 8345) == 1.0        # no family longer: no gain


def test_the_gain_scale_s_range_is_the_exponential_s():
    gains = odds.fit_gains([50, 150] * 5)
    assert gains.scale == 100 and gains.families == 10
    # 2 n G / G_true is chi-square with 2n degrees of freedom: the tables' 2.5 % and 97.5 % points
    # of 20 degrees are 9.591 and 34.170.
    assert gains.scale_low == pytest.approx(2000 / 34.170, rel=0.002)
    assert gains.scale_high == pytest.approx(2000 / 9.591, rel=0.005)
    assert odds.fit_gains([]) is None


def test_wilson_interval_is_the_textbook_one():
    # 10 of 100: 0.0552 to 0.1744, as the textbooks give it.
    low, high = odds.wilson(10, 100)
    assert (round(low, 4), round(high, 4)) == (0.0552, 0.1744)
    assert odds.wilson(0, 100)[0] == 0 and 0.03 < odds.wilson(0, 100)[1] < 0.04


@pytest.mark.slow
def test_stats_draws_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "known.sqlite"
    known_archive(path)
    result = beggar("stats", "--archive", path, "--plot", tmp_path / "odds.png")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "odds.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_stats_says_in_one_line_what_it_cannot_do(tmp_path):
    path = tmp_path / "known.sqlite"
    known_archive(path)
    bad_input(beggar("stats", "nothing", "--archive", path), "no job 'nothing'")
    bad_input(beggar("stats", "known", "--archive", path, "--tail-from", 3050), "bin edge")
    bad_input(beggar("stats", "known", "--archive", path, "--tail-from", 9900), "too few to fit")
    bad_input(beggar("stats", "--archive", tmp_path / "none.sqlite"), "none.sqlite")


def test_stats_tells_times_past_ten_million_years_by_their_order_of_magnitude():
    from beggar.cli.stats import duration
    year = 365.25 * 86400
    assert duration(42) == "42 s"
    assert duration(3.5 * 3600) == "3.5 hours"
    assert duration(1234.5 * year) == "1,234.5 years"
    assert duration(4.6e33 * year) == "4.6e33 years"
    assert duration(math.inf) == "-"


def test_stats_of_a_loop_factory_job_says_what_it_is(tmp_path):
    path = tmp_path / "grow.sqlite"
    with Archive(path) as archive:
        archive.add_job("walks", jobs.check({"driver": "grow", "seed": 1}))
    line = bad_input(beggar("stats", "walks", "--archive", path), "job walks is a grow job of the loop factory")
    assert "before beggar kept them" not in line


def _resident_bytes():
    with open("/proc/self/statm") as file:
        return int(file.read().split()[1]) * 4096


@pytest.mark.slow
@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/statm"), reason="needs Linux's /proc")
def test_sampling_frees_its_histogram_every_chunk():
    # A worker samples chunk after chunk for days: 12 KiB kept per call was
    # hundreds of megabytes a day.
    compiled = engine.get("compiled")
    for index in range(200):
        compiled.sample_best(1, 1, 5000, index)
    before = _resident_bytes()
    for index in range(5000):
        compiled.sample_best(1, 1, 5000, index)
    assert _resident_bytes() - before < 8 * 2 ** 20


def test_stats_reads_jobs_written_before_family_extension(tmp_path):
    # tests/data/archive-v3.sqlite's job has a spec of that time: no extend_cards.
    path = tmp_path / "old.sqlite"
    shutil.copy(Path(__file__).with_name("data") / "archive-v3.sqlite", path)
    with Archive(path, link_loop=loops.of_deal) as archive:         # brought to the current format
        assert "extend_cards" not in archive.job("sample-old")["spec"]
    bad_input(beggar("stats", "--archive", path), "sample-old: no chunk with a length histogram")
    with Archive(path) as archive:
        with archive.transaction():
            archive.add_chunk("sample-old", 7, 1000, 0, 2500, 1.0,
                              {"statuses": {"finished": 1000}, "lengths": [0] * 2500 + [999, 1], "workers": 1})
    result = beggar("stats", "sample-old", "--archive", path, "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["deals"] == 1000 and figures["extension"]["families"] == 0


@pytest.mark.parametrize("value", ["soon", "0", "-5"])
def test_a_bad_progress_interval_is_one_line_and_no_job(tmp_path, value):
    spec = job_file(tmp_path, deals=40_000, chunk=20_000)
    bad_input(beggar("search", spec, "--archive", tmp_path / "a.sqlite", env={"BEGGAR_PROGRESS_SECONDS": value}),
              "BEGGAR_PROGRESS_SECONDS must be a number of seconds above 0", repr(value))
    assert not (tmp_path / "a.sqlite").exists()


@pytest.mark.slow
def test_stats_of_a_census_prints_its_counts_and_the_rate_it_ran_at(census_run):
    archive, run, job = census_run
    stats = beggar("stats", job, "--archive", archive)
    assert stats.returncode == 0, stats.stderr
    out = stats.stdout
    assert "Wilson" not in out and "nothing to predict" not in out and "targets" not in out
    assert "counts   exact: a census plays every deal of its block once" in out
    assert re.search(r"^ cards +games >= L +share$", out, re.M)
    # Rows scaled to the deck's lengths: each counts games but the last, the first past the longest.
    rows = [line.split() for line in out[out.index("games >= L"):out.index("counts   exact")].splitlines()[1:-1]]
    assert len(rows) >= 4 and all(int(games.replace(",", "")) for _, games, _ in rows[:-1]) and rows[-1][1] == "0"
    # One chunk was played, on one worker, whatever workers the job had.
    assert "(1 worker at the rate their chunks were played)" in out


@pytest.mark.slow
def test_stats_of_a_three_player_job_aims_at_the_table_s_known_record(tmp_path):
    archive = tmp_path / "a.sqlite"
    run = beggar("search", ROOT / "search" / "three-players.toml", "--deals", 20_000, "--workers", 1,
                 "--min-cards", 100_000, "--seed", 5, "--archive", archive, "--quiet")
    assert run.returncode == 0, run.stderr
    stats = beggar("stats", job_id(run.stdout), "--tail-from", 500, "--archive", archive)
    assert stats.returncode == 0, stats.stderr
    assert "three-players-4266 (the record shipped with beggar), 4266 cards" in stats.stdout
    targets = [int(line.split()[0]) for line in stats.stdout.split("targets  ")[1].splitlines()[2:]]
    assert targets[-2:] == [4000, 4267]
    assert "correlated walks" not in stats.stdout


@pytest.mark.slow
def test_stats_of_a_climb_says_its_deals_are_correlated_walks(tmp_path):
    archive = tmp_path / "a.sqlite"
    run = beggar("search", ROOT / "search" / "climb.toml", "--deals", 20_000, "--workers", 1, "--seed", 2,
                 "--archive", archive, "--quiet")
    assert run.returncode == 0, run.stderr
    stats = beggar("stats", job_id(run.stdout), "--tail-from", 500, "--archive", archive)
    assert stats.returncode == 0, stats.stderr
    assert "a climb's deals are correlated walks" in stats.stdout
    assert "not of random deals" in stats.stdout


@pytest.mark.slow
def test_stats_counts_a_job_started_with_split_26_as_26_26(tmp_path):
    archive = tmp_path / "a.sqlite"
    run = beggar("search", "--deals", 20_000, "--split", 26, "--min-cards", 5000, "--seed", 1, "--workers", 1,
                 "--archive", archive, "--quiet")
    assert run.returncode == 0, run.stderr
    stats = beggar("stats", "--tail-from", 1000, "--archive", archive)
    assert stats.returncode == 0, stats.stderr
    assert job_id(run.stdout) in stats.stdout and "deals    20,000" in stats.stdout


@pytest.mark.slow
def test_stats_json_is_json(tmp_path):
    archive = tmp_path / "a.sqlite"
    run = beggar("census", "6 2J 1Q 1K", "--chunk", 1000, "--workers", 1, "--archive", archive, "--quiet")
    stats = beggar("stats", job_id(run.stdout), "--json", "--tail-from", 20, "--archive", archive)
    assert stats.returncode == 0, stats.stderr

    def refuse(word):
        raise AssertionError(f"{word} is not JSON")
    json.loads(stats.stdout, parse_constant=refuse)
    from beggar.cli.stats import _finite
    assert _finite({"rate": math.inf, "rows": [{"p": math.nan, "cards": 5}]}) == {"rate": None,
                                                                                "rows": [{"p": None, "cards": 5}]}


@pytest.mark.slow
def test_the_odds_of_a_three_player_job_are_told_against_its_table_s_known_record(tmp_path):
    archive = tmp_path / "a.sqlite"
    run = beggar("search", job_file(tmp_path, deals=200_000, chunk=50_000, min_cards=1000,
                                    extra='players = 3\nextend_cards = 0\n'), "--archive", archive, "--quiet")
    assert run.returncode == 0, run.stderr
    name = job_id(run.stdout)
    best = int(run.stdout.split("best     ")[1].split()[0])
    assert best < 4266      # the shipped record of the table (results/three-players-4266.json)
    out = beggar("stats", name, "--tail-from", 1000, "--archive", archive)
    assert out.returncode == 0, out.stderr
    assert "8345" not in out.stdout and "5000" not in out.stdout.split("targets")[1]
    assert ("targets  round lengths below the longest known game of this table, three-players-4266 (the record "
            "shipped with beggar), 4266 cards, and one card past it") in out.stdout
    figures = json.loads(beggar("stats", name, "--tail-from", 1000, "--json", "--archive", archive).stdout)
    assert [row["cards"] for row in figures["expected"]] == [2000, 3000, 4000, 4267]
    assert [ref["cards"] for ref in figures["references"]] == [4266]
    pytest.importorskip("matplotlib", reason="the plot extra: pip install '.[plot]'")
    assert beggar("stats", name, "--tail-from", 1000, "--plot", tmp_path / "odds.png", "--archive",
                  archive).returncode == 0
    assert (tmp_path / "odds.png").stat().st_size > 10_000


@pytest.mark.slow
def test_a_census_predicts_nothing(tmp_path):
    archive = tmp_path / "a.sqlite"
    census = beggar("census", "half-camicia", "--archive", archive, "--quiet")
    assert census.returncode == 0, census.stderr
    out = beggar("stats", job_id(census.stdout), "--archive", archive)
    assert out.returncode == 0, out.stderr
    assert "nothing is predicted from them" in out.stdout and "years" not in out.stdout and "deals expected" not in out.stdout
    figures = json.loads(beggar("stats", job_id(census.stdout), "--json", "--archive", archive).stdout)
    assert figures["exhaustive"] is True and figures["expected"] == [] and figures["tail"] is None


def test_the_tail_starts_at_2000_where_games_reach_it_else_where_the_job_s_own_long_games_do():
    """beggar stats refused a half-deck job by default ("0 games of 2000 cards
    or more ... or a longer job"): no job of that deck reaches 2000."""
    def start(lengths):
        return odds.tail_start(odds.Played([], {}, deals=len(lengths), lengths=Lengths.of(lengths)))
    assert start([100] * 1000 + [2000 + i for i in range(odds.TAIL_GAMES)]) == odds.TAIL_FROM
    # Fewer than TAIL_GAMES at 2000: where the longest TAIL_GAMES begin, to two significant digits.
    assert start([100] * 1000 + [2000] * (odds.TAIL_GAMES - 1) + [1234]) == 1200
    assert start([30] * 1000 + [400 + i for i in range(odds.TAIL_GAMES)]) == 400
    assert start([30] * 1000 + [87] * odds.TAIL_GAMES) == 87
    assert start([5] * 10) == odds.TAIL_FROM        # too few for any fit: fit_tail says so


def test_stats_of_a_half_deck_job_fits_the_tail_where_its_own_games_are_long(tmp_path):
    path = tmp_path / "a.sqlite"
    run = in_process("search", job_file(tmp_path, "half", deals=20_000, chunk=10_000, extra='deck = "half"\n'),
                     "--archive", path, "--quiet", "--workers", 1)
    assert run.returncode == 0, run.stderr
    stats = in_process("stats", job_id(run.stdout), "--archive", path)
    assert stats.returncode == 0, stats.stderr
    start, games = re.search(r"fitted by maximum likelihood to the ([\d,]+) games of (\d+)\+ cards",
                             stats.stdout).group(2, 1)
    assert int(start) < odds.TAIL_FROM and int(games.replace(",", "")) >= odds.TAIL_GAMES


@pytest.mark.parametrize("change, told", [
    ("UPDATE chunks SET deals = deals - 50000 WHERE chunk = 0", "'statuses' counts 100,000 games, where the chunk "
                                                               "played 50,000 deals"),
    ("UPDATE chunks SET stats = json_set(stats, '$.statuses.finished', json_extract(stats, '$.statuses.finished') "
     "+ 1) WHERE chunk = 0", "'statuses' counts 100,001 games, where the chunk played 100,000 deals"),
    ("UPDATE chunks SET stats = json_set(stats, '$.lengths[100]', json_extract(stats, '$.lengths[100]') + 7) "
     "WHERE chunk = 0", "'lengths' counts 100,007 games, where the chunk played 100,000 deals"),
    ("UPDATE chunks SET deals = deals + 50000, stats = json_set(stats, '$.statuses.finished', "
     "json_extract(stats, '$.statuses.finished') + 50000, '$.lengths[100]', json_extract(stats, '$.lengths[100]') "
     "+ 50000) WHERE chunk = 0", "add up to 250,000, over its budget of 200,000"),
])
def test_a_sample_job_s_chunk_records_that_disagree_with_their_histograms_are_damage(tmp_path, change, told):
    """They gave "-50,000 more from chunks without one", "played 250.0K of 200.0K deals", "150,001 finished"."""
    path = tmp_path / "a.sqlite"
    run = in_process("search", job_file(tmp_path, "s", deals=200_000, chunk=100_000), "--archive", path, "--quiet",
                     "--workers", 1)
    assert run.returncode == 0, run.stderr
    job = job_id(run.stdout)
    with closing(sqlite3.connect(path)) as db:
        assert db.execute(change).rowcount == 1
        db.commit()
    before = path.read_bytes()
    for args in (("stats", job), ("archive", "report", tmp_path / "r.html"), ("archive", "jobs")):
        if "budget" in told or args[0] != "archive" or args[1] == "report":
            fault(in_process(*args, "--archive", path), "damaged", told)
    assert path.read_bytes() == before
