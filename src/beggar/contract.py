"""The engine contract: the functions every engine module provides (`Engine`),
and the errors of an engine that cannot be used.

Both `engine` (the dispatcher) and `gpu/` (its plug-ins) need these; they live
here, below both, so that neither imports the other to get them.
"""

from __future__ import annotations

from typing import Protocol

from .decks import STANDARD
from .errors import BadInput, Fault
from .rules import Rules


class Engine(Protocol):
    """The contract of an engine module (`beggar.reference`, `beggar._engine`):
    these functions, these signatures, the same results and exceptions. The
    compiled engine's backward play lives in `beggar._backward` and its census
    in `beggar._census`; `beggar._engine` re-exports both."""

    NAME: str

    def play(self, deal, rules=Rules()):
        """One deal under `rules` -> Outcome."""

    def play_batch(self, decks, split=None, rules=Rules()):
        """Rows of card codes as two-player deals -> batch.BATCH_DTYPE array."""

    def sample(self, n_deals, seed=1, min_cards=3000, start=0, deck=STANDARD, players=2, split=None, lay_on=False):
        """Random deals start .. start+n_deals-1 of `seed` (Deal.shuffled) -> [(Deal, Outcome)] hits.
        `lay_on`, here and below: the trick of Rules.lay_on."""

    def sample_best(self, n_deals, seed=1, min_cards=3000, start=0, deck=STANDARD, players=2, split=None,
                    lay_on=False):
        """sample() -> (hits, (Deal, Outcome) of the longest game or None, lengths.Lengths of every game)."""

    def climb(self, seed, index, steps, min_cards, rules, deck=STANDARD, players=2, split=None, lay_on=False):
        """Walk `index` of `seed` of the hill climber -> climbing.Climb."""

    def census(self, first, deals, deck=STANDARD, players=2, split=None, top=10, lay_on=False):
        """Play the arrangements of ranks first .. first+deals-1 (census.py) -> states.CensusBlock."""

    def predecessors(self, hands, leader):
        """Every state (2 to 4 players, those out too) one trick before (hands, leader)
        -> [(hands, leader, cards)]."""

    def backward(self, roots, skips, max_states, max_seconds):
        """Breadth-first backward search -> (visited, [states.Reached] balanced, stopped_by)."""

    def backward_to(self, roots, skips, sizes, guide, max_states, max_seconds):
        """Best-first backward search at a table of len(sizes) seats -> (visited,
        [states.Reached] with `sizes` from the leader, stopped_by, states.Reached or None)."""


#: The names of the functions in the contract.
FUNCTIONS = tuple(name for name in vars(Engine) if not name.startswith("_") and callable(vars(Engine)[name]))


class EngineError(BadInput, RuntimeError):
    """An engine that was asked for and cannot be used."""


class EngineFault(Fault, RuntimeError):
    """The machine cannot run the engine asked for (no GPU, no driver, a
    failed compile): a fault, not a wrong request."""
