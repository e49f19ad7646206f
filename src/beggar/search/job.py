"""Job specifications: what a search runs, read from TOML job files.

A job file names a driver and its parameters; everything not given takes the
default of DEFAULTS. `deck`, `players` and `split` say what deals are dealt
(decks.py, Deal.shuffled); a spec written before they existed deals the
defaults, which is what it dealt then. Budgets and chunks are counted in deals played. Chunk c of
a job is reproducible from the job's seed and c alone: for "sample" it is the
deals c*chunk .. (c+1)*chunk-1 of the seed, for "climb" the walk number c of
the seed (climbing.py). So a job gives the same hits whatever the number of
workers, and a resumed job the same as one never stopped.

The loop factory's drivers (FACTORY) count their budget and chunks in tries
(a state played to its loop or its end) instead of deals: "grow" chunk c is
growth walk number c of the seed, "perturb" chunk c is perturbation walk c
of the seed over the full loops the job starts from (its `start`: the loops
of its deck the archive held when it was created, and the published ones,
fixed then so that a resumed job plays the same walks). Every new full loop
gets a basin search bounded by `basin_states` states and `basin_seconds`
processor seconds.
"""

import inspect
import os
import secrets
import sys

from .. import census
from ..checks import MAX_COUNT, cut, is_digits, seconds, whole
from ..climbing import ClimbRules
from ..decks import DeckError, check_table
from ..errors import BadInput
from ..shuffle import check_seed

if sys.version_info >= (3, 11):
    import tomllib
else:                                       # pragma: no cover
    import tomli as tomllib

DRIVERS = ("sample", "climb", "census", "grow", "perturb", "eliminate")

#: The drivers of the loop factory (two players; budgets and chunks in tries).
FACTORY = ("grow", "perturb")

#: The thresholds are benchmarks/extension_yield.py's best: games of 2800
#: cards (about 1 deal in 10^6), each extended by a family search, reached
#: the most games of 4000+ cards per processor hour.
DEFAULTS = {
    "name": "search",
    "driver": "sample",
    "seed": None,           # None: a fresh seed, drawn when the job starts (fresh_seed)
    "workers": 0,           # 0: one per core
    "min_cards": 2800,
    "deals": 0,             # 0: until stopped (Ctrl-C, SIGTERM or --time)
    "chunk": 4_000_000,     # climb: one walk; sample and census with none given: CHUNK_SECONDS of a core
    "extend_cards": 2800,   # a kept game this long gets a family search; 0: none
    "deck": "standard",     # a name or counts (decks.py)
    "players": 2,
    "split": "even",        # two players: "even", the first hand's size, or "random"
    "first": 0,             # census: the rank of the first arrangement played
    "top": 10,              # census: the longest games kept
    "basin_states": 2_000_000,  # grow, perturb: the bounds of a new loop's basin search
    "basin_seconds": 60.0,
    "engine": None,         # None: $BEGGAR_ENGINE, else compiled (engine.py); gpu for GPU jobs
}

#: What a job on the GPU engine takes where its file and command line give
#: nothing: chunks of 10^9 deals (about a second of the GPU the engine aims
#: at), and a threshold whose games the CPU side can replay and extend as
#: fast as the GPU finds them (about 1 deal in 2 * 10^7 lasts 3500 cards:
#: some 50 a second at 10^9 deals a second; see the README's GPU section).
GPU_DEFAULTS = {"chunk": 10 ** 9, "min_cards": 3500, "extend_cards": 3500}

#: The drivers a GPU engine plays; the others run on the compiled engine.
GPU_DRIVERS = ("sample", "census")


#: Seconds of a core a chunk takes when a job gives no chunk (drivers.timed_chunk
#: measures it when the job starts): long enough that keeping a chunk costs
#: little, short enough that a stop or a time limit is prompt.
CHUNK_SECONDS = 3.0

#: Bounds of the numbers of a job: a chunk is played by one worker in one
#: go (10**9 deals is a quarter of an hour of a core); more workers than
#: this are never useful, and the runner starts at most 4 per core anyway.
MAX_CHUNK = 10 ** 9
MAX_WORKERS = 1024
MAX_NAME = 100

#: Worker processes a search starts on this machine, at most: a few per core
#: keep the cores busy; more only crowd its memory.
WORKERS_PER_CORE = 4


def max_workers():
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


#: Fresh seeds are drawn below this: short enough to read and type, and with
#: 10**12 of them two jobs practically never share one.
FRESH_SEEDS = 10 ** 12


def fresh_seed():
    """A seed for a job whose file gives none: drawn at random, so that two
    runs of one job file play different deals (the job stores it, and
    --seed replays its deals)."""
    return secrets.randbelow(FRESH_SEEDS)


class JobError(BadInput, ValueError):
    """A job specification that cannot be run; the message names file and key."""


def load(path):
    """The job spec of a TOML file, checked, as a plain dict."""
    return check(read(path), path)


def read(path):
    """A TOML job file as it stands, not yet checked; the name defaults to the file's."""
    try:
        with open(path, "rb") as file:
            data = tomllib.load(file)
    except FileNotFoundError:
        raise JobError(f"{path}: no such job file") from None
    except IsADirectoryError:
        raise JobError(f"{path}: is a directory, not a job file") from None
    except UnicodeDecodeError as error:
        raise JobError(f"{path}: not a text file ({error.reason} at byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise JobError(f"{path}: not valid TOML ({error})") from None
    except ValueError as error:         # a number of thousands of digits
        raise JobError(f"{path}: not a job file ({error})") from None
    except OSError as error:
        raise JobError(f"{path}: cannot read ({error.strerror})") from None
    data.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    return data


def check(data, where="job"):
    """A complete, checked spec from a partial one: defaults filled in, every
    value of the right kind, the climber's rules valid."""
    known = set(DEFAULTS) | {"climb", "eliminate", *FACTORY}
    unknown = sorted(set(data) - known)
    if unknown:
        raise JobError(f"{where}: unknown key '{unknown[0]}' (known: {', '.join(sorted(known))})")
    spec = dict(DEFAULTS)
    spec.update({k: v for k, v in data.items() if k not in ("climb", "eliminate", *FACTORY)})
    if not isinstance(spec["name"], str) or not 0 < len(spec["name"]) <= MAX_NAME or not all(
            ch.isalnum() or ch in "-_." for ch in spec["name"]):
        raise JobError(f"{where}: 'name' must be 1 to {MAX_NAME} letters, digits, '-', '_' or '.', "
                       f"not {spec['name']!r}")
    if spec["driver"] not in DRIVERS:
        raise JobError(f"{where}: 'driver' must be one of {', '.join(DRIVERS)}, not {spec['driver']!r}")
    if spec["seed"] is None:
        spec["seed"] = fresh_seed()
    try:
        check_seed(spec["seed"])
    except ValueError as error:
        raise JobError(f"{where}: {error}") from None
    try:
        deck, spec["players"], split = check_table(spec["deck"], spec["players"], spec["split"])
    except DeckError as error:
        raise JobError(f"{where}: {error}") from None
    spec["deck"] = str(deck)
    spec["split"] = "even" if split is None else split
    spec["engine"] = check_engine(spec, spec["engine"], where)
    if spec["engine"] == "gpu":
        spec.update({key: value for key, value in GPU_DEFAULTS.items() if key not in data})
    if spec["driver"] == "census":
        _check_census(spec, deck, where)
    for name in FACTORY:
        if name in data and spec["driver"] != name:
            raise JobError(f"{where}: [{name}] is given but the driver is {spec['driver']!r}")
    if spec["driver"] in FACTORY:
        _check_factory(spec, deck, where, data.get(spec["driver"], {}))
    if "eliminate" in data and spec["driver"] != "eliminate":
        raise JobError(f"{where}: [eliminate] is given but the driver is {spec['driver']!r}")
    if spec["driver"] == "eliminate":
        from .elimination import check as check_eliminate     # a driver's own module checks its table
        check_eliminate(spec, where, data.get("eliminate", {}), "chunk" in data)
        _check_basin_bounds(spec, where)
    # A census's budget is bounded by its deck's arrangements (_check_census),
    # which may be far more than 10**18; every other budget by MAX_COUNT.
    most_deals = None if spec["driver"] == "census" else MAX_COUNT
    for key, low, high in (("workers", 0, MAX_WORKERS), ("min_cards", 0, MAX_COUNT), ("deals", 0, most_deals),
                           ("chunk", 1, MAX_CHUNK), ("extend_cards", 0, MAX_COUNT)):
        try:
            whole(spec[key], f"'{key}'", low, high)
        except ValueError as error:
            raise JobError(f"{where}: {error}") from None
    climb = data.get("climb", {})
    if not isinstance(climb, dict):
        raise JobError(f"{where}: [climb] must be a table of the climber's parameters")
    if climb and spec["driver"] != "climb":
        raise JobError(f"{where}: [climb] is given but the driver is {spec['driver']!r}")
    try:
        spec["climb"] = ClimbRules(**climb).as_dict()
    except TypeError as error:
        raise JobError(f"{where}: [climb]: {error}") from None
    except ValueError as error:
        raise JobError(f"{where}: [climb]: {error}") from None
    return spec


def check_engine(spec, name, where="job"):
    """The engine the job `spec` plays on: `name`, or $BEGGAR_ENGINE, else
    compiled. A GPU engine plays two-player sample and census jobs."""
    from ..engine import ALL_ENGINES, GPU_ENGINES
    if name is None:
        name = os.environ.get("BEGGAR_ENGINE") or "compiled"
    if name not in ALL_ENGINES:
        raise JobError(f"{where}: 'engine' must be one of {', '.join(ALL_ENGINES)}, not {shown_value(name)}")
    if name in GPU_ENGINES:
        if spec["driver"] not in GPU_DRIVERS:
            raise JobError(f"{where}: the {name} engine plays {' and '.join(GPU_DRIVERS)} jobs; the "
                           f"{spec['driver']} driver runs on the compiled engine")
        if spec["players"] != 2:
            raise JobError(f"{where}: the {name} engine plays two-player deals; {spec['players']}-player "
                           "jobs run on the compiled engine")
    return name


def shown_value(value):
    """A value as an error names it, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_census(spec, deck, where):
    """A census plays every arrangement once: its budget is the arrangements
    from `first` (all of them to the last rank when `deals` is 0), and chunk c
    holds ranks first + c*chunk onward. Seeds and min_cards do not apply."""
    if spec["split"] == "random":
        raise JobError(f"{where}: a census deals every arrangement once: the split is even or a number of cards")
    first = spec["first"]
    if is_digits(first):
        first = int(first)          # TOML integers stop at 2**63; ranks of big decks do not
    arrangements = census.count(deck)
    try:
        spec["first"] = whole(first, "'first'", 0, arrangements - 1)
        spec["top"] = whole(spec["top"], "'top'", 0, 10 ** 6)
        spec["deals"] = whole(spec["deals"], "'deals'", 0, arrangements - spec["first"]) \
            or arrangements - spec["first"]
    except ValueError as error:
        raise JobError(f"{where}: {error} (the {deck} deck has {arrangements:,} arrangements)") from None
    spec["extend_cards"] = 0


def _check_factory(spec, deck, where, options):
    """Loops are built from two-player states of the job's whole deck, of any
    split. The driver's table ([grow] or [perturb]) holds its walk's options
    (beggar._loops; their defaults are the core's measured best), checked by
    the core itself."""
    try:
        from .. import _loops
    except ImportError as error:
        raise JobError(f"{where}: the {spec['driver']} driver needs the compiled engine ({error})") from None
    table = f"[{spec['driver']}]"
    if not isinstance(options, dict):
        raise JobError(f"{where}: {table} must be a table of the walk's options")
    # grow() passes its options on to _grow(), which names them.
    walker = _loops._grow if spec["driver"] == "grow" else _loops.perturb
    known = [name for name, parameter in inspect.signature(walker).parameters.items()
             if parameter.kind == parameter.KEYWORD_ONLY]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise JobError(f"{where}: {table}: unknown option '{unknown[0]}' (known: {', '.join(known)})")
    try:
        _loops.check_deck(deck)
    except ValueError as error:
        raise JobError(f"{where}: {error}") from None
    try:
        # The options are checked where they are used: a one-try growth walk;
        # perturb checks its options before its states, so none are given.
        if spec["driver"] == "grow":
            _loops.grow(deck, 0, 0, 1, **options)
        else:
            _loops.perturb([], deck, 0, 0, 1, **options)
    except (TypeError, ValueError) as error:
        if "none were given" not in str(error):
            raise JobError(f"{where}: {table}: {error}") from None
    spec[spec["driver"]] = dict(options)
    _check_basin_bounds(spec, where)
    if spec["players"] != 2:
        raise JobError(f"{where}: the {spec['driver']} driver builds two-player loops, "
                       f"not {spec['players']}-player ones")
    if spec["split"] != "even":
        raise JobError(f"{where}: the {spec['driver']} driver builds loops of any split: 'split' does not apply")
    spec["extend_cards"] = 0


def _check_basin_bounds(spec, where):
    try:
        whole(spec["basin_states"], "'basin_states'", 1, MAX_COUNT)
        spec["basin_seconds"] = seconds(spec["basin_seconds"], "'basin_seconds'")
    except ValueError as error:
        raise JobError(f"{where}: {error}") from None


def unit(spec):
    """What the job's budget counts: "tries" for the loop factory, "states"
    for backward play with elimination, else "deals"."""
    if spec["driver"] == "eliminate":
        return "states"
    return "tries" if spec["driver"] in FACTORY else "deals"


def stored(spec, where="the archive"):
    """A spec as an archive keeps it, with the keys added since it was written
    given their defaults (the deals it dealt then), checked as a job file's
    are: ArchiveFault naming `where` (the file and the job) when it cannot be
    a job's spec (an archive damaged, or written by hand)."""
    from ..archive import ArchiveFault
    if not isinstance(spec, dict):
        raise ArchiveFault(f"{where}: damaged: its spec is not a JSON object")
    # A job written before family extension searched no family: extend_cards 0;
    # one written before the GPU engine played on the compiled one.
    spec = {**DEFAULTS, "extend_cards": 0, "engine": "compiled", **spec}
    try:
        # What check() does not know it leaves alone: a perturb job's start
        # loops, and the tables of other drivers (a stored spec has the
        # climber's defaults whatever its driver).
        check({key: value for key, value in spec.items()
               if key != "start" and (key not in ("climb", "eliminate", *FACTORY) or key == spec.get("driver"))},
              where)
    except JobError as error:
        text = str(error)
        raise ArchiveFault(f"{where}: damaged: {text[len(where) + 2:] if text.startswith(where) else text}") \
            from None
    except (TypeError, ValueError, AttributeError) as error:
        raise ArchiveFault(f"{where}: damaged: its spec cannot be read ({cut(str(error))})") from None
    return spec


def cpu_engine(spec):
    """The engine of the one-game plays of a job's own process (an
    extension's member, a family search): the compiled one for a GPU job."""
    from ..engine import GPU_ENGINES
    return "compiled" if spec["engine"] in GPU_ENGINES else spec["engine"]


def table(spec):
    """The keyword arguments of engine.sample and engine.climb for the spec's
    deals: deck, players and split."""
    return {"deck": spec["deck"], "players": spec["players"],
            "split": None if spec["split"] == "even" else spec["split"]}


def extends(spec):
    """Whether the spec's long games get a family search: backward play is for
    two players."""
    return spec["extend_cards"] > 0 and spec["players"] == 2


def chunks_in(spec):
    """How many chunks the budget holds (None: no budget)."""
    if not spec["deals"]:
        return None
    return -(-spec["deals"] // spec["chunk"])


def chunk_deals(spec, chunk):
    """Deals in chunk number `chunk`: the last one of a budget may be short."""
    if spec["deals"]:
        return min(spec["chunk"], spec["deals"] - chunk * spec["chunk"])
    return spec["chunk"]
