"""Rules: the options a game is played under, agreed before it starts."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Rules:
    """Limits and switches for one game.

    `max_cards` / `max_tricks`: stop once the trick that reaches the limit is
    resolved (DESIGN.md 1.9); None means no limit. `detect_loops`: exact loop
    detection, on unless switched off; a game without it needs a limit, since a
    loop would otherwise never end.
    """

    max_cards: int = None
    max_tricks: int = None
    detect_loops: bool = True

    def __post_init__(self):
        for name in ("max_cards", "max_tricks"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
            if value >= 1 << 62:
                raise ValueError(f"{name} {value} is too large")
        if not isinstance(self.detect_loops, bool):
            raise ValueError(f"detect_loops must be True or False, not {self.detect_loops!r}")
        if not self.detect_loops and self.max_cards is None and self.max_tricks is None:
            raise ValueError("without loop detection a game needs max_cards or max_tricks")

    def as_dict(self):
        return {"max_cards": self.max_cards, "max_tricks": self.max_tricks,
                "detect_loops": self.detect_loops}
