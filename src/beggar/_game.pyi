"""Types of the compiled game (beggar/_game.pyx): its contract is C-level
(_game.pxd), for the compiled modules; Python sees only the engine's name."""

from .outcome import STATUSES as STATUSES

NAME: str
