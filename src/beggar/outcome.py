"""Outcome: how a game ended, in the counting conventions of docs/rules.md."""

from __future__ import annotations

from dataclasses import dataclass, field

STATUSES = ("finished", "loop", "stopped")


@dataclass(frozen=True)
class Outcome:
    """The result of one game.

    status: "finished" | "loop" | "stopped". winner: index of the winning hand,
    None for a draw or a loop. cards, tricks: cards laid and piles taken; for a
    loop, counted when the repeated state is first seen. counts: cards held by
    each hand at the end. loop_entry, loop_period: (tricks, cards) for a loop,
    else None. engine: which engine played it (not part of equality).
    """

    status: str
    winner: int | None
    cards: int
    tricks: int
    counts: tuple
    loop_entry: tuple | None = None
    loop_period: tuple | None = None
    engine: str | None = field(default=None, compare=False)

    def as_dict(self):
        """The fields as plain JSON-ready values."""
        def pair(value):
            return None if value is None else {"tricks": value[0], "cards": value[1]}
        return {"status": self.status, "winner": self.winner, "cards": self.cards,
                "tricks": self.tricks, "counts": list(self.counts),
                "loop_entry": pair(self.loop_entry), "loop_period": pair(self.loop_period),
                "engine": self.engine}
