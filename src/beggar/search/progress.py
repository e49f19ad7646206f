"""A running job's progress on standard error (docs/searching.md): a bar on a
terminal, plain lines elsewhere (nohup, `| tee`), where a bar's carriage
returns would fill the file with overwritten lines."""

from __future__ import annotations

import os
import sys
import time

from tqdm import tqdm

from .. import checks
from ..checks import cut
from .spec import JobError

#: Seconds between two plain progress lines; BEGGAR_PROGRESS_SECONDS changes it.
PLAIN_SECONDS = 60.0

#: The share of that interval after which the first plain line comes.
FIRST_SHARE = 0.25


def plain_seconds():
    """PLAIN_SECONDS, or BEGGAR_PROGRESS_SECONDS (JobError when it is no number
    of seconds: a log that stays silent would look like a hung job)."""
    text = os.environ.get("BEGGAR_PROGRESS_SECONDS")
    if not text:
        return PLAIN_SECONDS
    try:
        # ASCII only: float() reads full-width and other scripts' digits too.
        if not text.isascii() or len(text) > 40:
            raise ValueError(text)
        return checks.seconds(float(text), "BEGGAR_PROGRESS_SECONDS", 10 ** 6)
    except ValueError:
        raise JobError(f"BEGGAR_PROGRESS_SECONDS must be a number of seconds above 0 and at most 1000000, "
                       f"not {cut(text)}") from None


#: The figures of a driver's progress (Driver.progress) that stand for the
#: whole job, its earlier runs included: the longest game (or looping state),
#: a hunt's loops known and its best 3-seat balance. Every other figure
#: counts this run (what it kept, its time left); `workers` is the present.
JOB_FIGURES = ("best", "known", "seats", "best2", "best3", "best4")
#: Figures that are neither the job's nor the run's but the moment's.
NOW_FIGURES = ("workers", "at_work")


def left(seconds):
    """Time left as a progress line shows it: '42s', '7m05s', '3h12m'."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class Progress:
    def __init__(self, job_id, total, initial, shown, unit="deals", stream=None, time_limit=None, bound=None,
                 clock=time.monotonic):
        self.stream = stream or sys.stderr
        self.job_id = job_id
        self.unit = unit            # what the budget counts: deals, or the loop factory's tries
        self.total = total
        # A bound the chunks may stop short of is no budget: no share of it is shown.
        self.bound = bound
        self.deals = initial
        self.played = 0             # in this run
        self.figures = {}
        self.clock = clock          # time.monotonic; a test's own
        self.start = clock()
        self.time_limit = time_limit        # seconds: the bar and the lines show the time left
        self.every = plain_seconds()
        # The first plain line comes sooner (FIRST_SHARE of the interval): a
        # job started in a log shows that it runs within its first minute.
        self.due = self.start + self.every * FIRST_SHARE
        self.told = initial         # deals in the last plain line
        self.resumed = initial > 0  # the job played before this run: its figures and the run's differ
        # A terminal that says it is 0 columns wide (a pty no one sized) draws no bar: plain lines instead.
        terminal = shown and hasattr(self.stream, "isatty") and self.stream.isatty()
        try:
            terminal = terminal and os.get_terminal_size(self.stream.fileno()).columns != 0
        except (AttributeError, OSError, ValueError):
            pass        # it cannot say: a bar
        self.plain = shown and not terminal
        self.bar = tqdm(total=None if bound else total or None, initial=initial, unit=f" {unit}", unit_scale=True,
                        dynamic_ncols=True, disable=not terminal, desc=job_id, file=self.stream)

    def update(self, deals, **figures):
        """`deals` more deals played; figures (best, kept, ...) as they now stand."""
        self.deals += deals
        self.played += deals
        self.figures = figures
        if self.time_limit is not None:
            self.figures["left"] = left(self.time_limit - (self.clock() - self.start))
        self.bar.update(deals)
        if self.resumed:
            # 'job: best 4256; this run: kept 40; workers 2'
            job, run, moment = self._scopes()
            parts = (job and f"job: {job}", run and f"this run: {run}", moment)
            self.bar.set_postfix_str("; ".join(part for part in parts if part), refresh=False)
        else:
            self.bar.set_postfix(**self.figures, refresh=False)
        now = self.clock()
        if self.plain and now >= self.due:
            self.due = now + self.every
            self._line(now)

    def _line(self, now):
        self.told = self.deals
        elapsed = now - self.start
        rate = self.played / elapsed if elapsed > 0 else 0.0
        if self.bound:
            done = f"{self.deals:,} {self.unit} {self.bound}"
        else:
            done = f"{self.deals:,}" + (f" of {self.total:,} {self.unit} ({100 * self.deals / self.total:.1f} %)"
                                        if self.total else f" {self.unit}")
        if self.resumed:
            job, run, now = self._scopes()
            line = (f"job {done}{', ' + job if job else ''}; this run {self.played:,} {self.unit}, "
                    f"{rate:,.0f} {self.unit}/s{', ' + run if run else ''}{'; ' + now if now else ''}")
        else:
            figures = self._written(self.figures)
            line = f"{done}, {rate:,.0f} {self.unit}/s" + (f", {figures}" if figures else "")
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {self.job_id}: {line}", file=self.stream, flush=True)

    def _scopes(self):
        """The figures as (the job's, this run's, the moment's), each written out."""
        scopes = ({}, {}, {})
        for key, value in self.figures.items():
            scopes[0 if key in JOB_FIGURES else 2 if key in NOW_FIGURES else 1][key] = value
        return tuple(self._written(figures) for figures in scopes)

    @staticmethod
    def _written(figures):
        # Counts with separators; `best`, a game's length, plain ('best 4537'),
        # as every text view writes a length (cli/format.py).
        return ", ".join(f"{key} {value:,}" if isinstance(value, int) and key != "best" else f"{key} {value}"
                         for key, value in figures.items())

    def announce(self, line):
        """A line that must not be missed, above the bar."""
        self.bar.write(line, file=self.stream)
        self.stream.flush()

    def close(self):
        self.bar.close()
        if self.plain and self.deals != self.told:
            self._line(self.clock())
