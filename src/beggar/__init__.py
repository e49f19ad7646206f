"""beggar: hunt the longest and the never-ending deals of Beggar-My-Neighbour."""

from .deal import Deal, DealError
from .engine import EngineError, play, play_batch, sample
from .outcome import Outcome
from .rules import Rules

__all__ = ["Deal", "DealError", "EngineError", "Outcome", "Rules", "play", "play_batch", "sample"]
__version__ = "0.1.0"
