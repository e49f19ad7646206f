"""Picks the engine: compiled by default, the reference on demand.

`engine=None` follows the environment variable BEGGAR_ENGINE ("compiled" when
unset); "reference" and "compiled" force one. A compiled engine that cannot be
loaded is a loud error, never a silent fall-back to the slow one.

The GPU engines (gpu.KINDS, docs/gpu.md; "gpu" is taken for "cuda") play
random deals and census blocks of two players, the compiled engine's results,
and leave every other call to it. A GPU that cannot be used is a loud error
too (EngineFault), never a fall-back to the CPU.

The functions every engine module provides, with the same signatures, are
stated once in `contract.Engine`; tests/test_contract.py holds every engine to it.
Everything outside the engines calls the functions of this module.
"""

from __future__ import annotations

import os

from . import reference
from .checks import devices as check_devices
from .climbing import ClimbRules
# The contract and its errors are named here too: callers have always found them here.
from .contract import FUNCTIONS, Engine, EngineError, EngineFault  # noqa: F401
from .deal import Deal
from .gpu import NAMES as GPU_ENGINES, TAKEN
from .rules import Rules
from .variant import Variant

#: The engines that play every game of every table.
ENGINES = ("compiled", "reference")
#: The engines of the GPU kernels (GPU_ENGINES, gpu.KINDS' rows): two-player deals.
ALL_ENGINES = ENGINES + GPU_ENGINES


class Choice(str):
    """An engine resolved once from its name (None: BEGGAR_ENGINE, else
    compiled): what a command hands a job's spec and everything downstream
    reads, never classifying the name again; EngineError for a name none of
    ALL_ENGINES. A str, the engine's own name, so that a spec holding one is
    stored, shown and compared as the name it always was (job.stored
    resolves an archive's again)."""

    def __new__(cls, name=None):
        where = ""
        if name is None:
            name = os.environ.get("BEGGAR_ENGINE") or "compiled"
            where = " (from the environment variable BEGGAR_ENGINE)" if os.environ.get("BEGGAR_ENGINE") else ""
        kind = TAKEN.get(name) if isinstance(name, str) else None
        if kind is None and name not in ENGINES:
            raise EngineError(f"unknown engine {name!r}{where}: use one of {', '.join(ALL_ENGINES)}")
        choice = super().__new__(cls, name if kind is None else kind.name)
        choice.kind = kind      # its row of gpu.KINDS; None for the compiled and reference engines
        return choice

    @property
    def gpu(self):
        """Whether it plays through the GPU kernels: two-player deals, and the jobs of the drivers that can."""
        return self.kind is not None

    @property
    def on_device(self):
        """Whether its launches play on a device of their own, not on this process's cores."""
        return self.gpu and self.kind.on_device

    @property
    def cpu(self):
        """The engine of the one-game plays of its job's own process: the compiled one for a GPU engine."""
        return Choice("compiled") if self.gpu else self


def argument(text):
    """--engine's value: its Choice, or the text as given, for the parser to
    refuse as none of ALL_ENGINES."""
    try:
        return Choice(text)
    except EngineError:
        return text


#: The devices the GPU engines play on in this process (use_devices).
_devices = None


def use_devices(devices):
    """Play the GPU engines on `devices` from now on in this process: None
    (BEGGAR_GPU_DEVICES, else the engine's default device), "all" (every
    device of the engine's kind), or device numbers (a list, or "0,2")."""
    global _devices
    _devices = None if devices is None else check_devices(devices, "the devices")


def _chosen_devices():
    if _devices is not None:
        return _devices
    text = os.environ.get("BEGGAR_GPU_DEVICES")
    if not text:
        return None
    try:
        return check_devices(text, "the environment variable BEGGAR_GPU_DEVICES")
    except ValueError as error:
        raise EngineError(str(error)) from None


def get(engine=None):
    """The engine module for `engine` (a name or Choice; None: BEGGAR_ENGINE, else compiled)."""
    choice = Choice(engine)
    if choice == "reference":
        return reference
    if choice.gpu:
        from . import gpu
        try:
            return gpu.get(choice, _chosen_devices())
        except ImportError as error:
            raise EngineError(f"the {choice} engine cannot be loaded ({error}); reinstall beggar "
                              "with 'pip install .'") from None
    try:
        from . import _engine
    except ImportError as error:
        raise EngineError(
            f"the compiled engine cannot be loaded ({error}); reinstall beggar "
            "with 'pip install .', or use BEGGAR_ENGINE=reference") from None
    return _engine


def check_usable(engine=None):
    """The engine `engine` (as get takes it) loaded, and for a GPU engine its
    bindings, driver and devices checked (gpu.check, without building a
    kernel): EngineError or GpuFault in one line, before a command plays on
    it. A GPU engine plays one game on the compiled one, so that without
    this a command asked for "cuda" with no NVIDIA driver played on the CPU
    without a word."""
    chosen = get(engine)
    choice = Choice(engine)
    if choice.gpu:
        from . import gpu
        gpu.check(choice, _chosen_devices())
    return chosen


# play, play_batch, sample, sample_best, climb, census and tricks take a
# `variant` (variant.py: a name, a table such as 'J1 Q2 K3', or a Variant;
# None: the standard rules): their deal or deck is played as the variant's
# codes, under its trick (Rules.lay_on, the engines' `lay_on`), on whichever
# engine. The calls on states and loops take them as played, under the standard trick.

def play(deal, max_cards=None, max_tricks=None, engine=None, detect_loops=True, variant=None):
    """Play a Deal (or a deal in record notation) and return its Outcome."""
    if isinstance(deal, str):
        deal = Deal.parse(deal)
    elif not isinstance(deal, Deal):
        raise TypeError(f"play() needs a Deal or a deal in record notation, not {type(deal).__name__}")
    variant = _variant(variant)
    return get(engine).play(variant.deal(deal), Rules(max_cards, max_tricks, detect_loops, variant.lay_on))


def play_batch(decks, split=None, max_cards=None, max_tricks=None, engine=None, detect_loops=True, variant=None):
    """Play rows of card codes as two-player deals; see reference.play_batch."""
    variant = _variant(variant)
    return get(engine).play_batch(variant.rows(decks), split,
                                  Rules(max_cards, max_tricks, detect_loops, variant.lay_on))


def sample(n_deals, seed=1, min_cards=3000, start=0, engine=None, players=2, deck="standard", split=None,
           variant=None):
    """Random deals start .. start+n_deals-1 of `seed`, as Deal.shuffled deals
    them (`deck` by name, notation or Deck; `split` None, a first hand's size
    or "random"); the (deal, outcome) pairs with at least `min_cards` cards,
    or a loop."""
    variant = _variant(variant)
    return get(engine).sample(n_deals, seed, min_cards, start, variant.deck(deck), players, split, variant.lay_on)


def sample_best(n_deals, seed=1, min_cards=3000, start=0, engine=None, players=2, deck="standard",
                split=None, variant=None):
    """sample(), the longest game played, and the lengths of every game played
    in cards: (hits, (deal, outcome) or None, lengths.Lengths)."""
    variant = _variant(variant)
    return get(engine).sample_best(n_deals, seed, min_cards, start, variant.deck(deck), players, split,
                                   variant.lay_on)


def _variant(variant):
    return Variant() if variant is None else Variant.parse(variant)


def perturb(states, deck, seed, index, tries, changes=2, reach=3, engine=None, known=(), moves="small"):
    """Perturbation walk `index` of `seed` from `states` on known loops of
    `deck` (beggar._loops.perturb: the loop factory's): a loops.Growth of the
    loops new to the walk, none of `known` (cycle hashes, not drawn from). The
    compiled engine plays its tries, or a GPU engine (small moves only),
    with the same loops found; the reference engine has no walks."""
    chosen = get(engine)
    if chosen is reference:
        raise EngineError("perturbation walks run on the compiled engine or a GPU engine, not the reference engine")
    if getattr(chosen, "NAME", None) == "compiled":
        from . import _loops
        return _loops.perturb(states, deck, seed, index, tries, changes=changes, reach=reach, moves=moves,
                              known=known)
    if moves != "small":
        raise EngineError(f"the GPU engines' walks make the small moves only, not {moves!r}: play {moves!r} moves "
                          "on the compiled engine")
    return chosen.perturb(states, deck, seed, index, tries, changes=changes, reach=reach, known=known)


def tricks(deal, variant=None):
    """The Trick records of a deal's game (leader, pile, taker, hands after),
    one per trick, to its finish or forever. Traces come from the reference
    engine, whose tricks are plain Python data."""
    variant = _variant(variant)
    return reference.tricks(variant.deal(deal), variant.lay_on)


def climb(seed, index, steps, min_cards=3000, rules=None, engine=None, players=2, deck="standard",
          split=None, variant=None):
    """Walk `index` of `seed` of a hill climber (climbing.ClimbRules `rules`)
    over deals of `deck`, `players` and `split` (as sample()): `steps` deals
    played; returns a climbing.Climb with the hits, the best game and the
    number of restarts."""
    variant = _variant(variant)
    return get(engine).climb(seed, index, steps, min_cards, rules or ClimbRules(), variant.deck(deck), players,
                             split, variant.lay_on)


def census(first, deals, deck="standard", players=2, split=None, top=10, engine=None, variant=None):
    """Play every arrangement of `deck` with ranks first .. first+deals-1
    (census.py: lexicographic order, dealt as Deal.shuffled deals), with exact
    loop detection: a states.CensusBlock of statuses, length histograms, the `top`
    longest games and every loop deal with its loop's canonical state."""
    variant = _variant(variant)
    return get(engine).census(first, deals, variant.deck(deck), players, split, top, variant.lay_on)


def predecessors(hands, leader, engine=None):
    """Every state at an empty table whose next trick leads to (hands,
    leader), 2 to 4 players, an empty hand for a player who is out; the
    earlier state may hold players that trick eliminated: [(hands, leader,
    cards laid in that trick)]."""
    return get(engine).predecessors(hands, leader)


def backward(roots, skips, max_states, max_seconds, engine=None):
    """Breadth-first over every two-player state that leads to one of `roots`
    ((hands, leader) each); skips[i] is a predecessor of roots[i] not to follow,
    or None. Returns (states visited, [states.Reached] balanced, stopped_by: None,
    "states" or "time")."""
    return get(engine).backward(roots, skips, max_states, max_seconds)


def backward_to(roots, skips, sizes, guide, max_states, max_seconds, engine=None):
    """Best first over every state of a table of len(sizes) seats that leads
    to one of `roots`, players eliminated on the way included, the next state
    visited the one `guide` (states.GUIDES) ranks first. Returns (states
    visited, [states.Reached] whose hands have `sizes` from the leader,
    stopped_by, the states.Reached with every player in and the largest
    smallest hand, or None)."""
    return get(engine).backward_to(roots, skips, sizes, guide, max_states, max_seconds)
