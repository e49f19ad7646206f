"""A job's progress lines (search/progress.py): after a resume they say which
figures are the whole job's and which this run's, as the summary does."""

import io
import re

import pytest

from beggar.search import drivers
from beggar.search.drivers.hunt import HuntState
from beggar.search.progress import JOB_FIGURES, NOW_FIGURES, Progress
from beggar.search.runner import Summary
from beggar.search.spec import DEFAULTS

#: What a driver's figures count when they are neither the job's nor the moment's: this run.
RUN_FIGURES = ("kept", "loop_deals", "new_loops", "new_families", "left")


def _lines(initial, total=1_000_000, time_limit=None, **figures):
    stream = io.StringIO()
    bar = Progress("job-1", total, initial, True, stream=stream, time_limit=time_limit)
    bar.update(100_000, **figures)
    bar.update(150_000, **figures)
    bar.close()
    return stream.getvalue().splitlines()


def test_a_first_run_s_line_is_the_job_s_alone():
    [line] = _lines(0, best=3300, kept=4, loop_deals=0, workers=2)
    assert re.fullmatch(r"\S+ \S+ job-1: 250,000 of 1,000,000 deals \(25\.0 %\), [\d,]+ deals/s, best 3300, "
                        r"kept 4, loop_deals 0, workers 2", line), line


def test_after_a_resume_the_line_tells_the_job_s_figures_from_the_run_s():
    """It said '73,160,000 deals ... best 4256, kept 40': deals and best the
    job's, kept and the rate this run's, with nothing to tell them apart."""
    [line] = _lines(600_000, best=4256, kept=40, loop_deals=1, workers=2)
    assert re.fullmatch(r"\S+ \S+ job-1: job 850,000 of 1,000,000 deals \(85\.0 %\), best 4256; "
                        r"this run 250,000 deals, [\d,]+ deals/s, kept 40, loop_deals 1; workers 2", line), line
    # A time limit's time left is the run's; a hunt's loops known and best balance are the job's.
    [line] = _lines(600_000, time_limit=3600, new_loops=2, known=400, kept=9, best3="4/17/17", workers=1)
    assert re.search(r": job 850,000 of 1,000,000 deals \(85\.0 %\), known 400, best3 4/17/17; this run 250,000 "
                     r"deals, [\d,]+ deals/s, new_loops 2, kept 9, left \d+m\d\ds; workers 1$", line), line


@pytest.mark.parametrize("driver", drivers.ALL, ids=[driver.name for driver in drivers.ALL])
def test_every_figure_a_driver_shows_has_its_scope(driver):
    """A figure added to a driver's progress must be placed: the job's, the
    run's or the moment's, or a resumed line would mislabel it."""
    summary = Summary("job-1", "running", 1)
    if driver.name == "hunt":
        spec = {**DEFAULTS, "deck": "standard", "chunk": 65536, "hunt": {"tables": [2, 3, 4], "round": 65536}}
        summary.payload = HuntState(spec, [])
    shown = set(driver.progress(summary, 3000)) | {"workers", "left"}
    assert shown <= set(JOB_FIGURES) | set(NOW_FIGURES) | set(RUN_FIGURES), shown - set(RUN_FIGURES)
    assert not set(JOB_FIGURES) & set(RUN_FIGURES)


def test_a_log_s_first_line_comes_within_a_quarter_of_the_interval_then_one_each():
    """A job started in a log said nothing for its first minute."""
    clock = [100.0]
    stream = io.StringIO()
    bar = Progress("job-1", 0, 0, True, stream=stream, clock=lambda: clock[0])
    told = []
    for second in range(1, 200):
        clock[0] = 100.0 + second
        bar.update(1000, kept=0)
        if len(stream.getvalue().splitlines()) > len(told):
            told.append(second)
    assert told == [15, 75, 135, 195]


@pytest.mark.parametrize("columns, plain", [(0, True), (80, False)])
def test_a_terminal_of_no_columns_gets_plain_lines_not_a_bar_it_cannot_draw(columns, plain):
    """A terminal of 0 columns showed no progress at all for minutes."""
    import fcntl
    import os
    import pty
    import struct
    import termios
    leader, follower = pty.openpty()
    try:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        with os.fdopen(follower, "w", closefd=False) as stream:
            clock = [0.0]
            bar = Progress("job-1", 1000, 0, True, stream=stream, clock=lambda: clock[0])
            assert bar.plain is plain
            clock[0] = 100.0
            bar.update(10, kept=0)
            bar.close()
        written = os.read(leader, 65536).decode()
    finally:
        os.close(leader)
        os.close(follower)
    assert ("job-1: 10 of 1,000 deals (1.0 %)" in written) is plain, written
