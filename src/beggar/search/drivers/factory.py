"""The loop factory's chunks: growth and perturbation walks (beggar._loops)
in the workers, and in the runner the keeping of the full loops they report.

A walk reports states on the cycles of the full loops it built. Each is
looked at again here (loops.of_state: compiled play, the cycle walked by the
reference engine, and the reference engine's own play of it), and named by
its canonical state, so a loop found twice, or from two states of its cycle,
is one loop. A loop new to the archive gets a basin search (backward.basin,
bounded by the job's basin_states and basin_seconds); every balanced deal in
its basin is replayed by the reference engine and kept as a game of status
loop. All of this is done before the archive's write lock is taken; the
chunk's loops, games and record are then written in one transaction.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from .. import engine, loops
from ..archive import ArchiveFault
from ..backward import basin
from ..census import key_deal
from ..decks import Deck
from ..rules import Rules
from . import SearchError


def walk(spec, chunk, tries):
    """Run chunk `chunk` of a grow or perturb job (in a worker): a plain dict
    of what the walk did ({loops: [(hands, leader)], tries, largest,
    restarts, sizes})."""
    from .. import _loops
    deck = Deck.parse(spec["deck"])
    if spec["driver"] == "grow":
        growth = _loops.grow(deck, spec["seed"], chunk, tries, **spec.get("grow", {}))
    else:
        growth = _loops.perturb(start_states(spec), deck, spec["seed"], chunk, tries, **spec.get("perturb", {}))
    return {"loops": [(tuple(tuple(hand) for hand in hands), leader) for hands, leader in growth.loops],
            "tries": growth.tries, "largest": growth.largest, "restarts": growth.restarts,
            "sizes": [tuple(size) for size in growth.sizes]}


def start_keys(archive, deck):
    """The canonical states (hex) a perturb job of `deck` starts from: the full
    loops of the deck the archive holds, and the published ones; sorted."""
    deck = str(Deck.parse(deck))
    keys = {row["key"] for row in archive.loops(deck=deck)}
    keys.update(loops.of_deal(deal).hex for _, deal in loops.published(deck))
    return sorted(keys)


def start_states(spec):
    """Every state on the cycles of a perturb job's start loops, in a fixed order."""
    states = []
    for key in spec["start"]:
        states.extend(loops.of_deal(key_deal(bytes.fromhex(key))).states)
    return states


@dataclass
class Found:
    """A full loop a chunk reported, looked at again; `basin` is its basin
    search (backward.Basin) when it is new to the archive, else None."""
    loop: loops.Loop
    compiled: object
    reference: object
    basin: object = None
    games: list = field(default_factory=list)      # [(deal, compiled outcome, reference outcome)]


def checked(archive, spec, growth):
    """The full loops of a chunk's walk, each checked and, when new to the
    archive (or kept without a basin search), with its basin searched."""
    found = {}
    for hands, leader in growth["loops"]:
        try:
            loop = loops.of_state(hands, leader)
        except loops.LoopError as error:
            raise SearchError(f"a {spec['driver']} walk reported a state that is no loop: {error}. "
                              "This is a bug in beggar: please report it.") from None
        if loop.key in found:
            continue
        if loop.deck != spec["deck"]:
            raise SearchError(f"a {spec['driver']} walk reported a loop of the {loop.deck} deck, not of the "
                              f"job's {spec['deck']} deck ({loop.deal()}). This is a bug in beggar: please "
                              "report it.")
        deal = loop.deal()
        item = Found(loop, engine.play(deal), engine.play(deal, engine="reference"))
        if item.compiled != item.reference:
            # Nothing of the chunk is kept: a loop rests on both engines' word.
            raise SearchError(f"the engines disagree on the loop {deal} that a {spec['driver']} walk "
                              f"reported: compiled {item.compiled}, reference {item.reference}. This is "
                              "a bug in beggar: please report the deal.")
        found[loop.key] = item
        known = archive.loop_id(loop.deck, loop.hex)
        if known is not None and archive.loop(known)["basin_states"] is not None:
            continue
        item.basin = basin(deal, spec["basin_states"], spec["basin_seconds"])
        item.games = [(member, engine.play(member), replay) for member, replay in item.basin.deals]
    return list(found.values())


def loops_of_games(archive, games):
    """The loops of a chunk's loop games (crosscheck.Game), which every driver
    keeps: each game gets its loop's canonical state, and the loops the
    archive does not hold yet are returned, to be kept with the games."""
    new = {}
    for game in games:
        if game.outcome.status != "loop" or game.outcome != game.replay:
            continue        # a disputed game is kept marked so, and no loop is made of it
        deck = game.deal.deck_written()
        if game.loop is not None and (game.loop in new or archive.loop_id(deck, game.loop.hex()) is not None):
            continue
        try:
            loop = loops.of_deal(game.deal)
        except loops.LoopError as error:
            raise SearchError(str(error)) from None
        game.loop = loop.key
        if loop.key not in new and archive.loop_id(deck, loop.hex) is None:
            new[loop.key] = loop
    return list(new.values())


def keep(archive, job_id, spec, result, summary):
    """Keep a grow or perturb chunk: its loops, their balanced deals and the
    chunk's record, in one transaction; then count them in the summary.
    Returns the first new balanced deal of each loop, to be announced:
    [(game id, deal, outcome, driver)]."""
    growth = result.growth
    found = checked(archive, spec, growth)
    new_loops, prizes, notes, disputed, news = [], [], [], [], []
    try:
        with archive.transaction():
            for item in found:
                loop_id, new = archive.add_loop(item.loop, job_id, spec["driver"], result.chunk)
                if new:
                    new_loops.append((loop_id, item.loop))
                if item.basin is None:
                    continue
                archive.set_basin(loop_id, item.basin.states, len(item.games), item.basin.stopped_by)
                if item.basin.stopped_by is not None:
                    bound = (f"{spec['basin_states']:,} states" if item.basin.stopped_by == "states"
                             else f"{spec['basin_seconds']:g} s")
                    notes.append(f"the basin search of loop {loop_id} stopped at its bound of {bound} "
                                 f"(basin_{item.basin.stopped_by}): it may hold more balanced deals")
                for deal, compiled, reference in item.games:
                    game_id, new_game = archive.add_game(deal, Rules(), compiled, reference, job_id, "basin",
                                                         spec["seed"], result.chunk, None, None, item.loop.key)
                    if compiled != reference:
                        disputed.append(f"game {game_id} ({deal}): compiled {compiled}, reference {reference}")
                    if new_game:
                        if not any(prize[1] == loop_id for prize in prizes):
                            news.append((game_id, deal, compiled, "basin"))
                        prizes.append((game_id, loop_id, deal))
            archive.add_chunk(job_id, result.chunk, result.deals, len(found), growth["largest"], result.seconds,
                              {"growth": {key: growth[key] for key in ("tries", "largest", "restarts", "sizes")},
                               "loops": [item.loop.hex for item in found]})
    except (sqlite3.Error, ArchiveFault) as error:
        raise SearchError(f"cannot keep chunk {result.chunk}: {error}; every chunk committed before "
                          f"is kept, resume with: beggar search --resume {job_id}") from None
    summary.deals += result.deals
    summary.loops += len(new_loops)
    summary.kept += len(prizes)
    summary.largest = max(summary.largest, growth["largest"])
    summary.full_loops += len(found)
    summary.new_loops.extend(new_loops)
    summary.prizes.extend(prizes)
    summary.bounds.extend(notes)
    if disputed:
        summary.disputed = disputed
        raise SearchError(f"the engines disagree on {disputed[0]}; kept in the archive marked "
                          "disputed. This is a bug in beggar: please report it.")
    return news
