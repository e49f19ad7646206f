"""The runner's stop policy and dispatch loop (search/runner.py), driven by a
clock and a pool of the tests' own: when a run takes no more work, when the
work in flight is cut off, and what it says of it. The real command's stops
(signals, floods, kills) are the subprocess trials of test_jobs.py,
test_flood.py and test_search.py."""

from concurrent.futures import Future

import pytest

from beggar.archive import Archive
from beggar.search import drivers
from beggar.search import job as jobs
from beggar.search.runner import EXIT_SECONDS, STOP_SECONDS, Dispatch, StopPolicy, Summary
from beggar.search.units import CUT_OFF_SECONDS, Chunks, Unit


class Clock:
    """A clock the test moves."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class Pool:
    """An executor whose units finish when the test says: `finish()` plays
    the oldest one in this process (drivers.work) and sets its result."""

    def __init__(self):
        self.queued = []        # [(future, spec, unit)]
        self.killed = False
        self.shut = False
        self.seconds = None     # what each unit says it took in its worker, where the test sets it

    def submit(self, function, spec, unit):
        future = Future()
        self.queued.append((future, spec, unit))
        return future

    def finish(self, count=1):
        # As an executor does when it comes to a unit cancelled while it waited.
        for future, _, _ in self.queued:
            if future.cancelled():
                future.set_running_or_notify_cancel()
        self.queued = [item for item in self.queued if not item[0].cancelled()]
        for _ in range(count):
            future, spec, unit = self.queued.pop(0)
            if not future.running():
                future.set_running_or_notify_cancel()
            result = drivers.work(spec, unit)
            if self.seconds is not None:
                result.seconds = self.seconds
            future.set_result(result)

    def shutdown(self, wait=True, cancel_futures=False):
        self.shut = True


class Bar:
    def __init__(self):
        self.told, self.updates = [], 0

    def announce(self, line):
        self.told.append(line)

    def update(self, deals, **figures):
        self.updates += 1

    def close(self):
        pass


@pytest.fixture
def run_of(tmp_path, monkeypatch):
    """A Dispatch of a small sample job in a real archive, on the tests'
    clock and pool, its workers' end recorded instead of done."""
    from beggar.search import runner
    monkeypatch.setattr(runner, "_kill_workers", lambda pool: setattr(pool, "killed", True))
    archives = []

    def make(time_limit=None, workers=2, **keys):
        archive = Archive(tmp_path / f"a{len(archives)}.sqlite")
        archives.append(archive)
        spec = jobs.check({"seed": 1, "chunk": 2000, "deals": 20_000, "min_cards": 600, **keys})
        job_id = jobs.create(archive, jobs.NewJob(spec, False, False, None))
        job = archive.job(job_id)
        clock, pool, bar = Clock(), Pool(), Bar()
        summary = Summary(job_id, "stopped", workers)
        summary.driver = spec["driver"]
        source = drivers.of(spec).units(archive, job, spec, summary)
        dispatch = Dispatch(archive, job, spec, pool, lambda: workers, source, StopPolicy(time_limit, clock),
                            summary, bar)
        return dispatch, clock, pool, bar

    yield make
    for archive in archives:
        archive.close()


# ------------------------------------------------------------------ the policy

def test_a_time_limit_asks_for_a_stop_once_it_has_passed():
    clock = Clock()
    policy = StopPolicy(10, clock)
    clock.now += 9.9
    policy.tick()
    assert policy.reason is None and policy.left() == pytest.approx(0.1)
    clock.now += 0.1
    policy.tick()
    assert policy.reason == "time limit of 10 s" and policy.by_clock


def test_the_first_reason_stands_and_sets_the_grace():
    clock = Clock()
    policy = StopPolicy(10, clock)
    policy.ask("Ctrl-C")
    clock.now += 20
    policy.tick()
    assert policy.reason == "Ctrl-C" and not policy.by_clock
    # A signal gives the units in flight what is left of STOP_SECONDS once
    # ending the workers is allowed for, whether or not the run kept one.
    assert policy.grace(True) == policy.grace(False) == STOP_SECONDS - EXIT_SECONDS
    assert policy.deadline(True) == 100 + STOP_SECONDS - EXIT_SECONDS      # from when it was asked for


def test_the_clock_gives_a_second_once_a_unit_is_kept_and_a_signal_s_grace_before():
    clock = Clock()
    policy = StopPolicy(10, clock)
    # No stop yet: the deadline is the time limit's.
    assert policy.deadline(True) == 100 + 10 + CUT_OFF_SECONDS
    assert policy.deadline(False) == 100 + 10 + STOP_SECONDS - EXIT_SECONDS
    clock.now += 10
    policy.tick()
    assert not policy.passed(True)
    clock.now += CUT_OFF_SECONDS
    assert policy.passed(True) and not policy.passed(False)
    assert StopPolicy(None, clock).deadline(True) is None


# ------------------------------------------------------------------ the chunks handed out

def test_no_chunk_is_started_that_would_end_after_the_time_limit():
    spec = jobs.check({"seed": 1, "chunk": 1000, "deals": 10 ** 6})
    chunks = Chunks(spec, [], chunk_seconds=2.0)
    # 4.5 s left, 2 workers, chunks of 2 s: two in flight end at 2 s, the
    # next two at 4 s, a fifth would end at 6 s, past the limit and its second.
    taken = []
    while (unit := chunks.take(4.5, taken, 2)) is not None:
        taken.append(unit)
    assert [unit.chunk for unit in taken] == [0, 1, 2, 3]
    assert chunks.take(None, taken, 2) == Unit(4)           # no time limit: no bound
    # Nothing known of a chunk's time yet: one a worker.
    unknown = Chunks(spec, [(0, 1000)])
    assert unknown.take(5.0, [], 2) == Unit(1) and unknown.take(5.0, [Unit(1), Unit(2)], 2) is None


def test_chunks_of_parts_are_cut_to_the_time_left_and_one_part_at_least():
    spec = jobs.check({"seed": 1, "chunk": 1000, "chunk_seconds": 3})

    class Result:
        deals, seconds, check_seconds, hits = 100_000, 1.0, 0.0, []

    chunks = Chunks(spec, [])
    for _ in range(8):
        chunks.finished(Unit(0, 100), Result, 0.0)          # 0.01 s a part
    assert chunks.take(None, [], 1).parts == 300
    assert 99 <= chunks.take(1.0, [], 1).parts <= 100      # 1 s of parts of 0.01 s, in floating point
    assert chunks.take(0.001, [], 1).parts == 1             # progress all the same
    assert chunks.take(0.0, [], 1) is None                   # the time is up


# ------------------------------------------------------------------ the loop

def test_a_run_keeps_every_unit_in_order_and_is_done(run_of):
    dispatch, clock, pool, bar = run_of()

    def play_all():
        while pool.queued:
            pool.finish()
    original = dispatch.collect

    def collect():
        play_all()
        return original()
    dispatch.collect = collect
    dispatch.run()
    assert dispatch.policy.reason is None and dispatch.summary.deals == 20_000
    assert dispatch.archive.chunks_kept(dispatch.job_id) == [(chunk, 2000) for chunk in range(10)]
    assert bar.updates == 10 and not pool.killed


def test_a_stop_takes_no_new_unit_and_keeps_those_that_finish_in_time(run_of):
    dispatch, clock, pool, bar = run_of(workers=1)
    dispatch.hand_out()
    assert [unit.chunk for unit in dispatch.in_flight.values()] == [0, 1]   # two a worker
    # The first was given to the worker (it runs), the second waits: a stop
    # drops the one waiting and tells of the one running.
    pool.queued[0][0].set_running_or_notify_cancel()
    dispatch.stopping("SIGTERM")
    assert bar.told == ["stopping (SIGTERM): 1 chunk in flight finishes and is kept if done within 2.5 s, "
                        "else cut off then"]
    pool.finish()
    assert dispatch.collect() and dispatch.summary.deals == 2000
    dispatch.hand_out()
    assert not dispatch.in_flight and pool.queued == []      # nothing more handed out
    assert dispatch.cut_off_words() == ""


def test_units_in_flight_past_the_deadline_are_cut_off_and_counted_as_told(run_of):
    dispatch, clock, pool, bar = run_of(workers=2)
    dispatch.hand_out()
    for future, _, _ in pool.queued:
        future.set_running_or_notify_cancel()       # four running: none can be dropped
    dispatch.stopping("Ctrl-C")
    told = bar.told[0]
    assert told.startswith("stopping (Ctrl-C): 4 chunks in flight finish and are kept if done within 2.5 s")
    assert told.endswith("; Ctrl-C again stops now (they are played again on resume)")
    pool.finish()
    assert dispatch.collect()                   # kept within the grace
    clock.now += STOP_SECONDS - EXIT_SECONDS
    assert not dispatch.collect() and pool.killed
    # The summary's count is the message's, less the one kept.
    assert dispatch.cut == 3 and dispatch.cut_off_words() == "; 3 chunks in flight cut off, played again on resume"


def test_a_time_limit_that_no_further_unit_fits_in_says_so(run_of):
    dispatch, clock, pool, bar = run_of(time_limit=10, workers=1)
    dispatch.source.seconds = pool.seconds = 6.0    # a chunk takes 6 s: one ends in time, the next would not
    original = dispatch.collect

    def collect():
        pool.finish(len(pool.queued))
        clock.now += 6
        return original()
    dispatch.collect = collect
    dispatch.run()
    assert dispatch.summary.deals == 2000
    assert dispatch.policy.reason == "time limit of 10 s; no further chunk would finish within it"


def test_the_stop_message_docs_searching_quotes_is_one_the_runner_prints(run_of):
    """docs/searching.md quoted a wording the runner no longer printed."""
    import re
    from pathlib import Path
    page = (Path(__file__).resolve().parents[1] / "docs" / "searching.md").read_text()
    quoted = " ".join(re.search(r"\(`(stopping \(Ctrl-C\): .+?)`", page, re.S).group(1).split())
    dispatch, clock, pool, bar = run_of(workers=2)
    dispatch.hand_out()
    for future, _, _ in pool.queued:
        future.set_running_or_notify_cancel()
    dispatch.stopping("Ctrl-C")
    assert bar.told == [quoted]
