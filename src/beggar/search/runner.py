"""Running a search job: chunks to worker processes, hits through the reference
engine into the archive, progress on the terminal.

Only this process writes the archive. A finished chunk is kept in one
transaction, its hits and the record that it is done together, so whatever
happens next (Ctrl-C, SIGTERM, a kill, a full disk) the archive holds every
hit reported so far, and a resumed job plays exactly the chunks still missing.
The first Ctrl-C or SIGTERM lets the chunks in flight finish and be kept; a
second one stops at once (those chunks are played again on resume).
"""

from __future__ import annotations

import itertools
import os
import secrets
import signal
import sqlite3
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import datetime
from multiprocessing import get_context

from .. import engine, finds, published
from ..archive import ArchiveFault
from ..backward import family
from ..deal import Deal
from ..decks import hand_sizes
from ..outcome import Outcome
from ..rules import Rules
from ..savefile import to_json
from . import SearchError
from .drivers import run_chunk
from .factory import keep as keep_loops
from .factory import loops_of_games
from .job import WORKERS_PER_CORE, check_engine, chunks_in, cpu_engine, extends, max_workers, stored, unit
from .progress import Progress


#: How long chunks in flight may run on once the time limit has passed.
CUT_OFF_SECONDS = 1.0

#: The bounds of an extension's family search (published records' families
#: hold about 50,000 states); its best so far is kept when one is reached.
EXTENSION_STATES = 2_000_000
EXTENSION_SECONDS = 10.0


@dataclass
class Summary:
    job: str
    state: str                  # done | stopped | failed
    workers: int                # worker processes, or threads alive on the cluster
    deals: int = 0              # in this run
    seconds: float = 0.0
    kept: int = 0               # hits new to the archive
    extended: int = 0           # of which, longest members of a hit's family
    known: int = 0              # hits it already held
    loops: int = 0
    best: tuple | None = None       # (deal, outcome) of the longest game played or found by
                                    # family extension in this run
    best_extended: bool = False     # whether the best was found by family extension
    reason: str = ""
    note: str = ""              # what the job's deals leave out, said once
    disputed: list = field(default_factory=list)
    announced: list = field(default_factory=list)   # records and new balanced loops, loudly
    # The loop factory (grow, perturb): deals counts tries, loops the new full loops.
    driver: str = ""
    largest: int = 0            # most cards in a looping state its walks reached
    full_loops: int = 0         # full loops reported (new or not)
    new_loops: list = field(default_factory=list)   # [(loop id, loops.Loop)] new to the archive
    prizes: list = field(default_factory=list)      # [(game id, loop id, deal)]: balanced loop deals
    bounds: list = field(default_factory=list)      # basin searches stopped by a bound, in words


def new_job_id(spec):
    return f"{spec['name']}-{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


class _Stop:
    """SIGINT and SIGTERM: the first asks for a calm stop, the second for one at
    once. `told(reason)`, when given, is called at the first, from the handler:
    a user who pressed Ctrl-C learns at once what it does."""

    def __init__(self, told=None):
        self.reason = None
        self.previous = {}
        self.told = told

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            self.previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc):
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum, frame):
        if self.reason is not None:
            raise KeyboardInterrupt
        self.reason = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
        if self.told is not None:
            self.told(self.reason)

    def request(self, reason):
        if self.reason is None:
            self.reason = reason


def _worker_start(parent):
    # Ctrl-C reaches the whole process group; only the job's own process decides.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_follow_parent, args=(parent,), daemon=True).start()


def _follow_parent(parent):
    """End this worker when the job's process is gone (killed): nobody would
    read its results, and it would hold the job's terminal open."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def run(archive, job_id, time_limit=None, workers=None, progress=True, cluster=None, started=None,
        engine_name=None):
    """Run (or go on with) job `job_id` of `archive` until its budget is spent,
    `time_limit` seconds pass, or it is stopped: on worker processes of this
    machine, or on `cluster`, a connected cluster.Cluster; on the job's
    engine, or on `engine_name` for this run (every engine plays the same
    games). The job is claimed first (Archive.claim: a job runs in one
    process at a time), then `started(spec)` is called, if given. Returns a
    Summary; raises SearchError when it had to stop on a failure (the Summary
    is its .summary)."""
    with archive.claim(job_id):
        job = archive.job(job_id)
        spec = stored(job["spec"])
        if engine_name is not None:
            spec["engine"] = check_engine(spec, engine_name, f"job {job_id}")
        if started is not None:
            started(spec)
        return _run(archive, job, spec, time_limit, workers, progress, cluster)


def _run(archive, job, spec, time_limit, workers, progress, cluster):
    job_id = job["id"]
    notes = []
    if cluster is None:
        asked = workers or spec["workers"] or os.cpu_count() or 1
        count = min(asked, max_workers())
        if spec["engine"] == "gpu":
            # One process drives the GPU; the cores replay and extend its hits.
            count = 1
        elif count < asked:
            notes.append(f"{asked} workers asked for; this machine runs at most {count} "
                         f"({WORKERS_PER_CORE} per core)")
        pool = ProcessPoolExecutor(count, mp_context=get_context("spawn"), initializer=_worker_start,
                                   initargs=(os.getpid(),))

        def alive():
            return count
    else:
        pool, alive = cluster.executor, cluster.workers
    workers = alive()
    summary = Summary(job_id, "stopped", workers)
    summary.driver = spec["driver"]
    if spec["extend_cards"] and not extends(spec):
        notes.append(f"family extension is for two players; it does not apply to these "
                     f"{spec['players']}-player deals")
    summary.note = "; ".join(notes)
    total = chunks_in(spec)
    done = archive.chunks_done(job_id)
    todo = (c for c in (range(total) if total is not None else itertools.count()) if c not in done)
    archive.set_job_state(job_id, "running")
    bar = Progress(job_id, spec["deals"], job["deals"], progress, unit(spec), time_limit=time_limit)
    best_cards = job["best_cards"]
    at_once = False
    pending = set()
    start = time.monotonic()
    cut_off_at = None           # once the time limit has passed: when chunks in flight are cut off
    # A chunk's seconds on a worker: the job's so far, then this run's.
    chunk_seconds = job["seconds"] / job["chunks"] if job["chunks"] else None
    kept_chunks = job["chunks"]

    def told(reason):
        # Chunks not yet handed to a worker are dropped (played on resume);
        # those a worker has finish and are kept.
        left = [future for future in pending if not future.cancel()]
        if not left:
            return
        about = "" if chunk_seconds is None else \
            f" in about {chunk_seconds * -(-len(left) // max(1, workers)):.0f} s"
        bar.announce(f"stopping ({reason}): {len(left)} chunk{'s' if len(left) != 1 else ''} in flight "
                     f"finish{'es' if len(left) == 1 else ''}{about} and {'are' if len(left) != 1 else 'is'} "
                     "kept" + ("; Ctrl-C again stops now (they are played again on resume)"
                               if reason == "Ctrl-C" else ""))

    try:
        with _Stop(told) as stop:
            while True:
                while stop.reason is None and len(pending) < 2 * max(1, workers):
                    if time_limit is not None and (
                            len(pending) >= max(1, workers) if chunk_seconds is None else
                            time.monotonic() - start + chunk_seconds * (1 + len(pending) // max(1, workers))
                            > time_limit + CUT_OFF_SECONDS):
                        break       # it would be cut off at the time limit: its work would be lost
                    chunk = next(todo, None)
                    if chunk is None:
                        break
                    pending.add(pool.submit(run_chunk, spec, chunk))
                if not pending:
                    if time_limit is not None and stop.reason is None and next(todo, None) is not None:
                        stop.request(f"time limit of {time_limit:g} s; no further chunk would finish within it")
                    break
                finished, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
                lost = None
                for future in finished:
                    if future.cancelled():
                        continue
                    if isinstance(future.exception(), BrokenProcessPool):
                        lost = future.exception()
                        continue
                    result = future.result()
                    kept_chunks += 1
                    chunk_seconds = result.seconds if chunk_seconds is None else \
                        chunk_seconds + (result.seconds - chunk_seconds) / kept_chunks
                    _keep(archive, job_id, spec, result, summary, bar.announce)
                    if summary.best is not None:
                        best_cards = max(best_cards, summary.best[1].cards)
                    if result.growth is not None:
                        best_cards = max(best_cards, result.growth["largest"])
                    workers = summary.workers = alive()
                    bar.update(result.deals, best=best_cards, kept=summary.kept, loops=summary.loops,
                               workers=workers)
                if lost is not None:
                    raise lost
                now = time.monotonic()
                if time_limit is not None and now - start >= time_limit:
                    stop.request(f"time limit of {time_limit:g} s")
                    if cut_off_at is None:
                        cut_off_at = now + CUT_OFF_SECONDS
                    elif pending and now >= cut_off_at:
                        # A chunk may run for minutes: the time limit does not wait
                        # for it. Its deals are played again on resume.
                        at_once = True
                        stop.reason += (f"; {len(pending)} chunk{'s' if len(pending) != 1 else ''} in "
                                        "flight cut off, played again on resume")
                        _kill_workers(pool)
                        break
            if stop.reason is None:
                summary.state, summary.reason = "done", "budget spent"
            else:
                summary.reason = stop.reason
    except KeyboardInterrupt:
        at_once = True
        summary.reason = "stopped at once; chunks in flight will be played again on resume"
        _kill_workers(pool)
    except Exception as error:
        if isinstance(error, BrokenProcessPool):
            error = SearchError("a worker process died (killed by the system, perhaps for want of memory): "
                                "the chunks in flight are played again on resume")
        elif type(error).__name__ == "KilledWorker":        # Dask gave up on a chunk
            error = SearchError(f"a chunk killed every worker it was given to ({error})")
        elif not isinstance(error, SearchError):
            raise
        summary.state, summary.reason = "failed", str(error)
        error.summary = summary
        raise error from None
    finally:
        if cluster is None:
            pool.shutdown(wait=not at_once, cancel_futures=True)
        else:
            for future in pending:      # the cluster is the caller's to close
                future.cancel()
        bar.close()
        summary.seconds = time.monotonic() - start
        try:
            archive.set_job_state(job_id, summary.state)
        except (sqlite3.Error, ArchiveFault):
            pass        # the archive is what failed; its chunks say how far the job got
    return summary


def _kill_workers(pool):
    """End the worker processes of a local pool now (a cluster's are left alone)."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.kill()


@dataclass
class _Game:
    """A game a chunk keeps, checked: the compiled outcome and the reference
    engine's replay; its parent is the position of another game of the chunk."""
    deal: Deal
    outcome: Outcome
    replay: Outcome
    driver: str
    parent: int | None = None
    rank: int | None = None
    loop: bytes | None = None


def _checked_games(archive, job_id, spec, result):
    """The games a chunk keeps, each replayed by the reference engine: its hits,
    and after a finished game of at least extend_cards cards the longest
    balanced deal of its family (found by a family search). A census keeps
    every loop deal, with its rank and its loop's canonical state, and those
    of its longest games that may be among the job's `top`. All the slow work
    of keeping a chunk is here, done before the archive's write lock is taken."""
    def checked(deal, outcome, driver, **more):
        return _Game(deal, outcome, engine.play(deal, engine="reference"), driver, **more)

    if result.census is not None:
        floor = archive.longest_cards(job_id, spec["top"]) if spec["top"] else None
        games = [checked(deal, outcome, "census", rank=rank, loop=key)
                 for rank, deal, outcome, key in result.census.loops]
        games += [checked(deal, outcome, "census", rank=rank) for rank, deal, outcome in result.census.longest
                  if floor is not None and outcome.cards >= floor]
        return games
    games = []
    for deal, outcome in result.hits:
        games.append(checked(deal, outcome, spec["driver"]))
        if extends(spec) and spec["extend_cards"] <= outcome.cards and outcome.status == "finished":
            longest = family(deal, EXTENSION_STATES, EXTENSION_SECONDS, cpu_engine(spec)).longest
            if longest is not None and longest[0] != deal:
                member = longest[0]
                games.append(checked(member, engine.play(member, engine=cpu_engine(spec)), "extension",
                                     parent=len(games) - 1))
    return games


def _keep(archive, job_id, spec, result, summary, announce=None):
    """Keep a chunk's games (_checked_games) with the record that the chunk is
    done, in one short transaction. The summary counts them only once they
    are committed: a chunk rolled back (a full disk, a second Ctrl-C) is
    played again on resume and counted then. A record, or a balanced deal of
    a loop new to the archive, is then written as a saved game next to the
    archive and announced."""
    if result.growth is not None:
        news = keep_loops(archive, job_id, spec, result, summary)
        _announce(archive, job_id, news, summary, announce)
        return
    games = _checked_games(archive, job_id, spec, result)
    new_loops = loops_of_games(archive, games)
    new_keys = {loop.key for loop in new_loops}
    disputed, ids, news = [], [], []
    kept = known = loops = extended = 0
    try:
        with archive.transaction():
            for loop in new_loops:
                archive.add_loop(loop, job_id, spec["driver"], result.chunk)
            for game in games:
                game_id, new = archive.add_game(
                    game.deal, Rules(), game.outcome, game.replay, job_id, game.driver, spec["seed"],
                    result.chunk, None if game.parent is None else ids[game.parent], game.rank, game.loop)
                ids.append(game_id)
                if new and (game.outcome.status != "loop" or game.loop in new_keys):
                    news.append((game_id, game.deal, game.outcome, game.driver))
                if game.outcome != game.replay:
                    disputed.append(f"game {game_id} ({game.deal}): compiled {game.outcome}, "
                                    f"reference {game.replay}")
                kept += new
                known += not new
                loops += game.outcome.status == "loop"
                extended += new and game.driver == "extension"
            best = max([result.best[1].cards if result.best is not None else 0]
                       + [game.outcome.cards for game in games if game.driver == "extension"])
            archive.add_chunk(job_id, result.chunk, result.deals, len(result.hits), best, result.seconds,
                              chunk_stats(result, summary.workers))
    except (sqlite3.Error, ArchiveFault) as error:
        raise SearchError(f"cannot keep chunk {result.chunk}: {error}; every chunk committed before "
                          f"is kept, resume with: beggar search --resume {job_id}") from None
    summary.kept += kept
    summary.known += known
    summary.loops += loops
    summary.extended += extended
    summary.deals += result.deals
    for best, by_extension in [(result.best, False)] + [((game.deal, game.outcome), True) for game in games
                                                         if game.driver == "extension"]:
        if best is not None and (summary.best is None or best[1].cards > summary.best[1].cards):
            summary.best, summary.best_extended = best, by_extension
    # A census tells its loops in its own table (beggar archive census), by loop, not by deal.
    if not disputed and result.census is None:
        _announce(archive, job_id, news, summary, announce)
    if disputed:
        summary.disputed = disputed
        raise SearchError(f"the engines disagree on {disputed[0]}; kept in the archive marked "
                          "disputed. This is a bug in beggar: please report the deal.")


def _announce(archive, job_id, news, summary, announce):
    """Announce the records and new balanced loops among `news`, games just
    kept: [(game id, deal, outcome, driver)]."""
    for game_id, deal, outcome, driver in news:
        line = _announcement(archive, job_id, game_id, deal, outcome, driver)
        if line is not None:
            summary.announced.append(line)
            if announce is not None:
                announce(line)


def _announcement(archive, job_id, game_id, deal, outcome, driver):
    """A loud line, and a saved game next to the archive (in finds.folder, out
    of git's sight, with its provenance), for a game longer than the longest
    published (standard deck, 26/26) or a balanced deal of a loop not known
    before (published, or shipped with beggar); None for any other game."""
    balanced = [len(hand) for hand in deal.hands] == hand_sizes(deal.total, deal.players) and (
        deal.players > 2 or len(deal.hands[0]) == len(deal.hands[1]))
    if outcome.status == "finished" and published.is_standard_table(deal) \
            and outcome.cards > published.LONGEST_CARDS:
        kind = "record"
        what = (f"NEW RECORD: {outcome.cards} cards, {outcome.tricks} tricks, longer than the published "
                f"{published.LONGEST_CARDS}")
    elif outcome.status == "loop" and balanced:
        kind = "loop"
        what = (f"NEW LOOP: a balanced deal that never ends (entry {outcome.loop_entry[0]} tricks, period "
                f"{outcome.loop_period[0]} tricks / {outcome.loop_period[1]} cards)")
    else:
        return None
    game = archive.game(game_id)
    if kind == "loop" and game["loop"] in finds.known_loops(game["deck"]):
        return None
    path = os.path.join(finds.folder_of(archive.path), f"{kind}-{outcome.cards}-game{game_id}.json")
    saved, _ = finds.saved_game(archive, game)
    try:
        finds.folder(archive.path)
        _write_new(path, to_json(saved, outcome))
        where = f"saved to {path}"
    except FileExistsError:
        where = f"saved before to {path}"
    except OSError as error:
        where = f"kept in the archive as game {game_id}; cannot write {path} ({error.strerror})"
    return f"*** {what}: {deal} ({where}) ***"


def _write_new(path, text):
    """Write a file that must not exist yet; one cut short (a full disk) is
    removed, so that a saved game next to the archive is whole or absent."""
    with open(path, "x") as file:
        try:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        except OSError:
            os.remove(path)
            raise


def chunk_stats(result, workers):
    """What a chunk's archive record keeps of its games: a census block's
    (stats_of), or for sample and climb the games by status, the histogram
    of their lengths in cards, binned as lengths.py says, and the workers the
    job ran on (its rate: beggar stats)."""
    if result.census is not None:
        return stats_of(result.census)
    if result.ascent is not None:
        return {"ascent": result.ascent}
    if result.lengths is None:
        return None
    loops = sum(1 for _, outcome in result.hits if outcome.status == "loop")
    return {"statuses": {"finished": result.deals - loops, "loop": loops, "stopped": 0},
            "lengths": result.lengths.as_list(), "workers": workers}


def stats_of(census):
    """What a chunk's archive record keeps of a census block: games by status
    and the histograms of their lengths (JSON keys are text)."""
    return {"statuses": census.statuses, "cards": {str(k): v for k, v in sorted(census.cards.items())},
            "tricks": {str(k): v for k, v in sorted(census.tricks.items())}}
