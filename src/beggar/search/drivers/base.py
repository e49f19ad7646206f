"""What a driver is: one object per kind of job (its name in a job file's
`driver`), holding its part of the job file's check, the play of its chunks
in a worker, their keeping in the archive, and its lines of a run's summary;
and the plain result a chunk's play hands back. The defaults here are those
of a driver that deals deals and keeps the games they play (sampling.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...decks import Deck, hand_sizes
from ..crosscheck import check
from .. import announce
from ..keep import keep_games
from ..spec import deck_words, table
from ..units import Chunks


@dataclass
class ChunkResult:
    """What a unit of work played hands back, plain data: what every driver's
    has, and its driver's own `payload` (a census block, a walk's figures,
    the lengths of the games played: each driver's module says)."""
    chunk: int | None   # its first part (None: a task of the driver's own, a hunt's seat)
    deals: int
    hits: list          # [(deal, outcome)] from the compiled engine
    best: tuple | None  # (deal, outcome) of the longest game played, or None
    seconds: float
    payload: object = None          # the driver's own
    games: list | None = None       # the games it keeps, checked (crosscheck.check)
    check_seconds: float = 0.0      # the seconds their check took where it was done


@dataclass(frozen=True)
class Budget:
    """What a job's budget and chunks count (`unit`), why a job whose chunks
    are all played is done, and how its chunks are sized: `timed`, a chunk
    is a unit of work alone, sized by time when a job gives none
    (drivers.timed_chunk; a climb's chunk is one walk, a grow or perturb
    chunk one walk of tries: their length is part of the search); `part`,
    the tries of a part, fixed whatever the machine and the engine (a
    hunt's walks: the same on any), or None."""
    unit: str = "deals"
    done: str = "budget spent"
    timed: bool = False
    part: int | None = None


@dataclass(frozen=True)
class Plays:
    """What a driver's chunks play. `deals`: the deals they play to their
    end, each with its length (measured when a job starts: pace.py; summed
    into odds: beggar stats), "random" (each once: the odds of a random deal
    are told from them), "walked" (a climb's, each a small change of the one
    before: correlated), "every" (every arrangement of a deck once: no
    sample, and every loop deal kept whatever min_cards), or None. `loops`:
    whether they walk states to their loops (they build loops, not games).
    `seed`: what its seed chooses, played again by a job run again with it,
    or None: nothing to tell (a census; a search fixed by its start loops)."""
    deals: str | None
    loops: bool = False
    seed: str | None = "deals"


@dataclass(frozen=True)
class Starts:
    """Whether a job's spec holds the `loops` it starts from (`start`:
    canonical states in hex, fixed when it is created: Driver.start), and
    whether its budget is a chunk for each of them (`chunk_each`)."""
    loops: bool = False
    chunk_each: bool = False


@dataclass(frozen=True)
class Devices:
    """Whether a GPU engine can play a driver's chunks, and on a cluster's GPU
    workers one by one (`cluster_gpus`; a climb's are played in groups on
    one machine's devices)."""
    gpu: bool = False
    cluster_gpus: bool = True


class Driver:
    """A kind of job. Its descriptions say how the machinery every job
    shares applies to it; the methods are its own part of the work."""

    name = ""
    #: The name of the job file's table of its options ([climb], [grow], ...), or None.
    options = None
    budget = Budget()
    plays = Plays("random")
    starts = Starts()
    devices = Devices()

    def measured(self, result):
        """What pace.py measures of chunk `result`: (the (deal, outcome) that
        are checked where it is played, its hits; the lengths of every game
        it played, lengths.Lengths, or None)."""
        return result.hits, None

    def reached(self, result):
        """The most cards unit `result` reached: its longest game's."""
        return result.best[1].cards if result.best is not None else 0

    def check(self, spec, data, where):
        """Its part of the check of a job file's keys `data` (job.check), on
        the `spec` checked so far: JobError naming `where` and the key."""

    def play(self, spec, chunk):
        """Play chunk `chunk` of job `spec` (in a worker): a ChunkResult. A
        timed driver's play also takes `parts`, the chunks from `chunk` on
        that it plays as one (units.py)."""
        raise NotImplementedError

    def play_task(self, spec, task):
        """Play a task of the driver's own that its units hand out (a hunt's
        seat), where the cores are: a ChunkResult."""
        raise NotImplementedError

    def units(self, archive, job, spec, summary):
        """The work of a run of the job (job: its archive row), handed out
        unit by unit (units.Chunks: the parts of its budget not yet kept)."""
        return Chunks(spec, archive.chunks_kept(job["id"]),
                      job["seconds"] / job["chunks"] if job["chunks"] else None)

    def games(self, spec, result):
        """The games chunk `result` keeps, checked where it was played
        (crosscheck.check), or None where only the archive can say."""
        return check(spec, result)

    def start(self, archive, spec):
        """Fix in the spec of a new job what it starts from (the archive's
        loops), before the job is stored."""

    def check_gpu(self, spec, name, where):
        """JobError where `spec` cannot be played on the GPU engine `name`."""

    def stored_problem(self, spec):
        """What makes a stored spec of this driver none that any beggar wrote
        (its own table lost, where that tells a kind apart), in words, or None."""
        return None

    def going_on(self, archive, job_id, spec, summary):
        """At the start of each run of the job (its first too), before anything
        is said: what it goes on from that its kept chunks say, set on the
        run's summary (a hunt's loops), or JobError where a spec of a kind this
        beggar no longer plays cannot. Nothing by default: a chunk depends on
        its number alone."""

    def handed(self, spec, summary, unit):
        """The spec that unit `unit` handed out now is played with (in a worker):
        the job's own by default; a hunt's with the loops it knows now."""
        return spec

    def progress(self, summary, best):
        """The figures of a run's progress bar and lines as they now stand
        (`best`: the longest game, or the largest looping state, so far)."""
        return {"best": best, "kept": summary.kept, "loop_deals": summary.loops}

    def job_figures(self, archive, job_id, spec):
        """What `beggar archive jobs` shows of the job beyond every job's
        figures, as plain data, or None."""
        return None

    def job_lines(self, figures):
        """The lines `beggar archive jobs` adds for a job of this driver, from
        its figures (the job's row with its job_figures)."""
        return []

    def stats(self, result, workers):
        """What the chunk's archive record keeps of its games, or None."""
        return None

    def keep(self, archive, job_id, spec, result, summary, between=None):
        """Keep chunk `result` in one transaction with its record (keep.kept),
        then count it in the summary; returns the games to announce.
        `between`: called between the parts of a large keep (keep.keep_games)."""
        return keep_games(archive, job_id, spec, result, summary, self.stats(result, summary.workers), between)

    def finish(self, archive, job_id, spec, summary):
        """What a job does once its budget is spent, before it is done."""

    def bound(self, spec):
        """What the job's budget is where it is no budget but a bound its
        chunks may stop short of ("at most ..."), or None: a progress line
        then gives no share of it."""
        return None

    def describe(self, spec):
        """What a job deals, in a few words: 'standard deck, 2 players, 26/26'."""
        deck = Deck.parse(spec["deck"])
        sizes = ("random split" if spec["split"] == "random"
                 else "/".join(map(str, hand_sizes(deck.total, spec["players"], table(spec)["split"]))))
        return f"{deck_words(spec)}, {spec['players']} players, {sizes}"

    def summary(self, summary, archive_path, cluster=None, whole=None):
        """The lines of a run's summary (runner.Summary) that say what it did.
        `whole`: the job's figures (Archive.job with games, loops and its
        budget) when the run went on with a job that had played before; then
        each line says what is this run's and what the whole job's."""
        rate = summary.deals / summary.seconds if summary.seconds else 0
        run = " in this run" if whole is not None else ""
        unit = self.budget.unit
        if summary.gpu:
            played, checked, checkers, behind, engine, players, devices = summary.gpu
            if cluster:         # GPU workers play, any worker checks (cluster.py)
                player_name, checking = "the GPU workers", plural(checkers, "worker")
                where = f"on {plural(players, 'GPU worker')} of the cluster {cluster}, {checking} checking its hits"
            else:
                player_name, checking = player(engine, devices), plural(checkers, "process")
                where = f"on {player_name}, {plural(summary.workers, 'process')} checking its hits"
        else:
            where = f"on {plural(summary.workers, 'worker')}" + (f" of the cluster {cluster}" if cluster else "")
        lines = [f"job      {summary.job}: {summary.state} ({summary.reason})",
                 f"{unit:<8} {summary.deals:,}{run} in {summary.seconds:.1f} s: {rate:,.0f} {unit}/s {where}"]
        if summary.gpu:
            # `played` adds up every GPU's seconds: its rate is a GPU's.
            lines.append(f"gpu      {played:.1f} s of {player_name} played the chunks kept, at "
                         f"{summary.deals / played if played else 0:,.0f} deals/s{' a GPU worker' if cluster else ''}"
                         f"; checking them took {checked:.1f} s of {checking}"
                         + (f"; the CPU side fell behind: {'the GPU workers' if cluster else 'the GPU'} waited for it "
                            "(nothing was dropped); a higher min_cards or extend_cards, or more cores, keeps up"
                            if behind else ""))
        if summary.best is not None:
            deal, outcome = summary.best
            lines.append(f"best     {outcome.cards} cards, {outcome.tricks} tricks{run}: {deal}"
                         + (" (by family extension)" if summary.best_extended else ""))
        lines.append(f"hits     {summary.kept:,} kept{run} in {archive_path}"
                     + (f" ({summary.extended:,} by family extension)" if summary.extended else "")
                     + (f", {summary.known:,} already there" if summary.known else "")
                     + f"; {plural(summary.loops, 'loop deal')}")
        if whole is not None:
            lines.append(whole_line(whole, unit))
        lines.extend(announce.summary_lines(summary, archive_path))
        return lines


def whole_line(whole, unit, lengths=True):
    """The whole job's figures, for the summary of a run that went on with it;
    its best length where its chunks play deals to their end (`lengths`)."""
    budget = f" of {whole['budget']:,}" if whole["budget"] else ""
    best = f"best {whole['best_cards']} cards, " if lengths else ""
    return (f"job all  {whole['deals']:,}{budget} {unit} in {plural(whole['chunks'], 'chunk')}, {best}"
            f"{plural(whole['games'], 'game')} and {plural(whole['loops'], 'loop')} kept (every run of the job)")


def player(engine, devices=None):
    """What plays a GPU job's chunks on `devices` (the job's), in words: `engine` is its engine.Choice."""
    one, several = engine.kind.the_device, engine.kind.devices
    if devices == "all":
        return f"every one of the {several}"
    return one if devices is None or len(devices) == 1 else f"{len(devices)} {several}"


def plural(count, word):
    """'1 deal', '2 deals', '1,000 loops', '2 searches'."""
    return f"{count:,} {word}{'' if count == 1 else 'es' if word.endswith(('s', 'x', 'ch', 'sh')) else 's'}"
