"""Which deals the next chunk of a running job holds, and how many: a run
of parts not yet kept, recorded by its first part and its deals
(docs/searching.md, A first search). A job with chunk_seconds sizes them
from what its chunks took in the workers (Pacer), not from a measure taken
before they started: a busy machine gives each a part of a core.
"""

from __future__ import annotations

from dataclasses import dataclass

from .spec import chunks_in, grouped

#: How long chunks in flight may run on once the time limit has passed (a run
#: that has kept no chunk yet gives them longer: runner.StopPolicy).
CUT_OFF_SECONDS = 1.0

#: How many times the largest chunk finished yet the next one may be.
GROWTH = 4

#: Seconds of the job's own process that keeping one chunk may take (its
#: replies to a stop and to the clock wait for it, and its games' way from
#: the worker costs about as much again).
KEEP_SECONDS = 0.25


class Plan:
    """The parts of a job not yet kept, handed out in order as chunks;
    `kept`: [(first part, deals)] of the chunks the archive holds."""

    def __init__(self, spec, kept):
        self.total = chunks_in(spec)        # parts; None: no budget
        size = spec["chunk"]
        # A chunk of one part records its part whatever its deals count (a
        # walk's tries, a search's states); a chunk of parts, the parts its deals fill.
        spans = sorted((first, first + (max(1, -(-deals // size)) if grouped(spec) else 1))
                       for first, deals in kept)
        self._gaps = self._gaps_between(spans)
        self._gap = next(self._gaps, None)

    def _gaps_between(self, spans):
        at = 0
        for first, end in spans:
            if first > at:
                yield [at, first]
            at = max(at, end)
        if self.total is None:
            yield [at, None]
        elif at < self.total:
            yield [at, self.total]

    def take(self, most=1):
        """(first part, parts) of the next chunk, at most `most` parts, or
        None when every part is kept or handed out."""
        if self._gap is None:
            return None
        first, end = self._gap
        parts = most if end is None else min(most, end - first)
        self._gap[0] = first + parts
        if end is not None and self._gap[0] >= end:
            self._gap = next(self._gaps, None)
        return first, parts

    def left(self):
        return self._gap is not None

    def peek(self):
        """The part the next chunk starts with, or None."""
        return None if self._gap is None else self._gap[0]


def lately(old, new):
    # Half the weight on the latest unit: the machine's load changes.
    return new if old is None else (old + new) / 2


class Pacer:
    """How many parts the next chunk of a job sized as it runs holds."""

    def __init__(self, spec, seconds):
        self.size = spec["chunk"]       # deals a part
        self.seconds = seconds          # what a chunk is meant to take
        self.per_deal = None            # seconds of a worker a deal, lately
        self.keep_per_hit = None        # seconds of this process keeping a hit, lately
        self.hit_share = None           # hits a deal, lately
        self.most = 1                   # parts of the largest chunk finished yet

    def finished(self, result, parts, keep_seconds):
        worked = result.seconds + result.check_seconds
        deals = max(1, result.deals)
        self.per_deal = lately(self.per_deal, worked / deals)
        self.hit_share = lately(self.hit_share, len(result.hits) / deals)
        if result.hits:
            self.keep_per_hit = lately(self.keep_per_hit, keep_seconds / len(result.hits))
        self.most = max(self.most, parts)

    def parts(self, seconds=None):
        """Parts of a chunk meant to take `seconds` (None: the job's chunk_seconds)."""
        seconds = self.seconds if seconds is None else min(seconds, self.seconds)
        if self.per_deal is None:
            return 1
        deals = seconds / max(self.per_deal, 1e-12)
        if self.keep_per_hit and self.hit_share:
            deals = min(deals, KEEP_SECONDS / (self.keep_per_hit * self.hit_share))
        return max(1, min(int(deals // self.size), GROWTH * self.most))

    def expected(self, parts):
        """Seconds a chunk of `parts` parts is expected to take (None: nothing measured yet)."""
        return None if self.per_deal is None else parts * self.size * self.per_deal


@dataclass(frozen=True)
class Unit:
    """A unit of work handed to a worker: a chunk (its first part and its
    parts), or a task of the driver's own (a hunt's seat)."""
    chunk: int | None
    parts: int = 1
    task: object = None


class Chunks:
    """The default work of a job: the parts of its budget not yet kept (Plan),
    handed out as chunks (sized by Pacer, or of one part each), none started
    that would not end within the time left. `chunk_seconds`: what a chunk
    of this job took so far (None: none kept yet)."""

    def __init__(self, spec, kept, chunk_seconds=None):
        self.plan = Plan(spec, kept)
        self.pacer = Pacer(spec, spec["chunk_seconds"]) if grouped(spec) else None
        self.seconds = chunk_seconds
        self.kept = len(kept)

    def take(self, left, in_flight, workers, most=None):
        """The next unit, or None: none is left, or none would end within
        `left` seconds (None: no time limit) once the units `in_flight` are
        done on `workers` workers. With none in flight, one part at least;
        `most` parts at most, where given."""
        if self.pacer is None:
            if left is not None and (
                    len(in_flight) >= workers if self.seconds is None
                    else self.seconds * (1 + len(in_flight) // workers) > left + CUT_OFF_SECONDS):
                return None         # it would be cut off at the time limit: its work would be lost
            chunk = self.plan.take(1)
        else:
            seconds = None
            if left is not None:
                if left <= 0:
                    return None
                seconds = left - sum(self.expected(unit) or 0 for unit in in_flight) / workers
                if in_flight and (self.pacer.expected(1) or 0) > seconds:
                    return None
            parts = self.pacer.parts(seconds)
            chunk = self.plan.take(parts if most is None else min(parts, most))
        return None if chunk is None else Unit(*chunk)

    def expected(self, unit):
        """The seconds `unit` is expected to take (None: nothing is known yet)."""
        return self.seconds if self.pacer is None else self.pacer.expected(unit.parts)

    def finished(self, unit, result, keep_seconds):
        self.kept += 1
        self.seconds = result.seconds if self.seconds is None else \
            self.seconds + (result.seconds - self.seconds) / self.kept
        if self.pacer is not None:
            self.pacer.finished(result, unit.parts, keep_seconds)

    def left(self):
        return self.plan.left()

    def stuck(self):
        """Why work left cannot be handed out in this run, in words, or None."""
        return None
