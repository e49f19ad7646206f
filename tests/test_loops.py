"""The loop factory's framework: loops named by their cycle, the archive's
loops table, keeping what a grow or perturb walk reports, the job files'
checks, and the archive commands for loops."""

import json
import re
import signal
import sqlite3
from dataclasses import asdict
from pathlib import Path

import pytest

from beggar import Deal, engine, loops
from beggar.archive import Archive
from beggar.backward import basin
from beggar.census import count
from beggar.cycle import deal_of, key_hands, state_key
from beggar.savefile import load
from beggar.search.drivers import ChunkResult, keep
from beggar.search.drivers.hunt import seats as hunt_seats
from beggar.search.drivers.walks import LISTED, SHOWN, new_loop_lines, start_keys
from beggar.search.job import check
from beggar.search.drivers.factory import FactoryTally
from beggar.search.runner import Summary
from helpers import (CASELLA, bad_input, beggar, done_chunks, in_process, job_file, job_id, known_loops, start,
                     wait_for_chunks)

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = loops.published()
NAMES = [name for name, _ in PUBLISHED]


def test_the_published_loops_are_shipped():
    assert NAMES == ["Casella 2024", "Zanotto 2017", "Carmicia"]
    assert [loops.of_deal(deal).deck for _, deal in PUBLISHED] == ["standard", "camicia", "camicia"]


@pytest.mark.parametrize("deal", [deal for _, deal in PUBLISHED], ids=NAMES)
def test_every_state_of_a_published_cycle_gives_one_canonical_form(deal):
    loop = loops.of_deal(deal)
    outcome = engine.play(deal, engine="reference")
    assert loop.period == outcome.loop_period and len(loop.states) == loop.period[0]
    assert loop.key == state_key(*loop.state) == min(state_key(hands, leader) for hands, leader in loop.states)
    assert loop.state[1] == 0 and loop.deal() == Deal.from_codes(loop.state[0])
    for hands, leader in loop.states:
        assert loops.of_state(hands, leader) == loop
        # The same state with the seats swapped is the same loop.
        assert loops.of_state(hands[::-1], 1 - leader) == loop
    for hands, leader in loop.states[::7]:
        assert loops.of_state(hands, leader, engine_name="reference") == loop


def test_every_state_of_a_small_deck_cycle_gives_one_canonical_form():
    found = [(deck, *loop) for deck in ("6 2J 2Q", "6 2J 1Q 1K", "6 2J 2Q 1K")
             for loop in engine.census(0, count(deck), deck).loops]
    assert len(found) > 10 and len({key for *_, key in found}) > 2
    for deck, _, deal, _, key in found:
        loop = loops.of_deal(deal)
        assert loop.key == key and loop.deck == deck
        assert {loops.of_state(*state).key for state in loop.states} == {key}


@pytest.mark.parametrize("name, deal", PUBLISHED, ids=NAMES)
def test_every_balanced_deal_in_a_published_basin_falls_into_that_loop(name, deal):
    loop = loops.of_deal(deal)
    found = basin(loop.deal())
    assert found.stopped_by is None
    members = {member for member, _ in found.deals}
    assert len(members) == len(found.deals)     # a deal reached from both seats is one deal
    assert deal in members
    assert len(members) == {"Casella 2024": 30, "Zanotto 2017": 90, "Carmicia": 26}[name]
    # The balanced states on the cycle are balanced deals of the basin too.
    assert {deal_of(*state) for state in loop.balanced_states} <= members
    assert loop.balanced == (name == "Zanotto 2017")
    for member, replay in found.deals:
        assert replay.engine == "reference" and replay.status == "loop"
        assert replay.loop_period == loop.period
        assert len(member.hands[0]) == len(member.hands[1])
        assert loops.of_deal(member).key == loop.key


def test_a_deal_that_ends_is_no_loop():
    with pytest.raises(loops.LoopError, match="does not loop"):
        loops.of_deal(Deal.parse("K-KK----K-A-----JAA--Q--J-/---Q---Q-J-----J------AQ--"))


# ---------------------------------------------------------------- the archive

def growth(*states, largest=52):
    return {"loops": list(states), "tries": 1000, "largest": largest, "restarts": 2,
            "sizes": [(10, 40), (900, largest)]}


def factory_job(archive, driver="grow", **keys):
    spec = check({"name": "t", "driver": driver, "seed": 5, "deals": 4000, "chunk": 1000, **keys})
    if driver == "perturb":
        spec["start"] = start_keys(archive, spec["deck"])
    archive.add_job("t-job", spec)
    return spec


def test_two_reports_of_one_loop_keep_one_row(tmp_path):
    casella = loops.of_deal(Deal.parse(CASELLA))
    with Archive(tmp_path / "a.sqlite") as archive:
        with archive.transaction():
            first = archive.add_loop(loops.of_state(*casella.states[5]), "j1", "grow", 3)
            hands, leader = casella.states[40]
            second = archive.add_loop(loops.of_state(hands[::-1], 1 - leader), "j2", "perturb", 0)
        assert first == (first[0], True) and second == (first[0], False)
        (row,) = archive.loops()
        assert (row["key"], row["job"], row["driver"], row["chunk"]) == (casella.hex, "j1", "grow", 3)
        assert (row["period_tricks"], row["period_cards"], row["states"], row["balanced"]) == (62, 440, 62, 0)


def test_a_chunk_s_loops_are_checked_searched_and_kept_once(tmp_path):
    """What a walk reports goes through drivers.keep as the runner calls it:
    the Casella loop reported from three states, in two chunks, is one loop,
    searched once, with its 30 balanced deals kept as loop games."""
    casella = loops.of_deal(Deal.parse(CASELLA))
    hands, leader = casella.states[9]
    with Archive(tmp_path / "a.sqlite") as archive:
        spec = factory_job(archive)
        summary = Summary("t-job", "stopped", 1)
        report = growth(casella.states[0], casella.states[30], (hands[::-1], 1 - leader))
        keep(archive, "t-job", spec, ChunkResult(0, 1000, [], None, seconds=0.5, payload=report), summary)
        tally = summary.payload
        assert tally.full_loops == 1 and [loop for _, loop in tally.new_loops] == [casella]
        assert len(tally.prizes) == 30 and summary.kept == 30 and tally.bounds == []
        assert summary.deals == 1000 and tally.largest == 52
        keep(archive, "t-job", spec, ChunkResult(1, 1000, [], None, seconds=0.5, payload=report), summary)
        assert tally.full_loops == 2 and len(tally.new_loops) == 1 and len(tally.prizes) == 30
        (row,) = archive.loops()
        assert (row["basin_states"], row["basin_deals"], row["basin_stopped_by"], row["games"]) == \
            (2670, 30, None, 30)
        games = archive.games(status="loop")
        assert len(games) == 30 and CASELLA in {game["deal"] for game in games}
        for game in games:
            assert game["loop"] == casella.hex and game["driver"] == "basin" and not game["disputed"]
            assert game["reference"]["engine"] == "reference" and game["reference"]["status"] == "loop"
        assert done_chunks(archive, "t-job") == {0, 1}
        assert archive.job("t-job")["deals"] == 2000


def test_a_basin_bound_is_said_and_kept(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        spec = factory_job(archive, basin_states=100)
        summary = Summary("t-job", "stopped", 1)
        report = growth(loops.of_deal(Deal.parse(CASELLA)).state)
        keep(archive, "t-job", spec, ChunkResult(0, 1000, [], None, seconds=0.5, payload=report), summary)
        (row,) = archive.loops()
        assert (row["basin_states"], row["basin_stopped_by"]) == (100, "states")
        (line,) = summary.payload.bounds
        assert "stopped at its bound of 100 states (basin_states)" in line


def test_a_loop_of_another_deck_is_refused_and_nothing_kept(tmp_path):
    from beggar.search import SearchError
    zanotto = loops.of_deal(PUBLISHED[1][1])
    with Archive(tmp_path / "a.sqlite") as archive:
        spec = factory_job(archive)
        with pytest.raises(SearchError, match="camicia deck, not of the job's standard deck"):
            keep(archive, "t-job", spec, ChunkResult(0, 1000, [], None, seconds=0.5, payload=growth(zanotto.state)),
                 Summary("t-job", "stopped", 1))
        assert archive.loops() == [] and done_chunks(archive, "t-job") == set()


def test_perturb_starts_from_the_archive_s_loops_and_the_published_ones(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        assert start_keys(archive, "camicia") == sorted(loops.of_deal(deal).hex for _, deal in PUBLISHED[1:])
        assert start_keys(archive, "half") == []
        small = loops.of_deal(engine.census(0, count("6 2J 2Q"), "6 2J 2Q").loops[0][1])
        with archive.transaction():
            archive.add_loop(small)
        assert start_keys(archive, "6 2J 2Q") == [small.hex]


def test_a_perturb_job_given_a_loop_at_a_table_of_four_starts_from_its_two_players():
    """A loop reached at a table of four is its two players' (Casella's with
    two seats empty is Casella's). A perturb job given one before archive
    format 6, under a key that held the empty hands of the players out,
    starts from its two players' states (its walk once took the four hands,
    and its worker failed with a traceback)."""
    from beggar import _loops
    from beggar.search.drivers.factory import start_states
    from beggar.search.job import start_problem
    casella = loops.of_deal(Deal.parse(CASELLA))
    hands, _ = casella.state
    assert loops.of_deal(Deal.from_codes([hands[0], (), hands[1], ()])) == casella
    spec = check({"driver": "perturb", "seed": 1})
    spec["start"] = [bytes([len(hands[0]), *hands[0], 0, len(hands[1]), *hands[1], 0]).hex()]
    assert start_problem(spec) is None
    states = start_states(spec)
    assert states == list(casella.states)
    assert _loops.perturb(states, "standard", 1, 0, 1000).tries == 1000


# ---------------------------------------------------------------- the command

@pytest.fixture(scope="module")
def census_archive(tmp_path_factory):
    """An archive of a census whose deck has loops: every loop game linked to its loop."""
    path = tmp_path_factory.mktemp("census") / "census.sqlite"
    run = beggar("census", "6 2J 2Q 1K", "--archive", path, "--quiet")
    assert run.returncode == 0, run.stderr
    return path


def test_loop_games_of_any_driver_link_to_their_loop(census_archive):
    with Archive(census_archive) as archive:
        games = archive.games(status="loop")
        rows = archive.loops()
        assert games and rows
        keys = {row["key"] for row in rows}
        assert {game["loop"] for game in games} == keys
        assert sum(row["games"] for row in rows) == len(games)
        for row in rows:
            loop = loops.of_deal(Deal.parse(next(g["deal"] for g in games if g["loop"] == row["key"])))
            assert (row["key"], row["period_tricks"], row["states"]) == \
                (loop.hex, loop.period[0], len(loop.states))
            assert row["driver"] == "census" and row["basin_states"] is None


@pytest.mark.slow
def test_archive_list_show_and_export_a_loop(census_archive, tmp_path):
    listed = beggar("archive", "list", "--loops", "--archive", census_archive)
    assert listed.returncode == 0, listed.stderr
    assert re.search(r"^\d+\s+6 2J 2Q 1K\s+2\s+\d+/\d+\s+\d+\s+(yes|no)\s+\?\s+\d+\s+not searched\s+census",
                     listed.stdout, re.M), listed.stdout
    with Archive(census_archive) as archive:
        row = archive.loop(1)
    shown = beggar("archive", "show", "--loop", 1, "--archive", census_archive)
    assert shown.returncode == 0, shown.stderr
    assert f"period {row['period_tricks']} tricks / {row['period_cards']} cards" in shown.stdout
    assert "one period, played from its canonical state:" in shown.stdout
    assert len(re.findall(r"^\s+\d+\s+[12]\s+[12]\s", shown.stdout, re.M)) == row["period_tricks"]
    saved = tmp_path / "loop.json"
    exported = beggar("archive", "export", "--loop", 1, saved, "--archive", census_archive)
    assert exported.returncode == 0, exported.stderr
    assert json.loads(saved.read_text())["expected"]["status"] == "loop"
    replayed = beggar("replay", saved)
    assert replayed.returncode == 0 and "expected OK, as saved" in replayed.stdout
    bad_input(beggar("archive", "show", "--loop", 99, "--archive", census_archive), "no loop with id 99")
    bad_input(beggar("archive", "show", "--archive", census_archive), "--loop N")
    bad_input(beggar("archive", "show", "1", "--loop", "1", "--archive", census_archive), "not both")
    bad_input(beggar("archive", "list", "--loops", "--records", "--archive", census_archive),
              "--loops lists loops")


def test_the_loops_list_says_how_many_it_shows_of_how_many_and_how_to_see_the_rest(census_archive):
    with Archive(census_archive) as archive:
        total = archive.count_loops()
    assert total > 2
    cut = in_process("archive", "list", "--loops", "--limit", 2, "--archive", census_archive)
    assert cut.returncode == 0 and len(re.findall(r"^\d+  ", cut.stdout, re.M)) == 2
    assert cut.stdout.endswith(f"2 of {total} loops shown, those with balanced deals first "
                               f"(--limit {total} shows every one)\n"), cut.stdout
    whole = in_process("archive", "list", "--loops", "--limit", total, "--archive", census_archive)
    assert len(re.findall(r"^\d+  ", whole.stdout, re.M)) == total
    assert whole.stdout.endswith(f"{total} of {total} loops shown, those with balanced deals first\n")


def test_a_summary_s_pointer_to_its_new_loops_lists_them_all(tmp_path):
    # More new loops than the list shows unless told: the pointer gives the --limit that shows them.
    loop = loops.of_deal(Deal.parse(CASELLA))
    for count, tail in ((LISTED + 7, f" --limit {LISTED + 7} --archive "), (LISTED, " --archive ")):
        lines = new_loop_lines([(n, loop) for n in range(count)], "job-1", tmp_path / "a.sqlite")
        assert lines[-1] == (f"  ... and {count - SHOWN} more (beggar archive list --loops --job job-1{tail}"
                             f"{tmp_path / 'a.sqlite'})")


@pytest.mark.slow
def test_a_balanced_loop_deal_exports_as_a_game_that_replays(tmp_path):
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        spec = factory_job(archive)
        report = growth(loops.of_deal(Deal.parse(CASELLA)).state)
        keep(archive, "t-job", spec, ChunkResult(0, 1000, [], None, seconds=0.5, payload=report),
             Summary("t-job", "stopped", 1))
    listed = beggar("archive", "list", "--loops", "--archive", path)
    assert re.search(r"^1\s+standard\s+2\s+62/440\s+62\s+no\s+30\s+30\s+2,670 states\s+grow t-job chunk 0",
                     listed.stdout, re.M), listed.stdout
    saved = tmp_path / "balanced.json"
    assert beggar("archive", "export", "--loop", 1, saved, "--archive", path).returncode == 0
    data = json.loads(saved.read_text())
    deal = Deal.parse(data["deal"])
    assert len(deal.hands[0]) == len(deal.hands[1]) == 26
    assert loops.of_deal(deal, engine_name="reference").key == loops.of_deal(Deal.parse(CASELLA)).key
    with Archive(path) as archive:
        game_id = next(game["id"] for game in archive.games(status="loop") if game["deal"] == data["deal"])
    shown = beggar("archive", "show", game_id, "--archive", path)
    assert f"loop     1 of the archive (beggar archive show --loop 1 --archive {path})" in shown.stdout, shown
    replayed = beggar("replay", saved, "--engine", "reference")
    assert replayed.returncode == 0 and "expected OK, as saved" in replayed.stdout
    assert "period   62 tricks / 440 cards" in replayed.stdout


@pytest.mark.parametrize("keys, message", [
    ("basin_states = 0", "'basin_states' must be a whole number from 1"),
    ("basin_seconds = 0", "'basin_seconds' must be a number of seconds above 0"),
    ("basin_seconds = \"long\"", "'basin_seconds' must be a number of seconds above 0"),
    ("players = 3", "builds two-player loops, not 3-player ones"),
    ("split = 20", "'split' does not apply"),
    ('deck = "30 1J"', "deck 30 1J: a loop needs two court cards at least, so nothing can be grown"),
    ("[grow]\npatience = 0", "[grow]: patience must be a whole number from 1"),
    ("[grow]\nstart_courts = 1", "[grow]: start_courts must be 0 (top down) or 2 and more"),
    ("[grow]\nleaps = 3", "[grow]: unknown option 'leaps' (known: start_courts, start_plain, patience"),
    ("[perturb]\nreach = 1", "[perturb] is given but the driver is 'grow'"),
])
def test_bad_factory_jobs_are_one_line_and_lose_nothing(tmp_path, census_archive, keys, message):
    path = tmp_path / "kept.sqlite"
    path.write_bytes(census_archive.read_bytes())
    before = _contents(path)
    job = job_file(tmp_path, driver="grow", extra=keys + "\n")
    bad_input(beggar("search", job, "--archive", path), message)
    assert _contents(path) == before


def test_perturb_options_are_checked_by_the_core(tmp_path):
    job = job_file(tmp_path, driver="perturb", extra="[perturb]\nchanges = 0\n")
    bad_input(beggar("search", job, "--archive", tmp_path / "a.sqlite"),
              "[perturb]: changes must be a whole number from 1 to 100")
    job = job_file(tmp_path, driver="perturb", extra="[perturb]\nswaps = 1\n")
    bad_input(beggar("search", job, "--archive", tmp_path / "a.sqlite"),
              "[perturb]: unknown option 'swaps' (known: changes, reach, moves)")
    job = job_file(tmp_path, driver="perturb", extra='[perturb]\nmoves = "far"\n')
    bad_input(beggar("search", job, "--archive", tmp_path / "a.sqlite"),
              "[perturb]: moves must be one of small, wide, swap")
    spec = check({"driver": "perturb", "perturb": {"changes": 3, "reach": 5}})
    assert spec["perturb"] == {"changes": 3, "reach": 5}


def test_the_walks_rules_have_the_cores_defaults():
    import inspect

    from beggar import _loops
    from beggar.search.drivers.factory import GrowRules
    from beggar.search.drivers.walks import PerturbRules
    for rules, walker in ((GrowRules, _loops.grow), (PerturbRules, _loops.perturb)):
        # perturb's launcher says what plays its tries (a GPU engine), its
        # known loops what it reports no more, and growth's starts where it
        # begins (a hunt's growth walks), not how the walk goes.
        core = {name: parameter.default for name, parameter in inspect.signature(walker).parameters.items()
                if parameter.kind == parameter.KEYWORD_ONLY and name not in ("launcher", "known", "starts")}
        assert asdict(rules()) == core


def test_perturb_without_a_loop_to_start_from_is_one_line(tmp_path):
    job = job_file(tmp_path, driver="perturb", extra='deck = "half"\n')
    bad_input(beggar("search", job, "--archive", tmp_path / "a.sqlite"),
              "no full loop of the half deck to perturb")


def _contents(path):
    with sqlite3.connect(path) as db:
        return [db.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
                for table in ("games", "jobs", "chunks", "loops")]


def test_the_job_files_are_valid_and_draw_a_fresh_seed_each_run():
    from beggar.search.job import load, read
    for name, deck, driver in (("loops", "standard", "grow"), ("loops-camicia", "camicia", "grow"),
                               ("loops-perturb", "standard", "perturb")):
        path = Path(__file__).resolve().parents[1] / "search" / f"{name}.toml"
        spec = load(path)
        assert (spec["deck"], spec["driver"]) == (deck, driver)
        # A fixed seed would make tonight's run walk last night's walks again.
        assert "seed" not in read(path)



# ---------------------------------------------------------------- grow and perturb jobs

def _loop_rows(path):
    with Archive(path) as archive:
        return sorted((row["key"], row["basin_states"], row["basin_deals"]) for row in archive.loops()), \
            sorted((game["deal"], game["loop"]) for game in archive.games(status="loop"))


@pytest.mark.slow
def test_a_grow_job_builds_loops_and_keeps_their_balanced_deals(tmp_path):
    """The deck of ten plain cards and two jacks: growth walks reach full
    12-card loops within 10,000 tries, and their basins hold balanced deals."""
    job = job_file(tmp_path, "g", driver="grow", deals=40_000, chunk=10_000, extra='deck = "10 2J"\n')
    path = tmp_path / "a.sqlite"
    run = beggar("search", job, "--archive", path, "--quiet")
    assert run.returncode == 0, run.stderr
    assert "10 2J deck, 2 players, loops of any split" in run.stderr
    assert re.search(r"^tries    40,000 in [\d.]+ s: [\d,]+ tries/s on 2 workers$", run.stdout, re.M), run.stdout
    assert "largest  12 cards in a looping state" in run.stdout
    rows, games = _loop_rows(path)
    assert rows and games and all(states is not None for _, states, _ in rows)
    assert f"{len(rows)} new to {path}" in run.stdout
    assert sum(deals for *_, deals in rows) == len(games)
    assert f"BALANCED {len(games)} balanced deals that never end" in run.stdout
    for deal, key in games:
        assert f"  {deal}  (game " in run.stdout
        deal = Deal.parse(deal)
        replay = engine.play(deal, engine="reference")
        assert replay.status == "loop" and len(deal.hands[0]) == len(deal.hands[1])
        assert loops.of_deal(deal, engine_name="reference").hex == key
    # Chunks are walks: one worker, or a run cut short and resumed, keeps the same.
    other = tmp_path / "b.sqlite"
    first = beggar("search", job, "--archive", other, "--quiet", "--workers", "1", "--deals", 20_000)
    assert first.returncode == 0, first.stderr
    with Archive(other) as archive:
        assert len(done_chunks(archive, job_id := re.search(r"job      (\S+):", first.stdout).group(1))) == 2
        archive.db.execute("UPDATE jobs SET state = 'stopped', spec = json_set(spec, '$.deals', 40000) "
                           "WHERE id = ?", (job_id,))
    resumed = beggar("search", "--resume", job_id, "--archive", other, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert _loop_rows(other) == (rows, games)
    listed = beggar("archive", "list", "--loops", "--archive", path)
    assert listed.returncode == 0 and listed.stdout.count(" 10 2J ") == len(rows)


def test_a_perturb_job_starts_from_the_published_loops(tmp_path):
    job = job_file(tmp_path, "p", driver="perturb", deals=60_000, chunk=30_000,
                   extra='deck = "camicia"\nbasin_seconds = 5\n')
    path = tmp_path / "a.sqlite"
    run = beggar("search", job, "--archive", path, "--quiet")
    assert run.returncode == 0, run.stderr
    assert "tries    60,000 in" in run.stdout and "largest  40 cards" in run.stdout
    with Archive(path) as archive:
        (job_row,) = archive.db.execute("SELECT spec FROM jobs").fetchall()
        start = json.loads(job_row[0])["start"]
        assert start == sorted(loops.of_deal(deal).hex for _, deal in PUBLISHED[1:])
        kept = archive.loops()
    assert f"{len(kept)} new to {path}" in run.stdout
    for row in kept:
        assert row["key"] not in start and row["deck"] == "camicia" and row["basin_states"] is not None


@pytest.mark.slow
def test_a_perturb_walk_from_casella_reaches_the_shipped_loop_and_a_job_starts_from_both(tmp_path):
    """Walk 0 of seed 1 (a million tries, two seconds) from Casella's loop
    alone reaches a 62-trick loop that is not Casella's, the loop of
    results/loop-52-balanced.json: its basin holds 34 balanced deals, none of
    them in Casella's basin. Shipped, it is known: a perturb job starts from
    it as well as from Casella's (and every other known loop), as an
    eliminate job does (start_keys)."""
    from beggar import _loops
    from beggar.decks import Deck
    casella = loops.of_deal(Deal.parse(CASELLA))
    saved = json.loads((Path(__file__).resolve().parents[1] / "results" / "loop-52-balanced.json").read_text())
    shipped = loops.of_deal(Deal.parse(saved["deal"]))
    assert shipped.hex != casella.hex and shipped.period == (62, 440)
    walk = _loops.perturb(casella.states, Deck.parse("standard"), 1, 0, 1_000_000)
    assert shipped.hex in {loops.of_state(hands, leader).hex for hands, leader in walk.loops}
    found = basin(Deal.parse(saved["deal"]))
    casella_deals = {str(member) for member, _ in basin(Deal.parse(CASELLA)).deals}
    assert len(found.deals) == 34 and not {str(member) for member, _ in found.deals} & casella_deals
    job = job_file(tmp_path, "p", driver="perturb", seed=1, deals=10_000, chunk=10_000)
    path = tmp_path / "a.sqlite"
    run = beggar("search", job, "--archive", path, "--quiet", "--workers", "1")
    assert run.returncode == 0, run.stderr
    with Archive(path) as archive:
        ((_, spec),) = archive.jobs()
    assert {casella.hex, shipped.hex} <= set(spec["start"]) and spec["start"] == known_loops("standard")
    assert "NEW LOOP" not in run.stdout + run.stderr and not (tmp_path / "a-finds").exists()


@pytest.mark.slow
def test_a_sigterm_keeps_every_loop_reported_and_the_job_resumes(tmp_path):
    path = tmp_path / "a.sqlite"
    job = start("search", job_file(tmp_path, "g", driver="grow", deals=0, chunk=20_000, extra='deck = "10 2J"\n'),
                "--archive", path, "--quiet")
    wait_for_chunks(path, 2, job)
    job.send_signal(signal.SIGTERM)
    out, err = job.communicate(timeout=60)
    assert job.returncode == 143, err
    name = job_id(out)
    assert "stopped (SIGTERM)" in out and f"resume   beggar search --resume {name}" in out
    with Archive(path) as archive:
        chunks = len(done_chunks(archive, name))
        rows = archive.loops()
        assert chunks >= 2 and rows and all(row["basin_states"] is not None for row in rows)
        assert sum(row["basin_deals"] for row in rows) == len(archive.games(status="loop"))
    resumed = beggar("search", "--resume", name, "--archive", path, "--time", 1, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    with Archive(path) as archive:
        assert len(done_chunks(archive, name)) > chunks
        assert {row["key"] for row in archive.loops()} >= {row["key"] for row in rows}


def test_a_grow_job_without_a_seed_says_its_seed_plays_its_walks_again(tmp_path):
    job = tmp_path / "fresh.toml"
    job.write_text('driver = "grow"\ndeck = "10 3J"\ndeals = 1000\nchunk = 1000\nworkers = 1\n')
    result = beggar("search", job, "--archive", tmp_path / "a.sqlite", "--quiet")
    assert result.returncode == 0, result.stderr
    seed = int(result.stderr.split("seed ")[1].split()[0])
    assert f"(fresh: --seed {seed} plays these walks again)" in result.stderr


# ---------------------------------------------------------------- loops of tables of 3 and 4

def test_the_loops_that_deals_of_3_and_4_players_fall_into_are_listed_first(tmp_path):
    """Those with balanced deals first: of two players found by a basin search,
    or kept deals of three and four (the report showed none of these)."""
    from beggar import Rules
    deal = Deal.parse("---/-QJ/--J/J-")                     # 4 players, one goes out: a loop of 3
    three, short = loops.of_deal(deal), loops.of_deal(Deal.parse("----------J-/----J-"))
    assert (three.players, short.players) == (3, 2) and short.period < three.period
    with Archive(tmp_path / "a.sqlite") as archive:
        with archive.transaction():
            archive.add_loop(short)
            archive.add_loop(three)
            archive.add_game(deal, Rules(), engine.play(deal), engine.play(deal, engine="reference"), loop=three.key)
        assert [row["key"] for row in archive.loops()] == [three.hex, short.hex]
        assert [row["key"] for row in archive.loops(limit=1)] == [three.hex]


V5_ARCHIVE = Path(__file__).with_name("data") / "archive-v5.sqlite"

#: A command as the tool prints it for a user: `beggar`, then words up to a
#: closing parenthesis or the line's end, a quoted word whole.
PRINTED = re.compile(r"beggar (?:play|replay|basin|family|archive|search|census|stats|verify) (?:[^)'\n<]|'[^']*')+")


def printed(text):
    """The commands printed in `text` (plain, or HTML: those in <code>)."""
    import html
    return [command.strip() for command in PRINTED.findall(html.unescape(text))]


def run_printed(command, folder):
    """A printed command run by a shell in `folder`, as a user pastes it."""
    import shlex
    import subprocess
    from helpers import _command
    line = shlex.join(_command([])) + command[len("beggar"):]
    return subprocess.run(["sh", "-c", line], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=120)


def test_a_loop_s_basin_command_searches_at_a_table_its_players_can_sit_at():
    from beggar.cli.format import loop_basin
    row = {"players": 2, "basin_states": None, "basin_deals": None, "basin_stopped_by": None}
    two, three = Deal.parse("--J-/Q-A-J-"), Deal.parse("--J-/J-/-Q-J-")
    assert loop_basin(row, two) == ("not searched", "beggar basin --J-/Q-A-J-")
    assert loop_basin({**row, "basin_states": 86, "basin_deals": 14}, two) == \
        ("86 states (complete), 14 balanced deals", None)
    words, command = loop_basin(row, three)
    assert words.startswith("none at a table of two, for a loop of 3 players")
    assert command == "beggar basin --J-/J-/-Q-J- --players 3"


@pytest.mark.slow
def test_every_command_printed_for_a_loop_reached_at_a_table_of_3_or_4_runs_as_printed(tmp_path):
    """The commands `archive list --loops`, `archive show` (a loop, a game of
    three), `archive census`, the HTML report and a factory's summary print
    for loops that deals of 3 and 4 players fall into, run by a shell as
    printed: an archive brought from format 5 (archive-v5.sqlite: a hunt's
    seats, censuses at a table of 4) and a census at a table of 3, in an
    archive whose path a shell must have quoted."""
    from beggar.search import drivers
    path = tmp_path / "my finds" / "a (b).sqlite"
    path.parent.mkdir()
    path.write_bytes(V5_ARCHIVE.read_bytes())
    with Archive(path, link_loop=loops.of_deal):
        pass
    census = beggar("census", "7 3J 1Q", "--players", 3, "--workers", 1, "--archive", path, "--quiet")
    assert census.returncode == 0, census.stderr
    commands = printed(census.stdout)
    census_job = job_id(census.stdout)
    listed = beggar("archive", "census", census_job, "--loops", 0, "--archive", path)
    assert listed.returncode == 0, listed.stderr
    commands += printed(listed.stdout)
    loops_listed = beggar("archive", "list", "--loops", "--archive", path)
    commands += printed(loops_listed.stdout)
    with Archive(path, readonly=True) as archive:
        rows = archive.loops()
        game_of_3 = next(game for game in archive.games(status="loop", players=3)
                         if len(game["loop"]) < 2 * sum(map(len, game["deal"].split("/"))) + 6)
        grown = Summary("grow-x", "done", 1, driver="grow", payload=FactoryTally(
            new_loops=[(row["id"], loops.of_deal(Deal.parse(archive.game(archive.loop(row["id"])[
                "deals"][0]["id"])["deal"]))) for row in rows if row["games"]] * 4))
    assert {row["players"] for row in rows} == {2, 3}
    for row in rows:
        shown = beggar("archive", "show", "--loop", row["id"], "--archive", path)
        assert shown.returncode == 0, shown.stderr
        commands += printed(shown.stdout)
    shown = beggar("archive", "show", game_of_3["id"], "--archive", path)
    commands += printed(shown.stdout)
    report = beggar("archive", "report", tmp_path / "report.html", "--archive", path)
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "report.html").read_text()
    commands += printed(page)
    commands += printed("\n".join(drivers.get("grow").summary(grown, str(path))))
    # Of each kind: a loop's replay, its basin (at two seats, and at three for a loop of 3), a loop in full
    # from a game of 3 and from the listing, a census's and a walk's loops of a job.
    kinds = {" ".join(re.sub(r"--(?:job|loop) \S+|'[^']*'|[-JQKA/]{6,}", "", command).split()) for command in commands}
    assert {"beggar play", "beggar basin", "beggar basin --players 3", "beggar archive show --archive",
            "beggar archive list --loops --archive"} <= kinds, kinds
    for command in sorted(set(commands)):
        ran = run_printed(command, tmp_path)
        assert ran.returncode == 0 and "Traceback" not in ran.stderr, (command, ran.stderr)
    # The report shows the loops that deals of 3 and 4 players fall into, those with balanced deals first.
    with Archive(path, readonly=True) as archive:
        tables = {row["id"]: {game["players"] for game in archive.loop(row["id"])["deals"]} for row in rows}
    shown_loops = [int(number) for number in re.findall(r"<h3>Loop (\d+):", page)]
    assert {loop_id for loop_id, players in tables.items() if players & {3, 4}} <= set(shown_loops)


def test_both_loop_drivers_start_from_the_shipped_loops(tmp_path):
    shipped = loops.of_deal(load(ROOT / "results" / "loop-52-balanced.json")[0].deal).hex
    casella = loops.of_deal(CASELLA).hex
    with Archive(tmp_path / "a.sqlite") as archive:
        for players in (2, 3, 4):       # perturb's two, eliminate's three and four
            assert {shipped, casella} <= set(start_keys(archive, "standard", players))
        # A loop of more players than the table is no start: backward play only adds players.
        three = loops.of_deal(Deal.parse("---/-QJ/--J/J-"))     # a loop of 3 players, one out at a table of 4
        with archive.transaction():
            archive.add_loop(three)
        assert len(key_hands(three.hex)) == three.players == 3
        assert three.hex not in start_keys(archive, "7 3J 1Q", 2)
        assert three.hex in start_keys(archive, "7 3J 1Q", 3) == start_keys(archive, "7 3J 1Q", 4)


def test_show_loop_gives_its_searches_at_three_and_four_or_the_commands_that_make_them(tmp_path):
    """show --loop said "basin not searched" and nothing of a hunt's seats at 3 and 4."""
    from test_hunt import TINY, grown, hunt_job
    from test_report import hunted
    path = tmp_path / "a.sqlite"
    job = hunted(path)
    with Archive(path) as archive:
        seats = [seat for seat in hunt_seats(archive, TINY, job) if seat["players"] > 2]
        key = seats[0]["loop"]
        loop_id = archive.loop_id(TINY, key)
        state = loops.kept_state(archive.loop(loop_id), path)[0]
    shown = in_process("archive", "show", "--loop", loop_id, "--archive", path)
    assert shown.returncode == 0, shown.stderr
    for seat in seats:
        if seat["loop"] == key:
            bound = "complete" if seat["stopped_by"] is None else "STOPPED by its states bound"
            assert (f"at {seat['players']}     {seat['states']:,} states ({bound}), {seat['deals']} balanced deals; "
                    f"best {seat['smallest']} ({seat['best']}); by job {job}\n") in shown.stdout, shown.stdout
    # A loop no hunt seated: the commands that search it at 3 and 4, which run as printed.
    other = tmp_path / "b.sqlite"
    with Archive(other) as archive:
        hunt_job(archive, TINY, grown(TINY)[:1])
        first = archive.loops()[0]
    shown = in_process("archive", "show", "--loop", first["id"], "--archive", other).stdout
    state = loops.kept_state(first, other)[0]
    for players in (3, 4):
        assert f"at {players}     not searched: beggar basin {state} --players {players}\n" in shown
        ran = in_process("basin", str(state), "--players", players)
        assert ran.returncode == 0 and "balanced deals" in ran.stdout, ran


def test_a_stop_does_not_wait_for_the_basin_searches_of_a_chunk_s_new_loops(tmp_path):
    """A perturb job took up to 7 s to stop under load when a chunk that
    brought hundreds of new loops was being kept: their basin searches ran
    in its keep, and nothing between them looked at the stop."""
    from beggar.search.keep import Cut
    from test_hunt import TINY, grown
    report = growth(*[loop.state for loop in grown(TINY)], largest=18)
    asked = []

    def between():
        asked.append(len(asked))
        if len(asked) == 2:
            raise Cut("the stop's deadline passed")

    with Archive(tmp_path / "a.sqlite") as archive:
        spec = factory_job(archive, deck=TINY)
        summary = Summary("t-job", "stopped", 1)
        with pytest.raises(Cut):
            keep(archive, "t-job", spec, ChunkResult(0, 1000, [], None, seconds=0.5, payload=report), summary,
                 between=between)
        # Asked before each loop's check and search: given up at the second, the chunk wholly unkept.
        assert asked == [0, 1] and archive.loops() == [] and archive.games() == []
        assert done_chunks(archive, "t-job") == set() and summary.deals == 0
        keep(archive, "t-job", spec, ChunkResult(0, 1000, [], None, seconds=0.5, payload=report), summary,
             between=lambda: None)
        assert len(archive.loops()) == 3 and done_chunks(archive, "t-job") == {0}
