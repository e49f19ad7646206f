"""What a driver is: one object per kind of job, holding its part of the job
file's check, the play of its chunks, their keeping and its summary's lines;
and the plain result a chunk's play hands back. The defaults are those of a
driver that deals deals and keeps the games they play (sampling.py).
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
    """What a unit of work played hands back, plain data, with its driver's
    own `payload` (each driver's module says what it is)."""
    chunk: int | None   # its first part (None: a task of the driver's own, a hunt's seat)
    deals: int
    hits: list          # [(deal, outcome)] from the compiled engine
    best: tuple | None  # (deal, outcome) of the longest game played, or None
    payload: object = None          # the driver's own
    seconds: float = 0.0            # its play's (drivers.play times it)
    games: list | None = None       # the games it keeps, checked (crosscheck.check)
    check_seconds: float = 0.0      # the seconds their check took where it was done


@dataclass(frozen=True)
class Budget:
    """What a job's budget and chunks count (`unit`), why a job whose chunks
    are all played is done, and how its chunks are sized: `timed`, by time
    where a job gives none (drivers.timed_chunk; a climb's chunk is one walk,
    whose length is part of the search); `part`, the tries of a part, fixed
    whatever the machine and the engine (a hunt's), or None."""
    unit: str = "deals"
    done: str = "budget spent"
    timed: bool = False
    part: int | None = None


@dataclass(frozen=True)
class Plays:
    """What a driver's chunks play. `deals`: the deals they play to their
    end, "random" (each once: the odds of a random deal are told from them),
    "walked" (a climb's: correlated), "every" (every arrangement of a deck
    once, every loop deal kept whatever min_cards), or None. `loops`: whether
    they build loops, not games. `seed`: what its seed chooses, or None:
    nothing to tell (a census; a search fixed by its start loops)."""
    deals: str | None
    loops: bool = False
    seed: str | None = "deals"


@dataclass(frozen=True)
class Starts:
    """Whether a job's spec holds the `loops` it starts from (`start`, fixed
    when it is created), and whether its budget is a chunk each (`chunk_each`)."""
    loops: bool = False
    chunk_each: bool = False


@dataclass(frozen=True)
class Devices:
    """Whether a GPU engine can play a driver's chunks, and on a cluster's GPU
    workers one by one (`cluster_gpus`; a climb's play in groups)."""
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
        """What pace.py measures of chunk `result`: (the (deal, outcome) checked
        where it is played; the lengths of every game it played, or None)."""
        return result.hits, None

    def reached(self, result):
        """The most cards unit `result` reached."""
        return result.best[1].cards if result.best is not None else 0

    def check(self, spec, data, where):
        """Its part of the check of a job file's keys `data` (job.check), on
        the `spec` checked so far: JobError naming `where` and the key."""

    def play(self, spec, chunk):
        """Play chunk `chunk` of job `spec` (in a worker): a ChunkResult. A
        timed driver's also takes `parts`, the chunks it plays as one."""
        raise NotImplementedError

    def play_task(self, spec, task):
        """Play a task of the driver's own (a hunt's seat), where the cores are."""
        raise NotImplementedError

    def units(self, archive, job, spec, summary):
        """The work of a run of the job (its archive row), handed out unit by unit."""
        return Chunks(spec, archive.chunks_kept(job["id"]),
                      job["seconds"] / job["chunks"] if job["chunks"] else None)

    def games(self, spec, result):
        """The games chunk `result` keeps, checked, or None where only the archive can say."""
        return check(spec, result)

    def start(self, archive, spec):
        """Fix in a new job's spec what it starts from, before it is stored."""

    def check_gpu(self, spec, name, where):
        """JobError where `spec` cannot be played on the GPU engine `name`."""

    def stored_problem(self, spec):
        """What makes a stored spec of this driver none that any beggar wrote, or None."""
        return None

    def going_on(self, archive, job_id, spec, summary):
        """Before each run of the job says anything: what it goes on from,
        set on the run's summary (a hunt's loops), or JobError where it cannot.
        Nothing by default: a chunk depends on its number alone."""

    def handed(self, spec, summary, unit):
        """The spec that unit `unit` handed out now is played with (a hunt's
        holds the loops it knows now)."""
        return spec

    def progress(self, summary, best):
        """The figures of a run's progress as they now stand (`best`: the most cards so far)."""
        return {"best": best, "kept": summary.kept, "loop_deals": summary.loops}

    def job_figures(self, archive, job_id, spec):
        """What `beggar archive jobs` shows of the job beyond every job's figures, or None."""
        return None

    def job_lines(self, figures):
        """The lines `beggar archive jobs` adds from its figures (job_figures')."""
        return []

    def stats(self, result, workers):
        """What the chunk's archive record keeps of its games, or None."""
        return None

    def keep(self, archive, job_id, spec, result, summary, between=None):
        """Keep chunk `result` in one transaction with its record, then count
        it; returns the games to announce. `between`: keep.keep_games'."""
        return keep_games(archive, job_id, spec, result, summary, self.stats(result, summary.workers), between)

    def finish(self, archive, job_id, spec, summary):
        """What a job does once its budget is spent, before it is done."""

    def bound(self, spec):
        """The job's budget in words where it is a bound its chunks may stop
        short of ("at most ..."), of which a progress line gives no share; or None."""
        return None

    def describe(self, spec):
        """What a job deals, in a few words: 'standard deck, 2 players, 26/26'."""
        deck = Deck.parse(spec["deck"])
        sizes = ("random split" if spec["split"] == "random"
                 else "/".join(map(str, hand_sizes(deck.total, spec["players"], table(spec)["split"]))))
        return f"{deck_words(spec)}, {spec['players']} players, {sizes}"

    def summary(self, summary, archive_path, cluster=None, whole=None):
        """The lines of a run's summary that say what it did. `whole`: the
        job's figures where it had played before this run; then each line
        says what is this run's and what the whole job's."""
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
