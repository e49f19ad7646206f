"""Backward play (docs/backward.md): a finished two-player game's family,
every state whose game ends the same way, found back from its final state;
a loop's basin, every state that falls into it, found back from its states.
Both searches are bounded in states and processor seconds, and say so when a
bound stopped them.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import engine
from .checks import MAX_COUNT, seconds, whole
from .cycle import deal_of, walk
from .errors import BadInput

MAX_STATES = 10_000_000
MAX_SECONDS = 60.0


class BackwardError(BadInput, ValueError):
    """A deal that the asked-for search does not apply to."""


@dataclass(frozen=True)
class Family:
    final: tuple            # the final state: (hands, leader)
    states: int             # states visited
    balanced: int           # balanced deals among them
    longest: tuple | None   # (deal, cards, tricks) of the longest balanced deal, or None
    stopped_by: str | None  # None: complete; "states" or "time": the bound that stopped it


@dataclass(frozen=True)
class Basin:
    loop: list              # the states on the loop, in play order: (hands, leader)
    entry: tuple            # loop_entry of the deal searched from
    states: int             # states visited, the loop's own included
    deals: list             # [(deal, outcome by the reference engine)] of the balanced deals
    stopped_by: str | None


def _check_search(deal, max_states, max_seconds):
    if deal.players != 2:
        raise BackwardError(f"backward play is for two players, not {deal.players}")
    check_bounds(max_states, max_seconds)


def check_bounds(max_states, max_seconds):
    """A search's bounds: whole states, seconds above 0."""
    try:
        whole(max_states, "max_states", 1, MAX_COUNT)
        seconds(max_seconds, "max_seconds")
    except ValueError as error:
        raise BackwardError(str(error)) from None


def family(deal, max_states=MAX_STATES, max_seconds=MAX_SECONDS, engine_name=None):
    """The family of a finished two-player game."""
    _check_search(deal, max_states, max_seconds)
    outcome = engine.play(deal, engine=engine_name)
    if outcome.status != "finished":
        raise BackwardError(f"the game {'loops' if outcome.status == 'loop' else 'does not end'}; "
                            "a family is found from the end of a finished game (beggar basin for a loop)")
    *_, last = engine.tricks(deal)
    final = (tuple(tuple(hand) for hand in last.hands), last.taker)
    states, balanced, stopped_by = engine.backward([final], [None], max_states, max_seconds, engine_name)
    longest = max(balanced, key=lambda found: (found.cards, found.tricks), default=None)
    if longest is not None:
        longest = (deal_of(longest.hands, longest.leader), longest.cards, longest.tricks)
    return Family(final, states, len(balanced), longest, stopped_by)


def basin(deal, max_states=MAX_STATES, max_seconds=MAX_SECONDS, engine_name=None):
    """The basin of the loop a two-player deal falls into; every balanced deal
    in it is replayed by the reference engine."""
    _check_search(deal, max_states, max_seconds)
    outcome = engine.play(deal, engine=engine_name)
    if outcome.status != "loop":
        raise BackwardError(f"the game does not loop (it is {outcome.status}); "
                            "a basin is found from a loop (beggar family for a finished game)")
    entry, period = outcome.loop_entry[0], outcome.loop_period[0]
    loop = walk(deal, engine.tricks(deal), entry, period)[:period]
    # Each loop state's predecessor on the loop is already a root: not followed.
    skips = [loop[i - 1] for i in range(period)]
    visited, balanced, stopped_by = engine.backward(loop, skips, max_states, max_seconds, engine_name)
    # A loop whose second half replays its first with the seats swapped
    # (Zanotto's) reaches each deal from both seats: one deal, kept once.
    members = dict.fromkeys(deal_of(found.hands, found.leader) for found in balanced)
    deals = [(member, engine.play(member, engine="reference")) for member in members]
    return Basin(loop, outcome.loop_entry, visited, deals, stopped_by)
