"""The hunt driver: perturbation from every loop a job knows, each new loop
seated at tables of three and four (search/drivers/hunt.py).

Quick: its job file's checks, the loops a walk draws from, the record a
chunk keeps as the archive reads it back, the list of loops rebuilt from the
records, and a chunk played and kept in a real archive. Slow: real hunt jobs
through the command on a small deck where loops are common (28 plain cards,
three jacks and a queen: a walk of 50,000 tries from one loop finds eight
more), stopped by SIGTERM and resumed, and on the standard and camicia decks
from the known loops."""

import json
import re
import shutil
import signal
import sqlite3
import time
from contextlib import closing

import pytest

from beggar import Deal, _loops, engine, finds, loops
from beggar.archive import Archive, ArchiveFault
from beggar.archive.readback import stats_problem
from beggar.cycle import state_key
from beggar.decks import Deck, hand_sizes
from beggar.contract import EngineError
from beggar.search import drivers
from beggar.search import job as jobs
from beggar.search.drivers.factory import PerturbRules, perturbation, two_player_key
from beggar.search.drivers.hunt import HuntRules, HuntState, in_order, ordered, record_of, seat
from beggar.search.job import check
from beggar.search.runner import Summary
from helpers import bad_input, beggar, job_file, job_id, known_loops, start

#: A small deck whose loops are common and whose perturbation finds new ones.
SMALL = "28 3J 1Q"
#: The smallest deck of the tests here: one walk of 20,000 tries from one of
#: its loops finds its two others.
TINY = "16 2J"


def grown(deck, tries=30_000):
    """The loops one growth walk (seed 1, walk 0, from the whole deck) finds: [loops.Loop]."""
    walk = _loops.grow(deck, 1, 0, tries, start_courts=0)
    found = {}
    for hands, leader in walk.loops:
        loop = loops.of_state(hands, leader)
        found.setdefault(loop.hex, loop)
    return list(found.values())


@pytest.fixture(scope="module")
def tiny_loops():
    return grown(TINY)


def hunt_job(archive, deck, start, **keys):
    """A hunt job of `deck` stored in `archive`, which is given the loops
    `start` first: (job id, spec)."""
    with archive.transaction():
        for loop in start:
            archive.add_loop(loop, "grown", "grow", 0)
    spec = check({"driver": "hunt", "deck": deck, "seed": 5, "chunk": 20_000, "workers": 1,
                  "basin_states": 20_000, **keys})
    return jobs.create(archive, jobs.NewJob(spec, False, False, None)), spec


def played(archive, job_id, spec, summary, chunk):
    """Chunk `chunk` handed out now, played (in this process) and kept."""
    result = drivers.work(drivers.of(spec).handed(spec, summary), chunk)
    drivers.keep(archive, job_id, spec, result, summary)
    return result


# ---------------------------------------------------------------- its checks and small pieces

def test_the_hunt_s_walk_is_wider_than_the_perturb_walk_s():
    rules = HuntRules()
    assert rules.walk() == {"changes": 3, "reach": 6} and rules.guide == "smallest"
    assert PerturbRules() == PerturbRules(changes=2, reach=3)


@pytest.mark.parametrize("keys, message", [
    ({"hunt": {"guide": "wide"}}, "[hunt]: guide must be one of breadth, smallest, balance, not 'wide'"),
    ({"hunt": {"changes": 0}}, "[hunt]: changes must be a whole number from 1 to 100"),
    ({"hunt": {"leaps": 2}}, "[hunt]: unknown option 'leaps' (known: changes, reach, guide)"),
    ({"perturb": {"reach": 2}}, "[perturb] is given but the driver is 'hunt'"),
    ({"players": 3}, "the hunt driver builds two-player loops, not 3-player ones"),
    ({"split": 20}, "the hunt driver builds loops of any split: 'split' does not apply"),
    ({"deck": "1 1J 1Q"}, "a deck of 3 cards is too small"),
    ({"engine": "reference"}, "the hunt driver's walks run on the compiled engine or a GPU engine"),
    ({"players": 2, "engine": "gpu-host", "hunt": {"guide": "wide"}}, "[hunt]: guide must be one of"),
])
def test_bad_hunt_job_files_are_refused(keys, message):
    with pytest.raises(jobs.JobError) as refused:
        check({"driver": "hunt", **keys}, "h.toml")
    assert str(refused.value).startswith("h.toml: ") and message in str(refused.value)


def test_a_bad_hunt_job_is_one_line_and_leaves_no_archive(tmp_path):
    bad_input(beggar("search", job_file(tmp_path, driver="hunt", extra='[hunt]\nguide = "wide"\n'), "--archive",
                     tmp_path / "a.sqlite"), "[hunt]: guide must be one of")
    assert not (tmp_path / "a.sqlite").exists()


def test_a_hunt_needs_a_loop_to_start_from(tmp_path):
    spec = check({"driver": "hunt", "deck": "half"})
    with Archive(tmp_path / "a.sqlite") as archive, pytest.raises(jobs.JobError) as refused:
        drivers.of(spec).start(archive, spec)
    assert str(refused.value) == ("no full loop of the half deck to hunt from: the archive holds none and none is "
                                  "published (run a grow job first)")


def test_the_shipped_hunt_jobs_start_from_the_known_loops_of_their_decks(tmp_path):
    for name, deck in (("hunt", "standard"), ("hunt-camicia", "camicia")):
        spec = jobs.load(name)
        assert (spec["driver"], spec["deck"], spec["players"]) == ("hunt", deck, 2)
        assert HuntRules(**spec["hunt"]) == HuntRules()
        with Archive(tmp_path / f"{name}.sqlite") as archive:
            drivers.of(spec).start(archive, spec)
        # Standard: Casella's, the shipped loop-52-balanced and the hunt's
        # loops-52-hunt; camicia: Zanotto's and Carmicia.
        assert spec["start"] == known_loops(deck)


def test_a_seated_loop_is_its_two_players_loop(tiny_loops):
    loop = tiny_loops[0]
    hands, _ = loop.state
    assert loops.of_deal(Deal.from_codes([hands[0], (), hands[1]])) == loop
    # A start key written before archive format 6 held the empty hand of a player out.
    then = bytes([len(hands[0]), *hands[0], 0, len(hands[1]), *hands[1]]).hex()
    assert two_player_key(then) == loop.hex == two_player_key(loop.hex)


def test_a_walk_is_given_every_loop_known_in_an_order_of_its_own():
    keys = [f"{n:04x}" for n in range(100)]
    first = ordered(keys, 1, 0)
    assert sorted(first) == keys and first == ordered(keys, 1, 0)
    assert first != ordered(keys, 1, 1) and first != ordered(keys, 2, 0)


def test_perturbation_is_played_by_the_job_s_engine(tiny_loops):
    """factory.perturbation, the one call of a walk: the compiled engine's,
    and the GPU kernels' on this machine's cores (gpu-host), find the same
    loops; the reference engine has no walks."""
    spec = check({"driver": "hunt", "deck": TINY, "seed": 1})
    states = [tiny_loops[0].state]
    walk = perturbation(spec, states, 0, 20_000, HuntRules().walk())
    assert walk == _loops.perturb(states, TINY, 1, 0, 20_000, changes=3, reach=6) and walk.tries == 20_000
    assert len(walk.loops) == 2
    assert perturbation({**spec, "engine": "gpu-host"}, states, 0, 20_000, HuntRules().walk()) == walk
    with pytest.raises(EngineError, match="not the reference engine"):
        perturbation({**spec, "engine": "reference"}, states, 0, 1000, HuntRules().walk())


def test_a_loop_seated_finds_balanced_deals_of_three_and_four_players(tiny_loops):
    spec = check({"driver": "hunt", "deck": TINY, "basin_states": 20_000})
    for loop in tiny_loops:
        seated = seat(spec, loop, "smallest")
        record = record_of(seated)
        assert stats_problem({"growth": {}, "loops": [], "hunt": {
            "from": 1, "at": 1, "added": [], "new": 0, "workers": 1, "walk_ms": 0, "seat_ms": 0,
            "seated": [record]}}, Deck.parse(TINY)) is None
        for players in (3, 4):
            table = seated.tables[players]
            assert record[str(players)]["deals"] == len(table.deals)
            for deal, compiled, reference in table.deals:
                assert [len(hand) for hand in deal.hands] == hand_sizes(deal.total, players)
                assert compiled == reference and compiled.status == "loop"
                assert reference.engine == "reference"
            if table.deals:
                assert record[str(players)]["smallest"] == min(hand_sizes(18, players))
    assert sum(record_of(seat(spec, loop, "smallest"))["3"]["deals"] for loop in tiny_loops) > 0


def _record(**changes):
    """A hunt chunk's statistics of TINY as a chunk keeps them, with `changes`
    ({'seated.0.3.smallest': value}; KeyError deletes the field)."""
    key = state_key(((0,) * 9 + (1,), (0,) * 7 + (1,)), 0).hex()
    search = {"states": 5, "deals": 0, "stopped_by": None, "smallest": None, "best": None}
    seated = {"loop": key, "basin": dict(search), "3": {**search, "smallest": 5, "best": "-----/-----J/------J"},
              "4": dict(search)}
    record = {"from": 1, "at": 2, "added": [key], "new": 1, "workers": 2, "walk_ms": 10, "seat_ms": 5,
              "seated": [seated]}
    for path, value in changes.items():
        target = record
        *keys, last = path.split(".")
        for part in keys:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if value is KeyError:
            del target[last]
        else:
            target[last] = value
    return {"growth": {"tries": 10}, "loops": [], "hunt": record}


@pytest.mark.parametrize("changes, problem", [
    ({}, None),
    ({"from": 3}, "says it started from 3 loops, of 2 known when kept"),
    ({"from": 0}, "says it started from 0 loops"),
    ({"workers": 0}, "holds 0, not a count from 1"),
    ({"new": -1}, "holds -1, not a count"),
    ({"added": ["zz"]}, "not a state written in hex"),
    ({"added": ["0a" + "00" * 10 + "0800"]}, "is cut short"),
    ({"seat_ms": KeyError}, "not a hunt's start, loops added and seats"),
    ({"seated.0.3.smallest": 6}, "not the smallest hand of -----/-----J/------J"),
    ({"seated.0.3.best": "-----/-----J/-----J"}, "not a state of 3 hands of the deck"),
    ({"seated.0.4.stopped_by": "patience"}, "not one of states, time"),
    ({"seated.0.basin.smallest": 3}, "not none (no best state)"),
    ({"seated.0.5": {}}, "a loop's seats"),
])
def test_a_hunt_record_is_read_back_checked(changes, problem):
    found = stats_problem(_record(**changes), Deck.parse(TINY))
    assert (found is None) if problem is None else (problem in found), found
    if problem is None:
        assert stats_problem({"hunt": _record()["hunt"]}) == "hold 'hunt' without 'growth'"


def test_the_loops_a_job_knows_are_rebuilt_in_the_order_they_were_added():
    start = ["aa"]
    records = [(3, {"hunt": {"at": 2, "added": ["cc"], "seated": []}}),
               (1, {"hunt": {"at": 1, "added": ["bb"], "seated": []}}),
               (2, {"hunt": {"at": 1, "added": [], "seated": []}}),
               (0, {"growth": {}})]
    state = HuntState(list(start), 1)
    for chunk, record in in_order(records):
        state.follow(chunk, record, "here")
    assert state.keys == ["aa", "bb", "cc"] and state.known == {"aa", "bb", "cc"}
    for bad in ({"at": 1, "added": ["cc"], "seated": []}, {"at": 3, "added": ["bb"], "seated": []},
                {"at": 3, "added": ["dd", "dd"], "seated": []}):
        with pytest.raises(ArchiveFault, match="here: the loops chunk 9 added .* do not follow on from the 3"):
            state.follow(9, bad, "here")


def test_a_chunk_kept_adds_its_loops_and_a_second_report_of_them_doubles_nothing(tmp_path, tiny_loops):
    """One loop to start from: chunk 0's walk finds the deck's two others, seats
    them and keeps their balanced deals of 2, 3 and 4 players; chunk 1, handed
    out before chunk 0 was kept (from the one loop), finds them again: kept
    once, added once; chunk 2, handed out after, starts from all three."""
    with Archive(tmp_path / "a.sqlite") as archive:
        job_id, spec = hunt_job(archive, TINY, tiny_loops[:1])
        summary = Summary(job_id, "stopped", 1)
        driver = drivers.of(spec)
        driver.going_on(archive, job_id, spec, summary)
        handed = driver.handed(spec, summary)
        first = played(archive, job_id, spec, summary, 0)
        others = {loop.hex for loop in tiny_loops[1:]}
        assert {seated.loop.hex for seated in first.growth["seated"]} == others
        games = archive.games(job=job_id)
        assert {game["players"] for game in games} == {2, 3, 4}
        assert summary.kept == len(games) and len(summary.new_loops) == 2
        second = drivers.work(handed, 1)
        drivers.keep(archive, job_id, spec, second, summary)
        assert len(archive.games(job=job_id)) == len(games) and len(summary.new_loops) == 2
        third = played(archive, job_id, spec, summary, 2)
        assert third.growth["from"] == 3 and not third.growth["seated"]
        assert summary.hunt.keys[0] == tiny_loops[0].hex and set(summary.hunt.keys[1:]) == others
        # Going on: the same loops, in the same order, and the same best.
        again = Summary(job_id, "stopped", 1)
        driver.going_on(archive, job_id, spec, again)
        assert again.hunt.keys == summary.hunt.keys and again.hunt.best == summary.hunt.best
        records = archive.chunk_records(job_id)
        assert [stats["hunt"]["from"] for _, stats in records] == [1, 1, 3]
        assert [stats["hunt"]["added"] for _, stats in records] == [summary.hunt.keys[1:], [], []]
        figures = driver.job_figures(archive, job_id, spec)["hunt"]
        best = summary.hunt.best
        assert (figures["new_loops"], figures["loops_known"], figures["loops_seated"]) == (2, 3, 2)
        assert figures["perturbations"] == 60_000 and figures["perturbations_per_second"] > 0
        assert figures["best3"] == {**best, "sizes": "/".join(str(len(hand)) for hand in best["deal"].split("/"))}
        assert [(seated["loop"], seated["chunk"]) for seated in figures["seated"]] == [
            (key, 0) for key in summary.hunt.keys[1:]]
        assert max(seated["3"]["smallest"] for seated in figures["seated"]) == best["smallest"]
        assert best["smallest"] == 6 and best["chunk"] == 0 and best["loop"] in others
        lines = driver.summary(summary, "a.sqlite")
        assert f"best3    6 ({figures['best3']['sizes']}: {best['deal']}), the largest smallest hand at a table " \
               f"of 3, from loop {best['loop_id']} (chunk 0)" in lines
        assert any(line.startswith("loops    2 new loops (") and line.endswith(
            "an hour), 4 loops reported; it perturbs from 3 loops now (1 to start with)") for line in lines)


# ---------------------------------------------------------------- jobs through the command

def _grown_archive(tmp_path, tries=300_000):
    """An archive holding the loops a grow job of SMALL found: the hunt's start."""
    path = tmp_path / "a.sqlite"
    grow = job_file(tmp_path, "g", driver="grow", seed=1, deals=tries, chunk=tries,
                    extra=f'deck = "{SMALL}"\n[grow]\nstart_courts = 0\n')
    run = beggar("search", grow, "--archive", path, "--quiet", "--workers", 1)
    assert run.returncode == 0, run.stderr
    with Archive(path) as archive:
        start = {row["key"] for row in archive.loops() if row["players"] == 2}
    assert start
    return path, start


def _hunt_file(tmp_path, deals, chunk=50_000, deck=SMALL):
    return job_file(tmp_path, "h", driver="hunt", seed=7, deals=deals, chunk=chunk,
                    extra=f'deck = "{deck}"\nbasin_states = 20000\n')


def _wait_for_hunt_chunks(path, chunks, process, seconds=120):
    """Once the hunt job on archive `path` (after the grow job that gave it
    its start) has kept `chunks` chunks; fails at once if `process` ends first."""
    uri = path.resolve().as_uri() + "?mode=ro"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.1)
        assert process.poll() is None, f"the job ended (exit {process.returncode}) first"
        try:
            with closing(sqlite3.connect(uri, uri=True)) as db:
                if db.execute("SELECT count(*) FROM chunks WHERE job LIKE 'h-%'").fetchone()[0] >= chunks:
                    return
        except sqlite3.OperationalError:
            pass        # a writer holds it for a moment
    raise AssertionError(f"the hunt kept no {chunks} chunks in {seconds} s")


def _replays_as_loops(archive, job):
    """Every game job `job` kept is a balanced deal that loops on both engines,
    into the loop it is kept under; [(deal, players)]."""
    kept = []
    for game in archive.games(job=job):
        deal = Deal.parse(game["deal"])
        assert [len(hand) for hand in deal.hands] == hand_sizes(deal.total, deal.players) and (
            deal.players > 2 or len(deal.hands[0]) == len(deal.hands[1]))
        compiled, reference = engine.play(deal), engine.play(deal, engine="reference")
        assert compiled == reference and compiled.status == "loop" and not game["disputed"]
        assert loops.of_deal(deal, engine_name="reference").hex == game["loop"]
        kept.append((game["deal"], deal.players))
    return kept


@pytest.mark.slow
def test_a_hunt_on_the_gpu_kernels_finds_seats_and_keeps_what_one_on_the_compiled_engine_does(tmp_path):
    # One chunk (what it starts from is then fixed): its walk on the kernels,
    # its seats searched by the GPU job's checkers.
    path, _ = _grown_archive(tmp_path)
    other = tmp_path / "b.sqlite"
    shutil.copy(path, other)
    hunt = _hunt_file(tmp_path, 200_000, chunk=200_000)
    kept_by = {}
    for archive, engine_name in ((path, "gpu-host"), (other, "compiled")):
        run = beggar("search", hunt, "--engine", engine_name, "--archive", archive, "--quiet")
        assert run.returncode == 0, run.stderr
        with Archive(archive) as opened:
            name = opened.last_job()
            kept_by[engine_name] = (sorted(row["key"] for row in opened.loops(job=name)),
                                    sorted((game["deal"], game["players"]) for game in opened.games(job=name)))
    assert kept_by["gpu-host"] == kept_by["compiled"] and kept_by["compiled"][1]


@pytest.mark.slow
def test_a_hunt_job_seats_the_loops_it_finds_and_keeps_their_deals_of_3_and_4_players(tmp_path):
    path, given = _grown_archive(tmp_path)
    run = beggar("search", _hunt_file(tmp_path, 400_000), "--archive", path, "--quiet")
    assert run.returncode == 0, run.stderr
    assert "28 3J 1Q deck, 2 players, loops of any split, each new one seated at tables of 3 and 4" in run.stderr
    out = run.stdout
    assert re.search(r"^tries    400,000 perturbations in [\d.]+ s: [\d,]+ perturbations/s on 2 workers \(their "
                     r"walks alone: [\d,]+ perturbations/s a worker\)$", out, re.M), out
    name = job_id(out)
    with Archive(path) as archive:
        ((_, spec),) = [job for job in archive.jobs() if job[0] == name]
        assert set(spec["start"]) == given
        found = {row["key"] for row in archive.loops(job=name)}
        on_cycles = {row["players"] for row in archive.loops(job=name)}
        into = {game["loop"] for game in archive.games(job=name)}
        kept = _replays_as_loops(archive, name)
        records = archive.chunk_records(name)
        figures = drivers.of(spec).job_figures(archive, name, spec)["hunt"]
    assert found and not found & given
    assert re.search(rf"^loops    {len(found)} new loops \([\d,.]+ an hour\), \d+ loops reported; it perturbs "
                     rf"from {len(found) + len(given)} loops now \({len(given)} to start with\)$", out, re.M), out
    # One row a loop: the deals of 3 and 4 players fall into the two-player loops it seated.
    assert {players for _, players in kept} == {2, 3, 4} and on_cycles == {2} and into <= found | given
    by_players = {players: sum(1 for _, p in kept if p == players) for players in (2, 3, 4)}
    assert (f"seated   {len(found)} loops: balanced deals that never end, each replayed by the reference engine and "
            f"kept: {by_players[2]:,} of 2 players, {by_players[3]:,} of 3, {by_players[4]:,} of 4") in out
    best = figures["best3"]
    assert best["smallest"] == 10 and (figures["new_loops"], figures["loops_known"]) == (
        len(found), len(found) + len(given))
    assert f"best3    10 ({best['sizes']}: {best['deal']}), the largest smallest hand at a table of 3, " \
           f"from loop {best['loop_id']} (chunk {best['chunk']})" in out
    assert "NEW      *** NEW LOOP: a balanced deal that never ends" in out
    added = [key for _, stats in records for key in stats["hunt"]["added"]]
    assert sorted(added) == sorted(found)
    jobs_run = beggar("archive", "jobs", "--archive", path)
    assert jobs_run.returncode == 0, jobs_run.stderr
    assert re.search(rf"^  new loops {len(found)} in [\d.]+ h \([\d,.]+ an hour\); [\d,]+ perturbations/s a "
                     rf"worker; {len(found) + len(given)} loops to perturb from; best 3-seat balance 10 "
                     rf"\({best['sizes']}\) from loop {best['loop_id']} \(chunk {best['chunk']}\)$",
                     jobs_run.stdout, re.M), jobs_run.stdout
    listed = json.loads(beggar("archive", "jobs", "--archive", path, "--json").stdout)
    assert [row["hunt"] for row in listed if row["id"] == name] == [figures]


@pytest.mark.slow
def test_a_hunt_stopped_by_sigterm_resumes_from_the_loops_it_found_with_nothing_lost_or_doubled(tmp_path):
    path, given = _grown_archive(tmp_path)
    job = start("search", _hunt_file(tmp_path, 0, chunk=20_000), "--archive", path, "--quiet")
    try:
        _wait_for_hunt_chunks(path, 3, job)
    finally:
        job.send_signal(signal.SIGTERM)
        out, err = job.communicate(timeout=60)
    assert job.returncode == 143, err
    name = job_id(out)
    assert "stopped (SIGTERM)" in out and f"resume   beggar search --resume {name}" in out
    assert re.search(r"^best3    \d+ \(", out, re.M), out
    with Archive(path) as archive:
        before_games = {game["deal"] for game in archive.games(job=name)}
        before_chunks = archive.chunks_done(name)
        summary = Summary(name, "stopped", 1)
        drivers.get("hunt").going_on(archive, name, json.loads(archive.db.execute(
            "SELECT spec FROM jobs WHERE id = ?", (name,)).fetchone()[0]), summary)
        known = list(summary.hunt.keys)
    assert before_chunks and len(known) > len(given)
    resumed = beggar("search", "--resume", name, "--archive", path, "--time", 3, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert re.search(rf"it perturbs from \d+ loops now \({len(given)} to start with\)", resumed.stdout)
    assert "job all " in resumed.stdout
    with Archive(path) as archive:
        after_chunks = archive.chunks_done(name)
        records = dict(archive.chunk_records(name))
        games = archive.games(job=name)
        kept = _replays_as_loops(archive, name)
        found = {row["key"] for row in archive.loops(job=name) if row["players"] == 2}
    assert after_chunks > before_chunks
    # Every chunk of the resumed run started from every loop the first found.
    assert all(records[chunk]["hunt"]["from"] >= len(known) for chunk in after_chunks - before_chunks)
    assert {game["deal"] for game in games} >= before_games and len(games) == len({g["deal"] for g in games})
    added = [key for stats in records.values() for key in stats["hunt"]["added"]]
    assert len(added) == len(set(added)) and set(added) >= found and not set(added) & given
    assert kept


@pytest.mark.slow
@pytest.mark.parametrize("deck", ["standard", "camicia"])
def test_a_hunt_of_a_full_deck_starts_from_its_known_loops(tmp_path, deck):
    path = tmp_path / "a.sqlite"
    run = beggar("search", _hunt_file(tmp_path, 200_000, chunk=100_000, deck=deck), "--archive", path, "--quiet")
    assert run.returncode == 0, run.stderr
    with Archive(path) as archive:
        ((name, spec),) = archive.jobs()
    assert spec["start"] == known_loops(deck)
    assert re.search(r"^tries    200,000 perturbations in", run.stdout, re.M)
    starts = len(known_loops(deck))
    assert re.search(rf"it perturbs from \d+ loops now \({starts} to start with\)$", run.stdout, re.M), run.stdout
