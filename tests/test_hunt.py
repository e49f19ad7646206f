"""The hunt driver: walks steered to the balanced deals a job hunts for, in
rounds, and seats (search/drivers/hunt.py and aim.py).

Quick: its job file's checks, the pool a round walks from, the seat rule,
its records read back and checked, and a hunt of a small deck played in
this process in chunks cut otherwise, handed out and kept in other orders,
stopped and gone on with: the same loops, seats and deals every time.
Slow: real hunt jobs through the command on a deck where loops are common
(28 plain cards, three jacks and a queen), stopped by SIGTERM or SIGKILL
and resumed, on two workers, on the GPU kernels: what one uninterrupted
run on one worker keeps; and the standard and camicia decks from their
known loops."""

import json
import re
import shutil
import signal
import sqlite3
import time
from collections import Counter
from contextlib import closing

import pytest

from beggar import Deal, _loops, engine, loops
from beggar.archive import Archive, ArchiveFault
from beggar.archive.readback import stats_problem
from beggar.decks import Deck, hand_sizes
from beggar.search import drivers
from beggar.search import job as jobs
from beggar.search.drivers import aim
from beggar.search.drivers import regrow
from beggar.search.drivers.hunt import PART, HuntRules, HuntState, HuntUnits, Seat, two_player_key
from beggar.search.job import check
from beggar.search.runner import Summary
from helpers import bad_input, beggar, fault, in_process, job_file, job_id, known_loops, start

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


def hunt_job(archive, deck, start_loops, **keys):
    """A hunt job of `deck` stored in `archive`, which is given the loops
    `start_loops` first: (job id, spec). Parts of 4,096 tries, rounds of 4 parts."""
    with archive.transaction():
        for loop in start_loops:
            archive.add_loop(loop, "grown", "grow", 0)
    hunt = keys.pop("hunt", {})
    spec = check({"driver": "hunt", "deck": deck, "seed": 5, "chunk": 4096, "workers": 1, "basin_states": 5000,
                  "deals": 12 * 4096, "hunt": {"round": 4 * 4096, "seat": "all", **hunt}, **keys})
    return jobs.create(archive, jobs.NewJob(spec, False, False, None)), spec


# ---------------------------------------------------------------- its checks and small pieces

def test_the_hunt_s_defaults_are_kept_whole_in_its_spec():
    rules = HuntRules()
    assert (rules.tables, rules.changes, rules.reach, rules.moves, rules.pool, rules.elite, rules.regrow, rules.trim,
            rules.crowd, rules.seat) == ((2, 3, 4), 4, 8, "wide", "novelty", 5, 4, 4, 64, "cells")
    spec = check({"driver": "hunt", "hunt": {"tables": [3, 2]}})
    assert spec["hunt"] == {**rules.stored(), "tables": [2, 3], "round": 1024 * PART}
    assert spec["chunk"] == PART and spec["chunk_seconds"] == 3 and spec["hunt"]["round"] == 1024 * PART


@pytest.mark.parametrize("keys, message", [
    ({"hunt": {"guide": "wide"}}, "[hunt]: guide must be one of breadth, smallest, balance, not 'wide'"),
    ({"hunt": {"changes": 0}}, "[hunt]: changes must be a whole number from 1 to 100"),
    ({"hunt": {"tables": [2, 5]}}, "[hunt]: tables must be a list of the tables hunted for, of 2, 3 and 4"),
    ({"hunt": {"tables": []}}, "[hunt]: tables must be a list"),
    ({"hunt": {"tables": "2"}}, "[hunt]: tables must be a list"),
    ({"hunt": {"seat": "some"}}, "[hunt]: seat must be one of cells, aimed, all, none, not 'some'"),
    ({"hunt": {"pool": "best"}}, "[hunt]: pool must be one of novelty, map, elite, not 'best'"),
    ({"hunt": {"moves": "far"}}, "[hunt]: moves must be one of small, wide, swap, move, court, split, block, turn, "
                                 "splice, not 'far'"),
    ({"hunt": {"regrow": -1}}, "[hunt]: regrow must be a whole number from 0 to"),
    ({"hunt": {"trim": 0}}, "[hunt]: trim must be a whole number from 1 to"),
    ({"hunt": {"crowd": -1}}, "[hunt]: crowd must be a whole number from 0 to"),
    ({"engine": "gpu-host", "hunt": {"moves": "wide"}}, "[hunt]: the gpu-host engine's walks make small moves only, with no growth walks: set "
                             "moves = \"small\" and regrow = 0 (not 'wide' and 0), or run the hunt on the compiled"),
    ({"hunt": {"elite": -1}}, "[hunt]: elite must be a whole number from 0 to"),
    ({"hunt": {"tables": [2.0]}}, "[hunt]: tables must be a list"),
    ({"hunt": {"round": 1000}}, "[hunt]: round must be a whole number of parts ('chunk', 65,536 tries)"),
    ({"hunt": {"leaps": 2}}, "[hunt]: unknown option 'leaps' (known: tables, changes, reach, moves, round, pool, "
                             "elite, explore, regrow, trim, crowd, seat, guide)"),
    ({"perturb": {"reach": 2}}, "[perturb] is given but the driver is 'hunt'"),
    ({"players": 3}, "the hunt driver builds two-player loops, not 3-player ones"),
    ({"split": 20}, "the hunt driver builds loops of any split: 'split' does not apply"),
    ({"deck": "1 1J 1Q"}, "a deck of 3 cards is too small"),
    ({"engine": "reference"}, "the hunt driver's walks run on the compiled engine or a GPU engine"),
])
def test_bad_hunt_job_files_are_refused(keys, message):
    with pytest.raises(jobs.JobError) as refused:
        check({"driver": "hunt", **keys}, "h.toml")
    assert str(refused.value).startswith("h.toml: ") and message in str(refused.value)


def test_a_hunt_on_a_gpu_engine_walks_with_small_moves_where_its_file_says_nothing_of_them():
    spec = check({"driver": "hunt", "engine": "gpu-host"})
    assert (spec["hunt"]["moves"], spec["hunt"]["regrow"]) == ("small", 0)


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
        with Archive(tmp_path / f"{name}.sqlite") as archive:
            drivers.of(spec).start(archive, spec)
        assert spec["start"] == known_loops(deck)


def test_a_seated_loop_is_its_two_players_loop(tiny_loops):
    loop = tiny_loops[0]
    hands, _ = loop.state
    assert loops.of_deal(Deal.from_codes([hands[0], (), hands[1]])) == loop
    # A start key written before archive format 6 held the empty hand of a player out.
    then = bytes([len(hands[0]), *hands[0], 0, len(hands[1]), *hands[1]]).hex()
    assert two_player_key(then) == loop.hex == two_player_key(loop.hex)


def _known(key, balance, period=50, round_=-1, family="50.300.0000000a", part=0):
    return aim.Known(key, round_, part, period, int(key, 16) | 1, balance, family)


def test_a_round_s_pool_is_the_elite_or_where_none_is_the_nearest():
    total = 52
    # Balances 22, 21 (within 5 of 26: the elite), then 20, 13, 13.
    known = [_known("05", 13), _known("01", 22), _known("04", 13), _known("02", 21), _known("03", 20)]
    assert aim.pool(known, (2, 3), total, 5) == ["01", "02"]
    assert aim.pool(known, (2,), total, 13) == ["01", "02", "03", "04", "05"]      # every one within 13
    # None within 2 cards: those nearest, alone.
    assert aim.pool(known, (2,), total, 2) == ["01"]
    assert aim.pool([known[0], known[2]], (2,), total, 5) == ["04", "05"]
    # Aimed at tables of 3 and 4 alone, which no cycle says anything of: every loop.
    assert aim.pool(known, (3, 4), total, 5) == ["01", "02", "03", "04", "05"] and aim.pool([], (2,), total, 5) == []


def test_a_walk_is_given_the_pool_in_an_order_of_its_own():
    keys = [f"{n:04x}" for n in range(40)]
    first = aim.walk_order(keys, 1, 0)
    assert sorted(first) == keys and first == aim.walk_order(keys, 1, 0)
    assert first != aim.walk_order(keys, 1, 1) and first != aim.walk_order(keys, 2, 0)


def test_the_map_pool_is_the_first_loop_found_of_each_cell():
    a, b = "41.166.0000000a", "31.220.0000000b"
    known = [_known("05", 13, family=a, round_=2), _known("01", 13, family=a, round_=3),
             _known("04", 13, family=a, round_=2, part=1), _known("02", 22, family=b), _known("03", 21, family=b),
             _known("06", 22, family=b, round_=0)]
    # Cells (a, 13), (b, 22), (b, 21): the first found of each, by round, part and key.
    assert aim.pool(known, (2, 3, 4), 52, 5, "map") == ["02", "03", "05"]
    assert aim.pool(known, (2, 3, 4), 52, 5, "elite") == ["02", "06", "03"]


def test_the_novelty_pool_is_the_cells_found_last_or_the_map():
    a, b, c = "41.166.0000000a", "31.220.0000000b", "12.52.0000000c"
    known = [_known("01", 13, family=a), _known("02", 22, family=b, round_=2), _known("03", 13, family=c, round_=5),
             _known("04", 13, family=c, round_=6)]
    # Round r's pool: the cells whose first loop was found in round r - 3 or later. Round 9: none (the
    # first of (c, 13) is round 5's), so the map.
    assert aim.pool(known, (2, 3, 4), 52, 5, "novelty", 9) == ["01", "02", "03"]
    assert aim.pool(known, (2, 3, 4), 52, 5, "novelty", 8) == ["03"]
    assert aim.pool(known, (2, 3, 4), 52, 5, "novelty", 5) == ["02", "03"]


def test_a_loop_is_seated_at_two_where_its_balance_can_reach_a_balanced_deal_and_at_three_and_four_by_its_rule():
    near, far = _known("01", 26 - aim.GAIN), _known("02", 26 - aim.GAIN - 1)
    assert near.seated_at((2, 3, 4), 52, "aimed") == [2, 3, 4] and far.seated_at((2, 3, 4), 52, "aimed") == [3, 4]
    assert near.seated_at((2, 3, 4), 52, "cells") == [2] and far.seated_at((2, 3, 4), 52, "cells") == []
    assert far.seated_at((2,), 52, "all") == [2] and near.seated_at((2, 3), 52, "none") == []
    assert near.gap(52) == aim.GAIN and far.gap(40) == 20 - far.balance


def test_a_round_seats_the_first_loop_of_each_new_cell_at_three_and_four():
    a, b = "41.166.0000000a", "31.220.0000000b"
    before = {(a, 13)}
    found = [_known("09", 13, family=a, round_=1), _known("08", 21, family=b, round_=1, part=3),
             _known("07", 21, family=b, round_=1, part=5), _known("06", 22, family=b, round_=1, part=5)]
    # (a, 13) was known: nothing; (b, 21): part 3's; (b, 22): its one loop.
    assert aim.cell_seats(found, before, (2, 3, 4), "cells") == [("08", 3), ("08", 4), ("06", 3), ("06", 4)]
    assert aim.cell_seats(found, before, (2, 4), "cells") == [("08", 4), ("06", 4)]
    assert aim.cell_seats(found, before, (2, 3, 4), "aimed") == []


def _units(seats, deals=64 * 4096):
    """HuntUnits of a hunt of `deals` tries in parts of 4,096, `seats` seats queued."""
    spec = check({"driver": "hunt", "deck": SMALL, "chunk": 4096, "deals": deals, "hunt": {"round": 16 * 4096}})
    state = HuntState(spec, [])
    state.due = [Seat(f"{n:02x}", 3) for n in range(seats)]
    return HuntUnits(spec, [], state), state


def test_a_family_of_crowd_loops_or_more_is_crowded_for_the_rounds_after():
    a, b = "41.166.0000000a", "31.220.0000000b"
    spec = check({"driver": "hunt", "deck": SMALL, "chunk": 4096, "hunt": {"round": 16 * 4096, "crowd": 3}})
    state = HuntState(spec, [_known(f"{n:02x}", 13, family=a) for n in range(3)] + [_known("10", 13, family=b)])
    assert state.pool(0)[3] == [a]
    # A loop found by round 0 counts from round 2 on, whose pool is fixed once round 0 is complete.
    state.learn(_known("11", 13, family=b, round_=0))
    state.learn(_known("12", 13, family=b, round_=0))
    assert state.pool(1)[3] == [a] and state.pool(2)[3] == [b, a]
    assert HuntState({**spec, "hunt": {**spec["hunt"], "crowd": 0}}, state.known.values()).pool(0)[3] == []


def test_a_part_keeps_four_new_loops_of_a_family_at_most_and_none_of_a_crowded_one():
    from beggar import family, finds
    from beggar.search.drivers.hunt import PART_CROWD, Hunt, Walked
    by_family = {}
    # Loops of the first hunt's (results/loops-52-hunt.json), whose families hold many.
    hunted = [game.deal for game in finds.shipped() if game.name.startswith("loops-52-hunt:")]
    for deal in hunted[:60]:
        loop = loops.of_deal(deal)
        if aim.balance(loop.states) == 13:
            by_family.setdefault(family.of_loop(loop).name, []).append(loop)
    (big, many), (other, few) = sorted(by_family.items(), key=lambda item: -len(item[1]))[:2]
    cycles = _loops.cycle_hashes([loop.state for loop in many[:7] + few[:1]], "standard")
    # Part 0 finds 6 of the big family and one of another; part 1 finds the 6th again and a 7th.
    reported = [(loop.state, 0, cycle) for loop, cycle in zip(many[:6] + few[:1], cycles[:6] + cycles[7:])]
    reported += [(many[5].state, 1, cycles[5]), (many[6].state, 1, cycles[6])]
    spec = check({"driver": "hunt", "deck": "standard"})
    for crowded, kept in (([], {(0, big): PART_CROWD, (0, other): 1, (1, big): 2}), ([big], {(0, other): 1})):
        walked = Walked(0, 10, 52, list(reported), 0.0)
        Hunt().games({**spec, "crowded": crowded}, type("Result", (), {"payload": walked})())
        found = Counter((item.part, item.family) for item in walked.found)
        assert found == kept and walked.crowded == 9 - sum(kept.values())     # 9 reports of 8 loops
    # A hunt without crowds (made before them) keeps every loop once, from the first part that found it.
    walked = Walked(0, 10, 52, list(reported), 0.0)
    Hunt().games({**spec, "hunt": {**spec["hunt"], "crowd": 0}, "crowded": [big]},
                 type("Result", (), {"payload": walked})())
    assert [(item.part, item.hash) for item in walked.found] == [(0, cycle) for cycle in cycles[:6] + cycles[7:]] + \
        [(1, cycles[6])]


def test_walks_go_on_beside_a_queue_of_seats():
    """A hunt's progress stood still for minutes while its first seats were searched."""
    units, state = _units(seats=50)
    # Two workers, two units each in flight at most: at most one seat at a time while walks can be taken.
    in_flight = []
    for _ in range(4):
        in_flight.append(units.take(None, list(in_flight), 2))
    # The first two handed out are at work: a seat and a walk.
    assert sum(unit.task is not None for unit in in_flight) == 1 and state.busy == (1, 1)
    # One worker: a walk after each seat.
    units, state = _units(seats=50)
    taken = []
    for _ in range(6):
        unit = units.take(None, [], 1)
        taken.append(unit.task is not None)
    assert taken == [True, False, True, False, True, False]


def test_seats_take_every_worker_when_no_walk_is_left():
    units, state = _units(seats=10, deals=4096)        # one part of walks in all
    in_flight = []
    for _ in range(4):
        in_flight.append(units.take(None, list(in_flight), 2))
    assert [unit.task is not None for unit in in_flight] == [True, False, True, True] and state.busy == (1, 1)


def test_a_loop_cut_by_a_few_cards_still_loops_and_grows_back_into_new_loops():
    import random
    from beggar.cycle import key_hands
    pool = [key_hands(key) for key in known_loops("standard")[:40]]
    cut = regrow.trimmed(pool[0], 2, random.Random(3))
    assert cut is not None and sum(map(len, cut[0])) == 50
    assert engine.play(Deal.from_codes(cut[0])).status == "loop"
    starts = regrow.starts(pool, 5, 9, 16, 3)
    assert starts == regrow.starts(pool, 5, 9, 16, 3) and len(starts) >= 8
    assert starts != regrow.starts(pool, 5, 10, 16, 3)
    walk = _loops.grow("standard", 1, 0, 50_000, starts=starts)
    found = {loops.of_state(hands, leader).hex for hands, leader in walk.loops}
    # Full loops, some of them new: not one of the loops cut.
    assert walk.largest == 52 and found - set(known_loops("standard"))
    for bad in ([((), (1, 1)), 0], [((1,) * 16, (1, 1, 0)), 0], [(pool[0][0] + pool[0][1], (0,)), 0]):
        with pytest.raises(ValueError, match="start 0"):
            _loops.grow("standard", 1, 0, 10, starts=[bad])


def test_a_loop_s_balance_is_its_cycle_s_largest_smaller_hand(tiny_loops):
    for loop in tiny_loops:
        assert aim.balance(loop.states) == max(min(len(hand) for hand in hands) for hands, _ in loop.states)


# ---------------------------------------------------------------- a hunt played here

def _play_here(archive, job_id, spec, width=1, last_first=False, keep_at_most=None):
    """Play the hunt in this process as the runner does: units handed out
    while `width` are in flight (each played at once, with the spec it is
    handed then), kept oldest first, or newest first; stopped (what is in
    flight dropped) after `keep_at_most` keeps. Returns whether it ended."""
    driver = drivers.of(spec)
    summary = Summary(job_id, "stopped", 1)
    summary.driver = "hunt"
    driver.going_on(archive, job_id, spec, summary)
    units = driver.units(archive, archive.job(job_id), spec, summary)
    in_flight, kept = [], 0
    while True:
        while len(in_flight) < width and (unit := units.take(None, [u for u, _ in in_flight], width)) is not None:
            in_flight.append((unit, drivers.work(driver.handed(spec, summary, unit), unit)))
        if not in_flight:
            return True
        if keep_at_most is not None and kept == keep_at_most:
            return False
        unit, result = in_flight.pop(-1 if last_first else 0)
        drivers.keep(archive, job_id, spec, result, summary)
        units.finished(unit, result, 0.0)
        kept += 1


def _kept(archive, job_id):
    """What a hunt kept: its loops, seats and deals, as sets."""
    loops_kept = {row["key"] for row in archive.loops(job=job_id) if row["chunk"] is not None}
    seats = {(row["loop"], row["players"], row["states"], row["deals"], row["smallest"], row["best"])
             for row in archive.seats(job_id)}
    deals = {game["deal"] for game in archive.games(job=job_id)}
    return loops_kept, seats, deals


def test_a_hunt_keeps_the_same_loops_seats_and_deals_however_its_units_are_cut_handed_out_and_kept(
        tmp_path, tiny_loops):
    results = []
    for number, (width, last_first, stops) in enumerate([(1, False, 0), (3, True, 0), (2, False, 3)]):
        with Archive(tmp_path / f"{number}.sqlite") as archive:
            job, spec = hunt_job(archive, TINY, tiny_loops[:1])
            for _ in range(stops):
                assert not _play_here(archive, job, spec, width, last_first, keep_at_most=2)
            assert _play_here(archive, job, spec, width, last_first)
            results.append(_kept(archive, job))
            seats = archive.seats(job)
            games = archive.games(job=job)
            records = archive.chunk_records(job)
    assert results[0] == results[1] == results[2]
    found, seated, deals = results[0]
    # The walks found the deck's two other loops, each seated at 2, 3 and 4.
    assert found == {loop.hex for loop in tiny_loops[1:]}
    assert {(row["loop"], row["players"]) for row in seats} == {(key, players) for key in found for players in (2, 3, 4)}
    assert deals and {game["players"] for game in games} == {2, 3, 4}
    assert sum(row["deals"] for row in seats) == len(games)
    for game in games:
        deal = Deal.parse(game["deal"])
        assert [len(hand) for hand in deal.hands] == hand_sizes(deal.total, deal.players)
        assert game["driver"] == ("basin" if deal.players == 2 else "elimination") and not game["disputed"]
    # Each record is of one round and lists every loop its walks reported.
    assert all(stats_problem(stats, Deck.parse(TINY), "hunt") is None for _, stats in records)
    assert {entry[0] for _, stats in records for entry in stats["hunt"]["loops"]} == found


def test_a_hunt_s_records_are_checked_when_read_back(tmp_path, tiny_loops):
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        job, spec = hunt_job(archive, TINY, tiny_loops[:1], deals=4 * 4096)
        assert _play_here(archive, job, spec)
        (first, stats), *_ = [(chunk, stats) for chunk, stats in archive.chunk_records(job) if stats["hunt"]["loops"]]
    damages = [
        # The loops a record lists, emptied: the loops table says that chunk found them.
        ("UPDATE chunks SET stats = json_set(stats, '$.hunt.loops', json('[]')) WHERE chunk = ?",
         "says chunk {chunk} found it, and that chunk's record does not list it"),
        # Its hunt part removed: no longer a hunt's record.
        ("UPDATE chunks SET stats = json_remove(stats, '$.hunt') WHERE chunk = ?", "hold no field"),
        ("UPDATE chunks SET stats = json_set(stats, '$.hunt.round', 7) WHERE chunk = ?", "says round 7"),
        ("UPDATE chunks SET stats = json_set(stats, '$.hunt.loops[0][1]', 999) WHERE chunk = ?",
         "as found by part 999, which is not one of its"),
        ("UPDATE chunks SET stats = json_set(stats, '$.hunt.loops[0][3]', 'xyz') WHERE chunk = ?",
         "not a loop's cycle hash"),
        ("UPDATE seats SET players = 5 WHERE ? IS NOT NULL AND players = 4", "holds 5, not a count from 2 to 4"),
        ("UPDATE seats SET best = '--J/--' WHERE ? IS NOT NULL AND players = 3", "its best holds '--J/--'"),
    ]
    for number, (change, message) in enumerate(damages):
        damaged = tmp_path / f"damaged-{number}.sqlite"
        shutil.copy(path, damaged)
        with closing(sqlite3.connect(damaged)) as db:
            assert db.execute(change, (first,)).rowcount >= 1
            db.commit()
        with Archive(damaged) as archive, pytest.raises(ArchiveFault) as refused:
            drivers.of(spec).going_on(archive, job, spec, Summary(job, "stopped", 1))
        assert "damaged" in str(refused.value) and message.format(chunk=first) in str(refused.value), change
        resumed = beggar("search", "--resume", job, "--archive", damaged, "--quiet")
        assert resumed.returncode == 3 and "Traceback" not in resumed.stderr, (change, resumed.stderr)
        assert [line for line in resumed.stderr.splitlines() if line.startswith("beggar search: ")] == \
            [resumed.stderr.strip().splitlines()[-1]], resumed.stderr


def test_a_hunt_of_the_first_kind_is_refused_going_on_in_one_line(tmp_path):
    path = tmp_path / "a.sqlite"
    spec = {**check({"driver": "hunt", "seed": 1}), "hunt": {"changes": 3, "reach": 6, "guide": "smallest"},
            "start": known_loops("standard")}
    with Archive(path) as archive:
        archive.add_job("old-hunt", spec)
    refused = bad_input(beggar("search", "--resume", "old-hunt", "--archive", path), "a hunt of the first kind")
    assert "Start a new hunt" in refused
    listed = beggar("archive", "jobs", "--archive", path)
    assert listed.returncode == 0 and "(a hunt of the first kind)" in listed.stdout


# ---------------------------------------------------------------- jobs through the command

def _grown_archive(tmp_path, tries=300_000):
    """An archive holding the loops a grow job of SMALL found: the hunt's start."""
    path = tmp_path / "a.sqlite"
    grow = job_file(tmp_path, "g", driver="grow", seed=1, deals=tries, chunk=tries,
                    extra=f'deck = "{SMALL}"\n[grow]\nstart_courts = 0\n')
    run = beggar("search", grow, "--archive", path, "--quiet", "--workers", 1)
    assert run.returncode == 0, run.stderr
    with Archive(path) as archive:
        given = {row["key"] for row in archive.loops() if row["players"] == 2}
    assert given
    return path, given


def _hunt_file(tmp_path, deals, deck=SMALL, seat="all", moves=""):
    return job_file(tmp_path, "h", driver="hunt", seed=7, deals=deals, chunk=8192,
                    extra=f'deck = "{deck}"\nbasin_states = 20000\nchunk_seconds = 0.3\n'
                          f'[hunt]\nround = 65536\nseat = "{seat}"\n{moves}')


def _wait_for_hunt(path, what, process, seconds=180):
    """Once the hunt job on archive `path` has kept `what` ("chunks" or
    "seats": SQL of its counts); fails at once if `process` ends first."""
    uri = path.resolve().as_uri() + "?mode=ro"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.1)
        assert process.poll() is None, f"the job ended (exit {process.returncode}) first"
        try:
            with closing(sqlite3.connect(uri, uri=True)) as db:
                if db.execute(what).fetchone()[0]:
                    return
        except sqlite3.OperationalError:
            pass        # a writer holds it for a moment, or the table is not there yet
    raise AssertionError(f"the hunt kept none of {what} in {seconds} s")


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
def test_a_hunt_stopped_and_resumed_or_on_two_workers_keeps_what_one_run_straight_through_keeps(tmp_path):
    grown_path, given = _grown_archive(tmp_path)
    hunt = _hunt_file(tmp_path, 4 * 65536)
    kept = {}
    for way in ("straight", "sigterm", "sigkill", "two workers"):
        path = tmp_path / f"{way}.sqlite"
        shutil.copy(grown_path, path)
        workers = 2 if way == "two workers" else 1
        if way in ("sigterm", "sigkill"):
            job = start("search", hunt, "--archive", path, "--quiet", "--workers", 1)
            _wait_for_hunt(path, "SELECT count(*) FROM seats", job)
            job.send_signal(signal.SIGTERM if way == "sigterm" else signal.SIGKILL)
            _, err = job.communicate(timeout=60)
            assert job.returncode == (143 if way == "sigterm" else -signal.SIGKILL), err
            with Archive(path) as archive:
                name = archive.last_job()
            run = beggar("search", "--resume", name, "--archive", path, "--quiet")
        else:
            run = beggar("search", hunt, "--archive", path, "--quiet", "--workers", workers)
        assert run.returncode == 0, run.stderr
        with Archive(path) as archive:
            name = archive.last_job()
            kept[way] = _kept(archive, name)
            if way == "straight":
                replayed = _replays_as_loops(archive, name)
                straight = run.stdout
    assert kept["sigterm"] == kept["straight"] == kept["sigkill"] == kept["two workers"]
    found, seats, deals = kept["straight"]
    assert found and not found & given and seats and deals and {players for _, players in replayed} >= {3, 4}
    assert re.search(r"^walks    262,144 perturbations in [\d.]+ s: [\d,]+ perturbations/s on 1 worker \(the walks "
                     r"alone: [\d,]+ perturbations/s a worker\)$", straight, re.M), straight
    assert f"seats    {len(seats)} searched, 0 to search" in straight


@pytest.mark.slow
def test_a_hunt_on_the_gpu_kernels_keeps_what_one_on_the_compiled_engine_does(tmp_path):
    path, _ = _grown_archive(tmp_path)
    other = tmp_path / "b.sqlite"
    shutil.copy(path, other)
    # The kernels make the small moves and no growth walks: the compiled engine's hunt is told so too.
    hunt = _hunt_file(tmp_path, 65536, moves='moves = "small"\nregrow = 0\n')
    kept_by = {}
    for archive, engine_name in ((path, "gpu-host"), (other, "compiled")):
        run = beggar("search", hunt, "--engine", engine_name, "--archive", archive, "--quiet")
        assert run.returncode == 0, run.stderr
        with Archive(archive) as opened:
            kept_by[engine_name] = _kept(opened, opened.last_job())
    assert kept_by["gpu-host"] == kept_by["compiled"] and kept_by["compiled"][2]


@pytest.mark.slow
def test_a_hunt_job_says_what_it_found_and_every_command_it_prints_runs(tmp_path):
    path, given = _grown_archive(tmp_path)
    run = beggar("search", _hunt_file(tmp_path, 65536), "--archive", path, "--quiet", "--workers", 2)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert ("28 3J 1Q deck, balanced deals hunted at tables of 2 and 3 and 4, walks from the novelty pool of loop "
            "families") in run.stderr
    name = job_id(out)
    with Archive(path) as archive:
        found = {row["key"] for row in archive.loops(job=name) if row["chunk"] is not None}
        on_cycles = {row["players"] for row in archive.loops(job=name)}
        into = {game["loop"] for game in archive.games(job=name)}
        seats = archive.seats(name)
    # Its rate an hour is told of a run of a minute or more (an_hour).
    assert re.search(rf"^loops    {len(found)} loops new to the hunt(?: \([\d,.]+ an hour\))?, {len(found)} new to the "
                     rf"archive; it knows {len(found) + len(given)} \({len(given)} to start with\)$", out, re.M), out
    for players, smallest in ((3, 10), (4, 8)):
        assert re.search(rf"^best{players}    {smallest} \(", out, re.M), out
    # One row a loop: the deals of 3 and 4 players fall into the two-player loops it seated.
    assert on_cycles == {2} and into <= found
    jobs_run = beggar("archive", "jobs", "--archive", path)
    assert jobs_run.returncode == 0 and f"{len(seats)} seats searched, 0 to search" in jobs_run.stdout
    # Every command the summary prints runs as printed.
    commands = re.findall(r"\((beggar [^)]+)\)", out) + re.findall(r"^resume   (beggar .+)$", out, re.M)
    for command in commands:
        ran = beggar(*command.split()[1:], "--archive", path) if "--archive" not in command else \
            beggar(*command.split()[1:])
        assert ran.returncode == 0, (command, ran.stderr)


@pytest.mark.slow
@pytest.mark.parametrize("deck", ["standard", "camicia"])
def test_a_hunt_of_a_full_deck_starts_from_its_known_loops(tmp_path, deck):
    path = tmp_path / "a.sqlite"
    run = beggar("search", _hunt_file(tmp_path, 2 * 65536, deck=deck, seat="aimed"), "--archive", path, "--quiet")
    assert run.returncode == 0, run.stderr
    with Archive(path) as archive:
        ((name, spec),) = archive.jobs()
    assert spec["start"] == known_loops(deck)
    assert re.search(r"^walks    131,072 perturbations in", run.stdout, re.M)
    starts = len(known_loops(deck))
    assert re.search(rf"it knows \d+ \({starts} to start with\)(;|$)", run.stdout, re.M), run.stdout


def test_a_rate_an_hour_is_told_of_a_run_of_a_minute_or_more_only():
    """A hunt of one second said "(231,426.1 an hour)"."""
    from beggar.search.drivers.hunt import RATE_SECONDS, an_hour
    assert an_hour(64, 1.0) == an_hour(64, RATE_SECONDS - 0.1) == ""
    assert an_hour(88, 300) == " (1,056.0 an hour)" and an_hour(0, RATE_SECONDS) == " (0.0 an hour)"


@pytest.mark.parametrize("change, told", [
    ("json_remove(spec, '$.hunt')", "its spec has no [hunt] table"),
    ("json_remove(spec, '$.hunt.tables')", "its [hunt] table has no tables, and holds 'crowd'"),
])
def test_a_hunt_whose_spec_lost_its_table_is_damaged_not_of_the_first_kind(tmp_path, tiny_loops, change, told):
    """It was taken for a hunt of beggar 0.1.0 ("cannot go on", exit 2)."""
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        job, _ = hunt_job(archive, TINY, tiny_loops[:1])
    with closing(sqlite3.connect(path)) as db:
        db.execute(f"UPDATE jobs SET spec = {change} WHERE id = ?", (job,))
        db.commit()
    before = path.read_bytes()
    for args in (("search", "--resume", job), ("archive", "jobs"), ("archive", "report", tmp_path / "r.html")):
        fault(in_process(*args, "--archive", path), f"job {job}: damaged: {told}")
    assert path.read_bytes() == before


def test_a_hunt_s_loops_and_seats_are_checked_against_its_records_and_deals_when_read_back(tmp_path, tiny_loops):
    """A hunt whose loop row or seat rows were deleted, or whose seats held
    what it never wrote (a seat moved to a start loop, its deals raised),
    read as sound, and a resume did not bring them back."""
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        job, spec = hunt_job(archive, TINY, tiny_loops[:1])
        assert _play_here(archive, job, spec)
        found = sorted(row["key"] for row in archive.loops(job=job) if row["chunk"] is not None)
    start = tiny_loops[0].hex
    damages = [
        ("DELETE FROM loops WHERE key = :found", "record lists loop {short}..., which the archive does not hold"),
        ("DELETE FROM seats WHERE job = :job", "deals of 2 players that fall into loop"),
        ("DELETE FROM seats WHERE job = :job AND players = 4 AND loop = :found",
         "deals of 4 players that fall into loop {short}..., and holds no seat of that loop at that table"),
        ("UPDATE seats SET deals = deals + 5 WHERE players = 3 AND loop = :found",
         "its seat of loop {short}... at 3 says it found"),
        ("UPDATE seats SET loop = :start WHERE players = 3 AND loop = :found",
         f"a seat of loop {start[:16]}... at 3, which the hunt never queued"),
        # A second row of a seat, its key in capitals (the same loop to a reader of hex).
        ("INSERT INTO seats SELECT job, upper(loop), players, states, deals + 1, stopped_by, smallest, best, "
         "seconds, done_at FROM seats WHERE players = 3 AND loop = :found AND :job IS NOT NULL AND :start IS NOT NULL",
         "a loop or table the hunt does not know"),
        # A balance a record says steers the walks: edited, a resume walked from another pool.
        ("UPDATE chunks SET stats = json_set(stats, '$.hunt.loops[0][4]', "
         "json_extract(stats, '$.hunt.loops[0][4]') % 9 + 1) WHERE json_array_length(stats, '$.hunt.loops') > 0 "
         "AND :job IS NOT NULL", "where its cycle has"),
    ]
    for number, (change, told) in enumerate(damages):
        damaged = tmp_path / f"damaged-{number}.sqlite"
        shutil.copy(path, damaged)
        with closing(sqlite3.connect(damaged)) as db:
            assert db.execute(change, {"job": job, "found": found[0], "start": start}).rowcount >= 1, change
            db.commit()
        before = damaged.read_bytes()
        for args in (("archive", "jobs"), ("archive", "report", tmp_path / "r.html"), ("search", "--resume", job)):
            result = in_process(*args, "--archive", damaged)
            fault(result, "damaged", told.format(short=found[0][:16]))
        assert damaged.read_bytes() == before, change
