"""Loops by their cycle: what a loop is, whatever deal or state reached it,
named by its canonical state (cycle.py says how; docs/loops.md), and its
players' only (docs/rules.md, Three or four players). A balanced state has
hands of equal size: written leader first, it is a deal of the kind people
deal (26/26 for the standard deck).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from . import engine, installed
from .cycle import canonical, deal_of, key_hands, walk
from .deal import Deal
from .decks import MAX_DECK
from .errors import BadInput
from .published import deals as published_deals


class LoopError(BadInput, ValueError):
    """A deal or state that does not fall into a loop, or cannot be looked at as one."""


@dataclass(frozen=True)
class Loop:
    key: bytes          # the canonical state (cycle.state_key)
    deck: str           # the deck, as decks.written writes it ("standard", "camicia", counts)
    period: tuple       # (tricks, cards) of one period
    states: tuple       # every state on the cycle, in play order, the canonical one first; its players only

    @property
    def hex(self):
        """The canonical state as the archive keeps it."""
        return self.key.hex()

    @property
    def state(self):
        """The canonical state: (hands, leader)."""
        return self.states[0]

    @property
    def players(self):
        """The players on its cycle (those still in): 2 for a loop that a
        game of 3 or 4 falls into once all but two are out."""
        return len(self.states[0][0])

    @property
    def balanced_states(self):
        """The states on the cycle whose hands are all of one size."""
        return [state for state in self.states if len({len(hand) for hand in state[0]}) == 1]

    @property
    def balanced(self):
        return bool(self.balanced_states)

    def deal(self):
        """The canonical state as a deal of its players (its leader's hand
        first): it loops from its first trick."""
        return deal_of(*self.state)


def of_state(hands, leader, engine_name=None):
    """The Loop that the state (hands, leader) falls into; StateError for
    what is no state (states.check_state)."""
    return of_deal(deal_of(hands, leader), engine_name)


def of_deal(deal, engine_name=None):
    """The Loop that a deal falls into (of the players still in when it is
    entered); LoopError when its game ends."""
    if isinstance(deal, str):
        deal = Deal.parse(deal)
    if isinstance(deal, Deal) and deal.total > MAX_DECK:
        # A state's key writes each hand's size in a byte (cycle.state_key).
        raise LoopError(f"a deal of {deal.total} cards: loops are named for decks of at most {MAX_DECK} cards")
    outcome = engine.play(deal, engine=engine_name)
    if outcome.status != "loop":
        raise LoopError(f"the game of {deal} does not loop (it is {outcome.status} after "
                        f"{outcome.cards} cards)")
    entry, period = outcome.loop_entry[0], outcome.loop_period[0]
    # The states at an empty table, in the deal's own seats; the trace comes
    # from the reference engine (engine.tricks), so the cycle found by the
    # compiled play is confirmed by the other engine as it is walked.
    states = walk(deal, engine.tricks(deal), entry, period)
    if states[period] != states[0]:
        raise LoopError(f"the engines disagree on the loop of {deal}: the state after trick "
                        f"{entry + period} is not the one after trick {entry}. This is a bug in "
                        "beggar: please report the deal.")
    key, ordered = canonical(states[:period])
    return Loop(key, deal.deck_written(), outcome.loop_period, ordered)


def published(deck=None):
    """The published loops shipped with beggar, as [(name, Deal)], those of
    `deck` only (a deck as decks.written writes it) when given."""
    found = [(record["name"], Deal.parse(f"{record['p1']}/{record['p2']}")) for record in published_deals()
             if record["status"] == "loop"]
    found += installed.read("other-decks.json", lambda text, where: [
        (record["name"], Deal.parse(record["deal"])) for record in json.loads(text)["loops"]])
    return [(name, deal) for name, deal in found if deck is None or deal.deck_written() == deck]


def kept_state(row, archive_path):
    """(Deal, Outcome) of a kept loop's canonical state (a row of the
    archive's loops, its key checked by the archive's reader), played once:
    an ArchiveFault unless it loops from its first trick with the period the
    row says. The row's period bounds the trace a command prints of one
    period: one edited to 10^18 would print for ever. The deal is its
    players' (a key an archive of format 5 or older holds, read as it
    stands, may hold the empty hand of a player who is out: left out here,
    it is a state of the same cycle, and a deal that plays as written)."""
    from .archive import ArchiveFault
    deal = Deal.from_codes([hand for hand in key_hands(bytes.fromhex(row["key"])) if hand])
    outcome = engine.play(deal)
    if outcome.status != "loop" or outcome.loop_entry[0] != 0 or \
            outcome.loop_period != (row["period_tricks"], row["period_cards"]):
        found = (f"a loop of period {outcome.loop_period[0]} tricks / {outcome.loop_period[1]} cards"
                 if outcome.status == "loop" else f"a {outcome.status} game")
        raise ArchiveFault(f"{archive_path}: damaged: loop {row['id']}: its row says period {row['period_tricks']} "
                           f"tricks / {row['period_cards']} cards, and its key's state plays {found}")
    return deal, outcome
