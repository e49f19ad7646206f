"""Backward play at tables of 3 and 4 seats: predecessors with the players a
trick eliminated, the guided search, the deals of a small deck's census, and
an eliminate job's bound, said as one."""

import itertools
import json
import os
import random
import re
from collections import deque
from pathlib import Path

import pytest

from beggar import Deal, elimination, engine, loops, reference
from beggar.backward import BackwardError
from beggar.decks import Deck, deal_out, hand_sizes
from engines import agree
from helpers import CASELLA, bad_input, beggar, known_loops

SMALL = "12 2J 2Q 2K"       # its 3-player census: 35 loop deals, one two-player loop
RESULTS = Path(__file__).resolve().parents[1] / "results"


def step(hands, leader):
    """The state after one trick from (hands, leader), and the cards laid."""
    game = reference._Game.__new__(reference._Game)
    game.hands = [deque(hand) for hand in hands]
    game.leader, game.cards, game.tricks, game.total = leader, 0, 0, sum(map(len, hands))
    game.lay_on = False
    pile = game.trick()
    return (tuple(tuple(hand) for hand in game.hands), game.leader), len(pile)


def roads(n, seed):
    """The states of random games of 2 to 4 players, whole decks and parts."""
    rng = random.Random(seed)
    for _ in range(n):
        players = rng.choice([2, 3, 4])
        cards = [card for hand in Deal.shuffled(players, rng.getrandbits(32)).hands for card in hand]
        if rng.random() < 0.5:
            cards = cards[:rng.randint(3 * players, 30)]
        deal = Deal.from_codes(deal_out(cards, hand_sizes(len(cards), players)))
        states = [(deal.hands, 0)]
        for trick in itertools.islice(engine.tricks(deal), 200):
            states.append((tuple(tuple(hand) for hand in trick.hands), trick.taker))
        yield states


@pytest.mark.slow
def test_predecessors_include_the_real_one_and_lead_back(engine):
    checked = eliminated = 0
    for states in roads(60, 1):
        for before, after in zip(states, states[1:]):
            found = engine_predecessors(after, engine)
            assert before in [(hands, leader) for hands, leader, _ in found]
            for hands, leader, cards in found:
                assert step(hands, leader) == (after, cards)
            checked += 1
            eliminated += sum(map(bool, before[0])) > sum(map(bool, after[0]))
    assert checked > 1000 and eliminated > 20


def engine_predecessors(state, name):
    return engine.predecessors(state[0], state[1], engine=name)


@pytest.mark.slow
def test_both_engines_find_the_same_predecessors_in_the_same_order():
    for states in roads(80, 2):
        for hands, leader in states[:80]:
            if sum(map(bool, hands)) > 1:
                agree("predecessors", hands, leader)


def test_a_trick_may_have_eliminated_two_players():
    # Four seats, two of them out: the trick before may have held both.
    after = (((0, 0, 0, 0, 0, 1, 0), (), (), (0, 0)), 0)
    found = engine.predecessors(*after)
    assert any(all(hands) for hands, _, _ in found)
    for hands, leader, cards in found:
        assert step(hands, leader) == (after, cards)


@pytest.mark.slow
@pytest.mark.parametrize("guide", ["breadth", "smallest", "balance"])
@pytest.mark.parametrize("players", [3, 4])
def test_both_engines_search_alike(guide, players):
    cycle = loops.of_deal(Deal.parse(CASELLA)).states
    roots, skips = elimination.seated(cycle, players)
    sizes = hand_sizes(52, players)
    agree("backward_to", roots, skips, sizes, guide, 1500, 60)


def test_a_loop_is_seated_every_way_its_first_hand_in_seat_0():
    cycle = loops.of_deal(Deal.parse(CASELLA)).states
    roots, skips = elimination.seated(cycle, 4)
    assert len(roots) == 3 * len(cycle)
    assert {tuple(bool(hand) for hand in hands) for hands, _ in roots} == \
        {(True, True, False, False), (True, False, True, False), (True, False, False, True)}
    # Each root's skip is the state before it on the loop.
    for root, skip in zip(roots, skips):
        assert step(*skip)[0] == root


@pytest.fixture(scope="module")
def small_census():
    deck = Deck.parse(SMALL)
    from beggar import census
    return engine.census(0, census.count(deck), deck=deck, players=3)


@pytest.mark.slow
@pytest.mark.parametrize("engine_name", ["compiled", "reference"])
def test_the_search_from_the_loop_finds_every_loop_deal_of_the_census(small_census, engine_name):
    census_deals = {deal for _, deal, _, _ in small_census.loops}
    assert len(census_deals) == 35
    found = elimination.search(small_census.loops[0][1], 3, "breadth", 10 ** 6, 600, engine_name)
    assert found.stopped_by is None and found.roots == 2 * 16
    assert {deal for deal, _, _ in found.deals} == census_deals
    for deal, compiled, reference_outcome in found.deals:
        assert compiled.status == "loop" and compiled == reference_outcome


@pytest.mark.slow
def test_at_a_table_of_four_the_searches_from_the_census_loops_find_its_loop_deals():
    from beggar import census
    deck = Deck.parse(SMALL)
    found = engine.census(0, census.count(deck), deck=deck, players=4)
    one_per_loop = {key: deal for _, deal, _, key in found.loops}
    # Its loop deals put two players out, at any two seats: one loop, of the two left.
    assert (len(found.loops), len(one_per_loop)) == (33, 1)
    deals = set()
    for deal in one_per_loop.values():
        searched = elimination.search(deal, 4, "breadth", 10 ** 6, 600)
        assert searched.stopped_by is None
        deals |= {member for member, _, _ in searched.deals}
    assert deals == {deal for _, deal, _, _ in found.loops}


def test_every_guide_finds_them_all_when_it_runs_to_the_end(small_census):
    deals = {deal for _, deal, _, _ in small_census.loops}
    for guide in ("smallest", "balance"):
        found = elimination.search(small_census.loops[0][1], 3, guide, 10 ** 6, 600)
        assert found.stopped_by is None and {deal for deal, _, _ in found.deals} == deals


def test_a_search_says_which_bound_stopped_it():
    found = elimination.search(Deal.parse(CASELLA), 3, "smallest", 500, 60)
    assert (found.states, found.stopped_by, found.players) == (500, "states", 3)
    assert found.best is not None and found.best.players == 3


def test_a_game_that_ends_has_no_loop_to_search_from():
    with pytest.raises(BackwardError, match="does not loop"):
        elimination.search(Deal.parse("K-----Q--J-A-/--J-----K-Q-A"), 3)
    with pytest.raises(BackwardError, match="3 or 4 players"):
        elimination.search(Deal.parse(CASELLA), 2)


@pytest.mark.slow
def test_an_eliminate_job_keeps_every_deal_it_finds_as_a_loop_game(tmp_path, small_census):
    from beggar.archive import Archive
    path = str(tmp_path / "archive.sqlite")
    with Archive(path) as archive:
        archive.add_loop(loops.of_deal(small_census.loops[0][1]))
    job = tmp_path / "job.toml"
    job.write_text(f'driver = "eliminate"\ndeck = "{SMALL}"\nplayers = 3\nchunk = 100000\n'
                   '[eliminate]\nguide = "balance"\n')
    result = beggar("search", str(job), "--archive", path, "--quiet")
    assert result.returncode == 0, result.stderr
    assert "states   6,880" in result.stdout
    with Archive(path) as archive:
        games = archive.games(status="loop", players=3)
        assert {Deal.parse(game["deal"]) for game in games} == {deal for _, deal, _, _ in small_census.loops}
        assert {game["driver"] for game in games} == {"eliminate"}
        (job_id, spec), = archive.jobs()
        assert spec["start"] == [loops.of_deal(small_census.loops[0][1]).hex]
        (stats,) = archive.chunk_stats(job_id)
        assert stats["ascent"]["states"] == 6880 and stats["ascent"]["stopped_by"] is None
    again = beggar("search", "--resume", job_id, "--archive", path)
    assert again.returncode == 0 and "is done" in again.stdout
    assert bad_input(beggar("stats", job_id, "--archive", path), "is an eliminate job")


@pytest.mark.parametrize("text, fragment", [
    ('driver = "eliminate"\nplayers = 2\n', "3 or 4 players"),
    ('driver = "eliminate"\nplayers = 3\n[eliminate]\nguide = "deep"\n', "guide must be one of"),
    ('driver = "eliminate"\nplayers = 3\n[eliminate]\nwidth = 3\n', "unknown option 'width'"),
    ('driver = "sample"\n[eliminate]\nguide = "breadth"\n', "[eliminate] is given"),
])
@pytest.mark.slow
def test_a_bad_eliminate_job_is_one_line(tmp_path, text, fragment):
    job = tmp_path / "job.toml"
    job.write_text(text)
    assert bad_input(beggar("search", str(job), "--archive", str(tmp_path / "a.sqlite")), fragment)


@pytest.mark.slow
def test_beggar_basin_at_a_table_of_three(small_census, tmp_path):
    result = beggar("basin", str(small_census.loops[0][1]), "--players", "3", "--guide", "breadth",
                    "--export-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "6,880 states, guide breadth (complete)" in result.stdout
    assert "35 balanced deals" in result.stdout
    assert len(list(tmp_path.glob("*.json"))) == 35
    assert bad_input(beggar("basin", CASELLA, "--guide", "breadth"), "--players 3|4")


@pytest.mark.parametrize("name, sizes, count", [("loop-4-players-standard", [13] * 4, 8),
                                                ("loop-3-players-camicia", [14, 13, 13], 50),
                                                ("loop-4-players-camicia", [10] * 4, 53)])
def test_the_shipped_deals_of_three_and_four_players_never_end(name, sizes, count):
    result = beggar("verify", str(RESULTS / f"{name}.json"))
    assert result.returncode == 0 and f"{count} deals, 2 engines: all OK" in result.stdout
    for game in json.loads((RESULTS / f"{name}.json").read_text()):
        assert [len(hand) for hand in Deal.parse(game["deal"]).hands] == sizes


@pytest.mark.parametrize("folder", ["", "{file}", "/dev/full", "/proc/beggar-none/x", "{read_only}/x"])
def test_an_export_folder_that_cannot_take_files_is_refused_before_the_search(tmp_path, folder):
    """A folder that cannot be written was a traceback after the whole search,
    and --export-dir '' was ignored: now one line before any work, and nothing
    left behind."""
    if folder.startswith("{read_only}"):
        if os.geteuid() == 0:
            pytest.skip("root writes into a folder of mode 0o500")
        (tmp_path / "ro").mkdir(mode=0o500)
    (tmp_path / "file").write_text("a file")
    folder = folder.format(file=tmp_path / "file", read_only=tmp_path / "ro")
    before = sorted(tmp_path.rglob("*"))
    result = beggar("basin", CASELLA, "--players", "3", "--export-dir", folder)
    assert result.returncode in (2, 3) and result.stdout == "", result     # no search was run
    assert result.stderr.count("\n") == 1 and "--export-dir" in result.stderr and "Traceback" not in result.stderr
    assert sorted(tmp_path.rglob("*")) == before


def test_an_export_folder_created_for_a_search_that_finds_nothing_is_removed(tmp_path):
    folder = tmp_path / "new" / "finds"
    result = beggar("basin", CASELLA, "--players", "3", "--export-dir", folder, "--max-states", 1000)
    assert result.returncode == 0 and "0 balanced deals" in result.stdout, result
    assert not (tmp_path / "new").exists()


@pytest.mark.slow
def test_an_eliminate_job_tells_its_bound_and_no_seed(tmp_path):
    job = tmp_path / "e.toml"
    job.write_text('name = "e"\ndriver = "eliminate"\ndeck = "standard"\nplayers = 3\nworkers = 1\n'
                   "chunk = 1000\nbasin_seconds = 5.0\n")
    run = beggar("search", job, "--archive", tmp_path / "a.sqlite", env={"BEGGAR_PROGRESS_SECONDS": "1"})
    assert run.returncode == 0, run.stderr
    first = run.stderr.splitlines()[0]
    assert "seed" not in first and "plays these" not in first
    # Each start loop's search is bounded; the bound is said as one, not as a budget.
    starts = len(known_loops("standard"))
    assert f"states searched of at most {starts * 1000:,} (1,000 a loop, {starts} start loops)" in run.stderr
    assert f" of {starts * 1000:,} states (" not in run.stderr
    # A progress line counts loop deals, under that name.
    assert re.search(r", loop_deals [\d,]+, ", run.stderr) and " loops " not in run.stderr
    assert "done (every start loop searched)" in run.stdout and "budget spent" not in run.stdout
    listed = beggar("archive", "jobs", "--archive", tmp_path / "a.sqlite").stdout.splitlines()
    assert re.fullmatch(rf"  played [\d.]+K? states \(at most {starts:.1f}K\); best -", listed[2]), listed
