"""The reference engine's cross-check of a chunk's hits, where the cores are.

Every game a chunk keeps is replayed by the reference engine (the rules of
docs/rules.md written plainly) before it enters the archive, and a long
finished two-player game gets a family search (backward.family) for the
longest balanced deal of its family.
That is most of a job's work when its threshold keeps many games, so it is
done here, with plain data in and out and no archive: in the worker that
played the chunk (drivers.work), or, for a producer of hits that is no worker
(a GPU job), in a process pool beside it: pool.submit(check, spec, result)
for each of its chunks' drivers.ChunkResult, and the runner keeps what comes
back.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import engine
from ..backward import family
from ..deal import Deal
from ..outcome import Outcome
from .spec import cpu_engine, extends

#: The bounds of an extension's family search (published records' families
#: hold about 50,000 states); its best so far is kept when one is reached.
EXTENSION_STATES = 2_000_000
EXTENSION_SECONDS = 10.0


@dataclass
class Game:
    """A game a chunk keeps, checked: the compiled outcome and the reference
    engine's replay; its parent is the position of another game of the chunk
    (an extension's: the game whose family it is the longest of)."""
    deal: Deal
    outcome: Outcome
    replay: Outcome
    driver: str
    parent: int | None = None
    rank: int | None = None
    loop: bytes | None = None


def _checked(deal, outcome, driver, **more):
    return Game(deal, outcome, engine.play(deal, engine="reference"), driver, **more)


def check(spec, result):
    """The games chunk `result` (a drivers.ChunkResult of job `spec`) keeps,
    each replayed by the reference engine: its hits, and after a finished
    game of at least extend_cards cards the longest balanced deal of its
    family. A census keeps every loop deal, with its rank and its loop's
    canonical state, and the chunk's `top` longest games: what a chunk keeps
    depends on the chunk alone, never on which chunks were kept before it."""
    if result.block is not None:
        games = [_checked(deal, outcome, "census", rank=rank, loop=key)
                 for rank, deal, outcome, key in result.block.loops]
        games += [_checked(deal, outcome, "census", rank=rank) for rank, deal, outcome in result.block.longest]
        return games
    games = []
    for deal, outcome in result.hits:
        games.append(_checked(deal, outcome, spec["driver"]))
        if extends(spec) and spec["extend_cards"] <= outcome.cards and outcome.status == "finished":
            longest = family(deal, EXTENSION_STATES, EXTENSION_SECONDS, cpu_engine(spec)).longest
            if longest is not None and longest[0] != deal:
                member = longest[0]
                games.append(_checked(member, engine.play(member, engine=cpu_engine(spec)), "extension",
                                      parent=len(games) - 1))
    return games
