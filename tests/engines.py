"""The engines under test, and the one harness that holds them to each other.

Every contract test (the calls of contract.Engine, contract.FUNCTIONS) runs
through `agree`: the call is made on every engine present here, and each must
give what the compiled engine gives, or raise what it raises (the same class,
the same words). RapidFuzz's tests/distance/common.py is the model: one list
of implementations that every test of a call runs through.

The list is the package's own (engine.ALL_ENGINES): the compiled engine and
the reference, which play every call on every table; and the engines of the
GPU kernels (gpu.KINDS), each present where it can run here: gpu-host always
(the kernels' own code, built into beggar), opencl where OpenCL lists a device
with what the kernels need (PoCL's CPU device, which the test extra
installs), cuda where a GPU answers. A GPU engine plays two-player tables and
climbs by every rule but anneal; anything else it must refuse with a
GpuRequestError. Its one-game calls (play, backward play) are the compiled
engine's own functions, so they are run once, not once for each name. It
plays on its kind's default device, its climbs in groups of at most
CLIMB_WALKS walks (get).
"""

import functools
import inspect

import numpy as np

from beggar import _engine, contract, engine, gpu
from beggar.decks import Deck
from beggar.gpu.engine import GpuRequestError, RangeEngine

#: Every engine, the compiled engine first (the one the others are held to),
#: the GPU engines from the one on this machine's CPU to the one on a GPU.
NAMES = (*engine.ENGINES, *reversed(engine.GPU_ENGINES))
#: The engines that play every call on every table themselves: each engine
#: test runs once on each (conftest.py's fixture `engine`).
EVERY_TABLE = engine.ENGINES
#: The engines of the GPU kernels.
KERNELS = engine.GPU_ENGINES


#: The most walks a GPU engine of the harness climbs in one call.
CLIMB_WALKS = 16


@functools.cache
def get(name):
    """Engine `name` as the harness plays it: the package's own (engine.get),
    but a GPU engine's climbs in groups of at most CLIMB_WALKS walks. A
    device's default group (256 walks a call on a CPU's OpenCL device, 16,384
    on a GPU) is sized for a job: a test that asks for one walk would climb
    all of them. A walk is the same whatever group it is climbed in."""
    if name not in KERNELS:
        return engine.get(name)

    def backend():
        made = gpu.backend(name)
        made.CLIMB_WALKS = min(made.CLIMB_WALKS, CLIMB_WALKS)
        return made
    return RangeEngine(name, backend)


@functools.cache
def why_absent(name):
    """None where engine `name` can run here; else why it cannot, in words."""
    if name not in KERNELS:
        return None
    try:
        gpu.check(name)
    except (contract.EngineFault, ImportError) as error:
        return str(error)
    return None


def present():
    """The engines that can run here, in the order of NAMES."""
    return [name for name in NAMES if why_absent(name) is None]


def fast():
    """The engines present but the reference: for calls too large for Python to play in a test."""
    return [name for name in present() if name != "reference"]


def refuses(name, function, args):
    """Whether engine `name` may refuse contract call `function`(*args) as
    not its to play (a GPU engine: a table of 3 or 4 players, a climb by
    anneal, the trick of a variant that lays on)."""
    if name not in KERNELS:
        return False
    try:
        bound = inspect.signature(getattr(contract.Engine, function)).bind(None, *args)
    except TypeError:
        return False            # arguments that fit no call: every engine must refuse them alike
    bound.apply_defaults()
    arguments = bound.arguments
    if arguments.get("players", 2) != 2 or arguments.get("lay_on") or getattr(arguments.get("rules"), "lay_on", False):
        return True
    return function == "climb" and getattr(arguments["rules"], "accept", None) == "anneal"


def same(a, b):
    """Whether two results of a call are the same: arrays of one dtype, element
    for element; tuples and lists of one type, item for item; else ==."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype \
            and a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def _made(call, args):
    """("returned", what call(*args) returned) or ("raised", the error)."""
    try:
        return "returned", call(*args)
    except Exception as error:      # an error is a result, which every engine must give alike
        return "raised", error


def _said(made):
    """What an engine made of a call, in a line of at most 300 characters."""
    kind, value = made
    text = f"{type(value).__name__}: {value}" if kind == "raised" else repr(value)
    return f"{kind} {text[:300]}"


def run(function, *args, engines=None):
    """Contract call `function`(*args) on each of `engines` (every engine
    present when None; the compiled engine always, first): {name: ("returned",
    result) or ("raised", error)}, and the lines that say where an engine
    disagreed with the compiled engine."""
    assert function in contract.FUNCTIONS, f"{function} is no call of the engine contract"
    names = ["compiled", *(name for name in (engines or present()) if name != "compiled")]
    made, ran, wrong = {}, {}, []
    for name in names:
        call = getattr(get(name), function)
        if call in ran:             # a GPU engine's one-game call: the compiled engine's own function
            made[name] = made[ran[call]]
            continue
        ran[call] = name
        made[name] = got = _made(call, args)
        if name == "compiled":
            continue
        expected = made["compiled"]
        if refuses(name, function, args):
            if got[0] == "raised" and isinstance(got[1], GpuRequestError):
                continue        # a table the kernels leave to the compiled engine, refused in words
            if expected[0] == "returned":
                wrong.append(f"{function}{args!r:.300}: {name} {_said(got)}, not a GpuRequestError")
                continue
        if got[0] != expected[0] or not (same(got[1], expected[1]) if got[0] == "returned" else
                                         (type(got[1]), str(got[1])) == (type(expected[1]), str(expected[1]))):
            wrong.append(f"{function}{args!r:.300}: compiled {_said(expected)}, {name} {_said(got)}")
    return made, wrong


def disagreements(function, *args, engines=None):
    """The lines that say where an engine disagreed with the compiled engine on
    `function`(*args) (run); none where every one agreed."""
    return run(function, *args, engines=engines)[1]


def agree(function, *args, engines=None):
    """Contract call `function`(*args) on each of `engines` (every engine
    present when None): what the compiled engine returned, once each of the
    others has returned the same or refused a table that is not its own; an
    error that every one raised alike is raised again."""
    made, wrong = run(function, *args, engines=engines)
    assert not wrong, "\n".join(wrong)
    kind, value = made["compiled"]
    if kind == "raised":
        raise value
    return value


def each(function, *args, engines=None):
    """{name: what engine `name` returned} of the engines that returned from
    `function`(*args), once every one agreed (agree): for what equality leaves
    out (the engine an outcome names)."""
    made, wrong = run(function, *args, engines=engines)
    assert not wrong, "\n".join(wrong)
    return {name: value for name, (kind, value) in made.items() if kind == "returned"}


def climb_walks(climber, rules, deck, split, min_cards, walks=12, steps=1500, seed=7):
    """Walks 0 .. walks - 1 of `seed` on `climber` (an engine of the kernels on
    a backend of a test's own sizes) and on the compiled engine."""
    deck = Deck.parse(deck)
    return ([climber.climb(seed, index, steps, min_cards, rules, deck, 2, split) for index in range(walks)],
            [_engine.climb(seed, index, steps, min_cards, rules, deck, 2, split) for index in range(walks)])
