"""The odds of long games, from the length histograms a job's chunks keep:
survival counts with intervals, the tail's fit, and the deals and the time
it takes to see a game of a given length, plainly and by family extension.
What `beggar stats` prints; the model is docs/odds.md's."""

from __future__ import annotations

import math
import os
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .. import lengths as bins
from .. import finds, published
from ..decks import Deck, hand_sizes
from ..errors import BadInput
from ..lengths import Lengths
from ..search import drivers
from ..search.job import stored
from ..search.spec import trick

#: The lengths `beggar stats` tells the odds of: 5000 to 7000, and one card past the record (8344).
TARGETS = (5000, 6000, 7000, 8345)
#: Where the tail's fit starts by default: where the standard deck's long
#: games begin (1 random game in 10^4).
TAIL_FROM = 2000
#: The games the fit needs from its start on: where fewer reach TAIL_FROM,
#: it starts where the job's own longest TAIL_GAMES games do (docs/odds.md).
TAIL_GAMES = 50
#: z of a two-sided 95 % interval.
Z95 = 1.959963984540054


class OddsError(BadInput, ValueError):
    """Statistics that cannot be given: no such job, no histograms, a bad bound."""


@dataclass
class Played:
    """The games of one job or of several, summed from their chunks."""
    jobs: list
    spec: dict                  # the (first) job's spec
    deals: int = 0              # deals with a histogram
    other_deals: int = 0        # deals of chunks written before histograms were kept
    seconds: float = 0.0        # the chunks' own time (each on one worker), summed
    workers: float = 1          # workers the jobs ran on, weighted by deals
    statuses: Counter = field(default_factory=lambda: Counter({"finished": 0, "loop": 0, "stopped": 0}))
    lengths: Lengths = field(default_factory=Lengths)
    families: list = field(default_factory=list)    # (cards, gain) of each family searched
    # {cards: games} of the kept finished games played (samples), and of
    # those found by family extension (no samples): for plots.
    finds: Counter = field(default_factory=Counter)
    extended: Counter = field(default_factory=Counter)

    @property
    def gains(self):
        """The gain of each family searched, in cards (0: none longer was found)."""
        return [gain for _, gain in self.families]

    @property
    def rate(self):
        """Deals per second of the job as it ran: each worker's chunks' rate, times its workers."""
        return (self.deals + self.other_deals) / self.seconds * self.workers if self.seconds else 0.0


def middle(played):
    """(mean, median) of the lengths in cards; past lengths.EXACT a game counts
    at the middle of its bin (the last at its low edge): under a thousandth of a card off."""
    counts = played.lengths.counts
    mean = sum(games * ((bins.low(i) + bins.high(i) - 1) / 2 if bins.high(i) else bins.low(i))
               for i, games in enumerate(counts)) / played.deals
    half, seen = (played.deals + 1) // 2, 0
    for index, games in enumerate(counts):
        seen += games
        if seen >= half:
            return mean, bins.low(index)
    return mean, None


def collect(archive, job_id=None, marks=False):
    """The Played of job `job_id` of `archive`; with None, of every sample job
    of random 26/26 standard deals in it (the deals whose odds people ask for:
    climbing deals are not random, and a census is not a sample). With
    `marks`, the kept games' lengths too (a plot marks them)."""
    if job_id is not None:
        if job_id not in dict(archive.jobs()):
            raise OddsError(f"{archive.path}: no job {job_id!r}")
        job = archive.job(job_id)
        chosen = [(job_id, stored(job["spec"], f"{archive.path}: job {job_id}"))]
        driver = drivers.of(chosen[0][1])
        if driver.plays.loops:
            raise OddsError(f"{archive.path}: job {job_id} is a {driver.name} job of the loop "
                            "factory: it plays states to their loops, not deals to their end, and keeps "
                            "no length histogram (beggar archive list --loops shows what it found)")
        if driver.plays.deals is None:
            raise OddsError(f"{archive.path}: job {job_id} is an {driver.name} job: it searches back from loops, "
                            "plays no deal to its end and keeps no length histogram (beggar archive list "
                            "--loops shows what it found)")
    else:
        chosen = [(i, stored(spec, f"{archive.path}: job {i}")) for i, spec in archive.jobs()]
        # --split 26 deals the same 26/26 deals as the default, "even".
        chosen = [(i, spec) for i, spec in chosen if drivers.of(spec).plays.deals == "random"
                  and (spec["deck"], spec["players"]) == ("standard", 2) and spec["split"] in ("even", 26)
                  and not trick(spec).lay_on]
        if not chosen:
            raise OddsError(f"{archive.path}: no sample job of 26/26 deals in it: name a JOB")
    played = Played([i for i, _ in chosen], chosen[0][1])
    cores = os.cpu_count() or 1
    weighted = 0
    total = np.zeros(bins.BINS, dtype=np.int64)     # a long job has tens of thousands of chunks
    for i, spec in chosen:
        job = archive.job(i)
        played.seconds += job["seconds"]
        counted = 0
        chunks = list(archive.chunk_stats(i))
        for stats in chunks:
            if "lengths" in stats:
                counts = np.asarray(stats["lengths"], dtype=np.int64)
            elif "cards" in stats:      # a census block: exact counts
                counts = np.asarray(Lengths.from_exact(stats["cards"]).counts, dtype=np.int64)
            else:
                continue
            total[:len(counts)] += counts
            games = int(counts.sum())
            counted += games
            # A job of fewer chunks than workers played on no more workers
            # than chunks (a census of one chunk: one).
            weighted += games * min(stats.get("workers") or spec.get("workers") or cores, len(chunks))
            played.statuses.update(stats.get("statuses", {}))
        played.deals += counted
        played.other_deals += job["deals"] - counted
        _extensions(archive, i, spec, played)
        if marks:
            finds, extended = archive.kept_length_counts(i)
            played.finds.update(finds)
            played.extended.update(extended)
    played.lengths = Lengths(total.tolist())
    played.workers = weighted / played.deals if played.deals else 1
    if not played.deals:
        raise OddsError(f"{archive.path}: job{'s' if len(chosen) > 1 else ''} "
                        f"{', '.join(played.jobs)}: no chunk with a length histogram "
                        "(jobs run before beggar kept them have none)")
    return played


def _extensions(archive, job_id, spec, played):
    """(cards, gain) of each family search of the job: every finished game it
    played of extend_cards or more, and the longest balanced member of its
    family it kept (a game of more cards still, so read with it)."""
    extend = spec["extend_cards"] if spec["players"] == 2 else 0
    if not extend:
        return
    games = archive.kept_lengths(job_id, extend)
    children = {parent: cards for _, _, cards, driver, parent in games if driver == "extension"}
    for game_id, status, cards, driver, _ in games:
        if status == "finished" and driver != "extension":
            played.families.append((cards, max(0, children.get(game_id, cards) - cards)))


def is_exhaustive(played):
    """Whether the games are every deal of a block (a census): nothing is predicted from them."""
    return drivers.of(played.spec).plays.deals == "every"


def is_record_table(spec):
    return (spec["deck"], spec["players"], spec["split"]) == ("standard", 2, "even") and not trick(spec).lay_on


def references(archive, played):
    """The lengths a job's odds are measured against, [(name, cards)]: docs/odds.md's reference lines."""
    spec = played.spec
    if is_record_table(spec):
        return published.records()
    deck = Deck.parse(spec["deck"])
    sizes = None if spec["split"] == "random" else hand_sizes(
        deck.total, spec["players"], None if spec["split"] == "even" else spec["split"])
    known = []
    # The longest one alone, found by the archive's index: not every game of the table read.
    for game in archive.games(deck=spec["deck"], players=spec["players"], status="finished", loops_first=False,
                              split=None if sizes is None else sizes[0], limit=1):
        known.append((f"the longest game kept of this table (game {game['id']})", game["cards"]))
    for saved in finds.shipped():
        deal, expected = saved.deal, saved.expected
        if (expected and expected["status"] == "finished" and deal.deck_written() == spec["deck"]
                and deal.players == spec["players"]
                and (sizes is None or [len(hand) for hand in deal.hands] == list(sizes))):
            known.append((f"{saved.name.split(':')[0]} (the record shipped with beggar)", expected["cards"]))
    return [max(known, key=lambda mark: mark[1])] if known else []


def targets(archive, played, above=0):
    """The lengths whose odds are told, above `above`: TARGETS for the
    published records' table; else the last three multiples of row_step below
    the longest known game of the job's table, and one card past it."""
    if is_record_table(played.spec):
        return TARGETS
    kept = references(archive, played)
    counts = played.lengths.counts
    best = max([cards for _, cards in kept] + [bins.low(len(counts) - 1) if counts else 0])
    step = row_step(best)
    return tuple([cards for cards in range(step, best + 1, step) if cards > above][-3:] + [best + 1])


def curve(played):
    points, left = [], played.deals
    for index, games in enumerate(played.lengths.counts):
        if left <= 0:
            break
        points.append((bins.low(index), left / played.deals))
        left -= games
    return points


def wilson(k, n, z=Z95):
    """The Wilson score interval of k successes in n trials: (low, high)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # At k = 0 (k = n) the bound is 0 (1) exactly; rounding would leave a speck.
    return (0.0 if k == 0 else max(0.0, centre - half)), (1.0 if k == n else min(1.0, centre + half))


@dataclass(frozen=True)
class Tail:
    """P(cards >= L) = p_from * exp(-(L - start) / scale) for L >= start."""
    start: int
    p_from: float
    games: int              # games of at least `start` cards, the fit's data
    scale: float
    scale_low: float
    scale_high: float

    def p(self, cards, scale=None):
        return self.p_from * math.exp(-(cards - self.start) / (scale or self.scale))

    def deals(self, cards, scale=None):
        p = self.p(cards, scale)
        return 1 / p if p > 0 else math.inf


def _loglik(scale, intervals):
    """Log-likelihood of the exponential tail, scale `scale`, of interval data
    [(from start to low, to high or None, games)]."""
    total = 0.0
    for low, high, games in intervals:
        upper = -low / scale
        if high is None:
            total += games * upper
        else:
            # log(exp(-low/s) - exp(-high/s)), steady for small widths
            total += games * (upper + math.log(-math.expm1(-(high - low) / scale)))
    return total


def tail_start(played):
    """Where the tail's fit starts by default (docs/odds.md): TAIL_FROM, else
    where the longest TAIL_GAMES games begin, to two significant digits (a bin edge)."""
    counts = played.lengths.counts
    if sum(counts[bins.bin_of(TAIL_FROM):]) >= TAIL_GAMES:
        return TAIL_FROM
    games = 0
    for index in range(len(counts) - 1, 0, -1):
        games += counts[index]
        if games >= TAIL_GAMES:
            length = bins.low(index)
            digits = 10 ** max(0, len(str(length)) - 2)
            return max(1, length // digits * digits)
    return TAIL_FROM        # too few games for any fit: fit_tail says so from where it starts by default


def fit_tail(played, start=None):
    """The exponential tail beyond `start` (a bin edge; by default
    tail_start's) by maximum likelihood."""
    if start is None:
        start = tail_start(played)
    if not bins.is_edge(start) or start <= 0:
        raise OddsError(f"the tail's fit starts at a bin edge of the histogram: a length up to "
                        f"{bins.EXACT} or a multiple of {bins.WIDTH} up to {bins.TOP}, not {start}")
    counts = played.lengths.counts
    intervals = []
    for index in range(bins.bin_of(start), len(counts)):
        if counts[index]:
            high = bins.high(index)
            intervals.append((bins.low(index) - start, None if high is None else high - start, counts[index]))
    games = sum(g for _, _, g in intervals)
    if games < 2:
        raise OddsError(f"{games} game{'s' if games != 1 else ''} of {start} cards or more: too few to fit "
                        "the tail (a lower --tail-from, or a longer job)")
    # Golden-section search on log(scale): the log-likelihood is unimodal in it.
    lo, hi = math.log(1.0), math.log(1e6)
    ratio = (math.sqrt(5) - 1) / 2
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = _loglik(math.exp(a), intervals), _loglik(math.exp(b), intervals)
    for _ in range(200):
        if fa > fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = _loglik(math.exp(a), intervals)
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = _loglik(math.exp(b), intervals)
        if hi - lo < 1e-10:
            break
    scale = math.exp((lo + hi) / 2)
    h = scale * 1e-4
    curvature = (_loglik(scale + h, intervals) - 2 * _loglik(scale, intervals) + _loglik(scale - h, intervals)) / h ** 2
    se = math.sqrt(-1 / curvature) if curvature < 0 else math.inf
    return Tail(start, games / played.deals, games, scale, max(scale - Z95 * se, 1e-9), scale + Z95 * se)


#: The most cards between two rows of the survival table (and two round targets).
ROW_STEP = 1000


def row_step(longest):
    """The cards between two rows of the survival table, scaled to the deck's
    lengths (docs/odds.md). Every row is a bin edge, where the counts are exact."""
    steps = [nice * scale for scale in (1, 10, 100, 1000) for nice in (1, 2, 5) if nice * scale <= ROW_STEP]
    return max([step for step in steps if longest >= 3 * step], default=1)


def survival(played, tail=None):
    """Rows of the survival table, L = row_step, 2 row_step, ... past the longest
    game counted: dicts of cards, games, p, low, high, and the fit's where it applies."""
    counts = played.lengths.counts
    longest = bins.low(len(counts) - 1) if counts else 0
    step = row_step(longest)
    rows = []
    for cards in range(step, min(bins.TOP, (longest // step + 1) * step) + 1, step):
        games = played.lengths.at_least(cards)
        low, high = wilson(games, played.deals)
        fit = tail.p(cards) if tail is not None and cards >= tail.start else None
        rows.append({"cards": cards, "games": games, "p": games / played.deals, "low": low, "high": high,
                     "fit": fit, "fit_games": None if fit is None else fit * played.deals})
    return rows


def expectations(played, tail, targets=TARGETS):
    """For each target X: deals and seconds expected to see X cards, plainly
    and by family extension where the job extends and has searched a family."""
    rate = played.rate
    extend = played.spec["extend_cards"] if played.spec["players"] == 2 else 0
    gains = fit_gains(played.gains) if extend else None
    rows = []
    for cards in targets:
        row = {"cards": cards, "p": tail.p(cards), "deals": tail.deals(cards),
               "deals_low": tail.deals(cards, tail.scale_high), "deals_high": tail.deals(cards, tail.scale_low)}
        row["seconds"] = row["deals"] / rate if rate else None
        if gains is not None:
            row["extension_factor"] = extension_factor(tail, gains.scale, extend, cards)
            row["extension_p"] = row["p"] * row["extension_factor"]
            row["extension_deals"] = 1 / row["extension_p"] if row["extension_p"] > 0 else math.inf
            row["extension_seconds"] = row["extension_deals"] / rate if rate else None
            ends = [1 / p if p > 0 else math.inf for p in (
                tail.p(cards, s) * extension_factor(tail, g, extend, cards, s)
                for s in (tail.scale_low, tail.scale_high) for g in (gains.scale_low, gains.scale_high))]
            row["extension_deals_low"], row["extension_deals_high"] = min(ends), max(ends)
        rows.append(row)
    return rows


@dataclass(frozen=True)
class Gains:
    """The gains of a job's family searches as modelled: exponential, with its 95 % range."""
    families: int
    scale: float
    scale_low: float
    scale_high: float


def fit_gains(gains):
    """The Gains of the gains measured, or None for none; the chi-square
    quantiles of its range are Wilson and Hilferty's."""
    if not gains:
        return None
    n = len(gains)
    scale = sum(gains) / n

    def chi2(z):
        nu = 2 * n
        return nu * (1 - 2 / (9 * nu) + z * math.sqrt(2 / (9 * nu))) ** 3
    return Gains(n, scale, 2 * n * scale / chi2(Z95), 2 * n * scale / chi2(-Z95))


def extension_factor(tail, gain_scale, extend, cards, scale=None):
    """F(X) of docs/odds.md: by how much family extension multiplies the deals
    that reach `cards` cards (the tail of its scale, or `scale`)."""
    s = scale or tail.scale
    reach = cards - max(extend, tail.start)
    if reach <= 0 or gain_scale <= 0:
        return 1.0
    k = 1 / s - 1 / gain_scale
    if abs(k * reach) < 1e-9:
        return 1 + reach / s            # G = s: the factor grows by one every s cards
    return 1 + math.expm1(min(k * reach, 700.0)) / (s * k)
