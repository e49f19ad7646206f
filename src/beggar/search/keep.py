"""Keeping a finished chunk in the archive, whatever its driver: what it
found and the record that it is done, in one transaction, the write lock held
only to write (the replays and basin searches are done before); the summary
counts only what was committed (docs/searching.md tells why).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from ..archive import ArchiveFault
from ..errors import Fault
from ..rules import Rules
from . import SearchError
from .spec import trick


@dataclass
class Record:
    """What a chunk's record of being done says, filled in by what keeps it."""
    hits: int = 0
    best_cards: int = 0
    stats: dict | None = None


@contextmanager
def kept(archive, job_id, result):
    """The one transaction a chunk is kept in (stored): what the body writes,
    then the record that chunk `result` is done, whose figures the body sets
    on the Record it is given."""
    record = Record()
    with stored(archive, job_id, f"chunk {result.chunk}"):
        yield record
        archive.add_chunk(job_id, result.chunk, result.deals, record.hits, record.best_cards, result.seconds,
                          record.stats)


@contextmanager
def stored(archive, job_id, what):
    """One transaction of job `job_id` that keeps `what` ("chunk 3", "the
    seat of loop 12 at 3"): all of it or none. An archive that cannot take
    it stops the job (SearchError) saying what is kept and how to go on."""
    try:
        with archive.transaction():
            yield
    except ArchiveFault as error:
        raise SearchError(f"cannot keep {what}: {error}; everything committed before "
                          f"is kept, resume with: beggar search --resume {job_id}") from None


def dispute(game_id, deal, compiled, reference):
    """The line that names a kept game the two engines play differently."""
    return f"game {game_id} ({deal}): compiled {compiled}, reference {reference}"


def stop_if_disputed(disputed, what="the deal"):
    """Once a chunk is kept: stop the job (SearchError) when the engines
    disagreed on any of its games (`disputed`: dispute lines)."""
    if disputed:
        raise SearchError(f"the engines disagree on {disputed[0]}; kept in the archive marked "
                          f"disputed. This is a bug in beggar: please report {what}.")


#: Games kept by one statement; between two such parts of a large keep the
#: job looks at the clock and its stop requests (keep_games' `between`).
PART_GAMES = 2000


class Cut(Fault):
    """A keep given up between two parts (keep_games' `between`), its chunk
    wholly unkept. A Fault, so that one that escaped the runner is one line."""


def loops_of_games(archive, games):
    """The loops of a chunk's loop games that the archive does not hold yet:
    each came described from where it was checked (crosscheck.Checker), so
    this is one look-up of the chunk's distinct loops."""
    described = {}
    for game in games:
        if game.described is not None:
            described.setdefault((game.described.deck, game.described.hex), game.described)
    by_deck = {}
    for deck, key in described:
        by_deck.setdefault(deck, []).append(key)
    known = {(deck, key) for deck, keys in by_deck.items() for key in archive.known_loops(deck, keys)}
    return [loop for where, loop in described.items() if where not in known]


def keep_games(archive, job_id, spec, result, summary, stats, between=None):
    """Keep a chunk's checked games, their new loops and the chunk's record
    with `stats`, then count them. Returns the games new to the archive that
    may be announced [(game id, deal, outcome, driver)]; SearchError, once
    all is kept, when the engines disagree on one. The games are written
    PART_GAMES at a time, `between()` called between two parts: what it
    raises (Cut) rolls the whole chunk back."""
    games = result.games
    new_loops = loops_of_games(archive, games)
    new_keys = {loop.key for loop in new_loops}
    disputed, news = [], []
    kept_games = known = loop_games = extended = 0
    rules = Rules(lay_on=trick(spec).lay_on)
    with kept(archive, job_id, result) as record:
        for loop in new_loops:
            archive.add_loop(loop, job_id, spec["driver"], result.chunk)
        for at in range(0, len(games), PART_GAMES):
            if at and between is not None:
                between()
            part = games[at:at + PART_GAMES]
            added = archive.add_games(
                (game.deal, rules, game.outcome, game.replay, job_id, game.driver, spec["seed"], result.chunk,
                 None if game.parent is None else games[game.parent].deal, game.rank, game.loop) for game in part)
            for game, (game_id, new) in zip(part, added):
                if new and (game.outcome.status != "loop" or game.loop in new_keys):
                    news.append((game_id, game.deal, game.outcome, game.driver))
                if game.outcome != game.replay:
                    disputed.append(dispute(game_id, game.deal, game.outcome, game.replay))
                kept_games += new
                known += not new
                loop_games += game.outcome.status == "loop"
                extended += new and game.driver == "extension"
        record.hits = len(result.hits)
        record.best_cards = max([result.best[1].cards if result.best is not None else 0]
                                + [game.outcome.cards for game in games if game.driver == "extension"])
        record.stats = stats
    summary.kept += kept_games
    summary.known += known
    summary.loops += loop_games
    summary.extended += extended
    summary.deals += result.deals
    for best, by_extension in [(result.best, False)] + [((game.deal, game.outcome), True) for game in games
                                                         if game.driver == "extension"]:
        if best is not None and (summary.best is None or best[1].cards > summary.best[1].cards):
            summary.best, summary.best_extended = best, by_extension
    stop_if_disputed(disputed)
    return news
