"""The chunks of a running job (search/units.py): runs of the parts its deals
are numbered in, never a part twice, sized from the time finished chunks
took; and what keeping a chunk costs the job's own process (search/keep.py):
its games written in bulk, a keep given up between two parts leaving its
chunk wholly unkept. The times here are set by the tests, never measured."""

import pytest

from beggar.archive import Archive
from beggar.deal import Deal
from beggar.rules import Rules
from beggar.search import drivers
from beggar.search import job as jobs
from beggar.search.keep import PART_GAMES, Cut, keep_games
from beggar.search.runner import Summary
from beggar.search.units import GROWTH, KEEP_SECONDS, Pacer, Plan, Unit

from helpers import MANN_WU


def spec_of(**keys):
    return jobs.check({"seed": 1, "chunk": 1000, "chunk_seconds": 3, **keys})


def handed_out(plan, sizes):
    return [plan.take(size) for size in sizes]


def test_a_plan_hands_out_every_part_missing_once_in_order():
    spec = spec_of(deals=20_000)        # 20 parts
    # Kept: part 0; parts 3-5 (one chunk of 3,000 deals); part 9.
    plan = Plan(spec, [(0, 1000), (3, 3000), (9, 1000)])
    assert handed_out(plan, [5, 5, 2, 100]) == [(1, 2), (6, 3), (10, 2), (12, 8)]
    assert plan.take(1) is None and not plan.left()


def test_a_budget_ending_inside_a_part_and_a_job_without_one():
    spec = spec_of(deals=2_500)         # parts of 1,000, 1,000 and 500 deals
    plan = Plan(spec, [(0, 1000)])
    assert plan.take(10) == (1, 2) and plan.take(1) is None
    assert Plan(spec, [(0, 2500)]).take(1) is None      # one chunk held the whole budget
    endless = Plan(spec_of(deals=0), [(0, 4000), (6, 1000)])
    assert handed_out(endless, [3, 3, 3]) == [(4, 2), (7, 3), (10, 3)]


def test_a_job_of_fixed_chunks_counts_one_part_a_chunk_whatever_its_deals():
    # A walk's tries, a search's states: its chunk records count what it did.
    spec = jobs.check({"seed": 1, "chunk": 1000, "deals": 5000})
    plan = Plan(spec, [(0, 999_999), (2, 1)])
    assert handed_out(plan, [1, 1, 1, 1]) == [(1, 1), (3, 1), (4, 1), None]


class Result:
    def __init__(self, deals, seconds, check_seconds=0.0, hits=0):
        self.deals, self.seconds, self.check_seconds, self.hits = deals, seconds, check_seconds, [None] * hits


def test_chunks_grow_from_one_part_to_the_seconds_they_are_meant_to_take():
    pacer = Pacer(spec_of(), 3.0)
    assert pacer.parts() == 1 and pacer.expected(1) is None
    pacer.finished(Result(1000, 0.01), 1, 0.0)          # 0.01 s a part: 300 parts make 3 s
    assert pacer.parts() == GROWTH                       # but a chunk grows by GROWTH at most
    pacer.finished(Result(4000, 0.04), GROWTH, 0.0)
    assert pacer.parts() == GROWTH ** 2
    for _ in range(10):
        pacer.finished(Result(300_000, 3.0), 300, 0.0)
    assert pacer.parts() == 300 and pacer.expected(300) == pytest.approx(3.0)


def test_a_machine_grown_busy_gets_smaller_chunks_and_a_time_limit_smaller_still():
    pacer = Pacer(spec_of(), 3.0)
    for _ in range(10):
        pacer.finished(Result(300_000, 3.0), 300, 0.0)
    # Four times as slow now (the cores are shared): after two chunks, a
    # third of the parts, nearing a quarter.
    pacer.finished(Result(300_000, 9.0, 3.0), 300, 0.0)
    pacer.finished(Result(75_000, 3.0), 75, 0.0)
    assert 75 <= pacer.parts() <= 100
    pacer.finished(Result(90_000, 3.6), 90, 0.0)
    assert 75 <= pacer.parts() < 90
    assert pacer.parts(1.0) == pacer.parts() // 3
    assert pacer.parts(0.0) == pacer.parts(-5) == 1     # the time is up: one part, progress all the same


def test_a_chunk_holds_no_more_hits_than_the_job_keeps_in_half_a_second():
    pacer = Pacer(spec_of(), 3.0)
    for _ in range(5):
        # Every deal a hit; keeping one takes 50 µs here, so 10,000 in half a second.
        pacer.finished(Result(1000, 0.001, hits=1000), 100, 0.05)
    assert pacer.parts() == int(KEEP_SECONDS / 50e-6) // 1000


def test_chunk_seconds_is_for_the_jobs_of_dealt_deals(tmp_path):
    assert spec_of()["chunk_seconds"] == 3.0
    assert jobs.check({"seed": 1})["chunk_seconds"] == 0       # given by prepare, for a new job
    for bad in (-1, "3", True, 10 ** 6):
        with pytest.raises(jobs.JobError, match="'chunk_seconds' must be a number of seconds"):
            spec_of(chunk_seconds=bad)
    with pytest.raises(jobs.JobError, match="a climb job's chunk is one"):
        jobs.check({"seed": 1, "driver": "climb", "chunk_seconds": 2})
    # A stored spec from before chunks of parts: chunks of one part.
    assert jobs.stored({k: v for k, v in spec_of().items() if k != "chunk_seconds"})["chunk_seconds"] == 0


def flood_chunk():
    """A chunk of a small deck's job whose every deal loops or lasts: 2,000
    deals of 18 cards (153 deals in all: most come again), checked."""
    spec = jobs.check({"deck": "16 2J", "seed": 5, "chunk": 6000, "min_cards": 0})
    result = drivers.work(spec, Unit(0))
    assert len(result.games) > 2 * PART_GAMES
    return spec, result


def test_a_flood_is_kept_in_bulk_as_one_by_one(tmp_path):
    spec, result = flood_chunk()
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.add_job("j", spec)
        summary = Summary("j", "running", 1)
        keep_games(archive, "j", spec, result, summary, None)
        games = {game["deal"]: game for game in archive.games()}
        loops = archive.loops()
    distinct = {str(game.deal) for game in result.games}
    assert set(games) == distinct and summary.kept == len(distinct)
    assert summary.known == len(result.games) - len(distinct)
    assert summary.loops == sum(game.outcome.status == "loop" for game in result.games) > 0
    # Every loop game names its loop, each loop kept once.
    assert {game["loop"] for game in games.values() if game["status"] == "loop"} == {row["key"] for row in loops}
    assert len(loops) == len({row["key"] for row in loops})


def test_games_added_in_bulk_get_the_ids_of_one_by_one_and_their_parents(tmp_path):
    rules = Rules()
    first, second = Deal.parse(MANN_WU), Deal.shuffled(seed=4)
    from beggar import engine
    one, two = engine.play(first), engine.play(second)
    with Archive(tmp_path / "a.sqlite") as archive:
        with archive.transaction():
            archive.add_game(second, rules, two, two)
            added = archive.add_games([(first, rules, one, one, "j", "sample", 1, 0, None, None, None),
                                       (second, rules, two, two, "j", "extension", 1, 0, first, None, None),
                                       (first, rules, one, one, "j", "sample", 1, 0, None, None, None)])
        assert added == [(2, True), (1, False), (2, False)]
        assert archive.game(1)["parent"] is None          # kept before: left as it was
        third = Deal.shuffled(seed=5)
        with archive.transaction():
            archive.add_games([(third, rules, engine.play(third), engine.play(third), "j", "extension", 1, 0,
                                first, None, None)])
        assert archive.game(3)["parent"] == 2


def test_a_keep_given_up_between_two_parts_keeps_nothing_of_its_chunk(tmp_path):
    spec, result = flood_chunk()
    calls = []

    def between():
        calls.append(1)
        raise Cut

    with Archive(tmp_path / "a.sqlite") as archive:
        archive.add_job("j", spec)
        summary = Summary("j", "running", 1)
        with pytest.raises(Cut):
            keep_games(archive, "j", spec, result, summary, None, between)
        assert calls == [1] and archive.games() == [] and archive.loops() == []
        assert archive.chunks_kept("j") == [] and summary.kept == summary.deals == 0
        # Kept whole afterwards, as on resume.
        keep_games(archive, "j", spec, result, summary, None, lambda: None)
        assert archive.chunks_kept("j") == [(0, 6000)] and summary.deals == 6000
