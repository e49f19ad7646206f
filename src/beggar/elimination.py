"""Backward play with elimination: from a loop back to deals of 3 or 4
players, as docs/backward.md ("Three and four players") tells. The loop is
seated every way with its first hand in seat 0, since a table turned round is
the same game; a loop that keeps every player of the table in is searched
from its own states. Every deal found is played forward by both engines,
which must agree that it loops.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from . import engine, loops
from .backward import BackwardError, check_bounds
from .cycle import deal_of
from .decks import hand_sizes
from .errors import Fault
from .states import GUIDES

MAX_STATES = 2_000_000
MAX_SECONDS = 60.0


class EliminationFault(Fault):
    """A deal found by backward play that the two engines do not play alike,
    or that does not loop: a bug in beggar (exit 3); the message names the deal."""


@dataclass(frozen=True)
class TableBasin:
    loop: tuple             # the states on the loop, its players only, canonical state first
    players: int            # seats at the table searched
    roots: int              # the loop's states at the table, every way to seat it
    states: int             # states visited
    deals: list             # [(deal, compiled outcome, reference outcome)] of the deals found
    stopped_by: str | None  # None: complete; "states" or "time": the bound that stopped it
    best: object            # the deal-like state (Deal, leader first) with the largest smallest hand, or None
    guide: str


def seated(cycle, players):
    """The states of a loop (its players' hands only, in seat order) at a
    table of `players` seats, every way to seat them: its first hand in seat
    0, the others after it in order, the seats between them empty. Returns
    (roots, skips): skips[i] is the state before roots[i] on the loop."""
    playing = len(cycle[0][0])
    if not 2 <= playing <= players:
        raise BackwardError(f"a loop of {playing} players cannot be seated at a table of {players}")
    roots, skips = [], []
    for others in itertools.combinations(range(1, players), playing - 1):
        seats = (0,) + others
        placed = []
        for hands, leader in cycle:
            table = [()] * players
            for seat, hand in zip(seats, hands):
                table[seat] = tuple(hand)
            placed.append((tuple(table), seats[leader]))
        roots.extend(placed)
        skips.extend(placed[i - 1] for i in range(len(placed)))
    return roots, skips


def search(deal, players, guide="smallest", max_states=MAX_STATES, max_seconds=MAX_SECONDS, engine_name=None):
    """The balanced deals of `players` that fall into the loop of `deal` (a
    deal of any players that loops), found by backward play."""
    if players not in (3, 4):
        raise BackwardError(f"backward play with elimination is for 3 or 4 players, not {players!r}")
    if guide not in GUIDES:
        raise BackwardError(f"the guide must be one of {', '.join(GUIDES)}, not {guide!r}")
    check_bounds(max_states, max_seconds)
    try:
        loop = loops.of_deal(deal, engine_name)
    except loops.LoopError as error:
        raise BackwardError(f"{error}; backward play with elimination starts from a loop") from None
    return from_loop(loop.states, players, deal.total, guide, max_states, max_seconds, engine_name)


def from_loop(cycle, players, total, guide="smallest", max_states=MAX_STATES, max_seconds=MAX_SECONDS,
              engine_name=None):
    """search() from a loop's states (its players' hands, in seat order)."""
    roots, skips = seated(cycle, players)
    sizes = hand_sizes(total, players)
    visited, hits, stopped_by, best = engine.backward_to(roots, skips, sizes, guide, max_states, max_seconds,
                                                         engine_name)
    deals = []
    for deal in dict.fromkeys(deal_of(found.hands, found.leader) for found in hits):
        compiled, reference = engine.play(deal), engine.play(deal, engine="reference")
        if compiled != reference or compiled.status != "loop":
            raise EliminationFault(f"backward play found {deal}, which does not loop as it should (compiled "
                                   f"{compiled}, reference {reference}). This is a bug in beggar: please "
                                   "report the deal.")
        deals.append((deal, compiled, reference))
    if best is not None:
        best = deal_of(best.hands, best.leader)
    return TableBasin(cycle, players, len(roots), visited, deals, stopped_by, best, guide)
