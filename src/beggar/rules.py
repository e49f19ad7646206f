"""Rules: the options a game is played under, agreed before it starts."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .checks import whole


@dataclass(frozen=True)
class Rules:
    """Limits and switches for one game.

    `max_cards` / `max_tricks`: stop once the trick that reaches the limit is
    resolved (see "limits" in docs/rules.md); None means no limit. `detect_loops`: exact loop
    detection, on unless switched off; a game without it needs a limit, since a
    loop would otherwise never end. `lay_on`: the trick where the player to
    move lays on until he turns up a court card (variant.py's).
    """

    max_cards: int | None = None
    max_tricks: int | None = None
    detect_loops: bool = True
    lay_on: bool = False

    def __post_init__(self):
        for name in ("max_cards", "max_tricks"):
            value = getattr(self, name)
            if value is None:
                continue
            whole(value, name, 1)
            if value >= 1 << 62:
                raise ValueError(f"{name} {value} is too large")
        for name in ("detect_loops", "lay_on"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, not {getattr(self, name)!r}")
        if not self.detect_loops and self.max_cards is None and self.max_tricks is None:
            raise ValueError("without loop detection a game needs max_cards or max_tricks")

    def as_dict(self):
        """Its fields, lay_on only where it is set: the standard trick's rules
        are stored and shown as they were before it existed."""
        fields = asdict(self)
        if not self.lay_on:
            del fields["lay_on"]
        return fields
