"""The reference engine's cross-check of a chunk's hits, and the family
searches of its long games (docs/searching.md): most of a job's work when
its threshold keeps many games, so it is done with plain data in and out
and no archive, in the worker that played the chunk or beside a GPU.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import engine, loops
from ..backward import family
from ..deal import Deal
from ..outcome import Outcome
from ..variant import STANDARD
from . import SearchError
from .spec import extends, trick

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
    described: object = None    # a loop game the engines agree on: its loops.Loop (of_deal)


class Checker:
    """The checks of one chunk's games, under the trick of its job's variant.
    A deal dealt twice in a chunk (a small deck has few deals) is replayed
    once, and a loop is described once, here, not in the job's process, which
    only looks it up in the archive. The archive's loops are the standard
    trick's, which the walks grow: a loop game that lays on is kept as a game."""

    def __init__(self, variant=STANDARD):
        self.variant = variant
        self.replays = {}       # deal text -> the reference engine's outcome
        self.loops = {}         # deal text or canonical state -> loops.Loop

    def game(self, deal, outcome, driver, **more):
        text = str(deal)
        replay = self.replays.get(text)
        if replay is None:
            replay = self.replays[text] = engine.play(deal, engine="reference", variant=self.variant)
        game = Game(deal, outcome, replay, driver, **more)
        if self.variant.lay_on:     # a driver's cycle key is a lay-on cycle's: no loop of the archive's
            game.loop = None
        elif outcome.status == "loop" and outcome == replay:
            # A disputed game is kept marked so, and no loop is made of it.
            described = self.loops.get(game.loop) or self.loops.get(text)
            if described is None:
                try:
                    described = loops.of_deal(deal)
                except loops.LoopError as error:
                    raise SearchError(str(error)) from None
                self.loops[text] = self.loops[described.key] = described
            game.loop, game.described = described.key, described
        return game


def check(spec, result):
    """The games chunk `result` keeps, each replayed by the reference engine:
    its hits, and after a finished game of at least extend_cards cards the
    longest balanced deal of its family: what a chunk keeps depends on the
    chunk alone, never on which chunks were kept before it."""
    checker = Checker(trick(spec))
    games = []
    for deal, outcome in result.hits:
        games.append(checker.game(deal, outcome, spec["driver"]))
        if extends(spec) and spec["extend_cards"] <= outcome.cards and outcome.status == "finished":
            longest = family(deal, EXTENSION_STATES, EXTENSION_SECONDS, spec["engine"].cpu).longest
            if longest is not None and longest[0] != deal:
                member = longest[0]
                games.append(checker.game(member, engine.play(member, engine=spec["engine"].cpu), "extension",
                                          parent=len(games) - 1))
    return games
