"""Job specifications: what a search runs, read from TOML job files (a
driver and its parameters, the rest spec.DEFAULTS'), and the creation of a
new job in the archive, with what it starts from that the archive holds (a
perturb job's loops) fixed in its spec. A spec written before a key existed
takes the value that plays as it played then (stored).
"""

import os
import secrets
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..checks import MAX_COUNT, cut, seconds, whole
from ..checks import devices as checks_devices
from ..climbing import ClimbRules
from ..decks import DeckError, check_table
from ..shuffle import check_seed
from ..variant import Variant, VariantError
from . import drivers, pace
from .keep import PART_GAMES
from .spec import (CHUNK_SECONDS, DEFAULTS, GPU_DEFAULTS, MAX_CHUNK, MAX_CHUNK_SECONDS, MAX_NAME, MAX_WORKERS,
                   PART_SECONDS, JobError, fresh_seed, job_error, shown_value)

if sys.version_info >= (3, 11):
    import tomllib
else:                                       # pragma: no cover
    import tomli as tomllib

#: The tables of the drivers' options a job file may hold ([climb], [grow], ...).
TABLES = tuple(driver.options for driver in drivers.ALL if driver.options is not None)


def load(path):
    """The job spec of a TOML file, checked, as a plain dict."""
    return check(read(path), path)


def shipped_folder():
    """The folder of the job files shipped with beggar: beggar/jobs where it
    is installed, search/ beside src/ in a clone; None if neither is there."""
    package = Path(__file__).resolve().parent.parent
    for folder in (package / "jobs", package.parent.parent / "search"):
        if folder.is_dir():
            return folder
    return None


def shipped():
    """The names of the shipped job files, sorted ('sample', 'climb', ...)."""
    folder = shipped_folder()
    return sorted(path.stem for path in folder.glob("*.toml")) if folder else []


def locate(job):
    """The path of job file `job`: a file as given, else a shipped job of that name."""
    if os.path.exists(job) or os.sep in job or job.endswith(".toml"):
        return job
    folder = shipped_folder()
    if folder is not None and (folder / f"{job}.toml").is_file():
        return str(folder / f"{job}.toml")
    raise JobError(f"{job}: no such job file, nor a shipped job of that name "
                   f"(shipped: {', '.join(shipped()) or 'none'})")


def read(path):
    """A TOML job file (or shipped job) as it stands, not yet checked; the name defaults to the file's."""
    path = locate(path)
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
    """A complete, checked spec from a partial one: defaults filled in, the
    driver's own part checked by the driver."""
    known = set(DEFAULTS) | set(TABLES)
    unknown = sorted(set(data) - known)
    if unknown:
        raise JobError(f"{where}: unknown key '{unknown[0]}' (known: {', '.join(sorted(known))})")
    spec = dict(DEFAULTS)
    spec.update({k: v for k, v in data.items() if k not in TABLES})
    if not isinstance(spec["name"], str) or not 0 < len(spec["name"]) <= MAX_NAME or not all(
            ch.isalnum() or ch in "-_." for ch in spec["name"]):
        raise JobError(f"{where}: 'name' must be 1 to {MAX_NAME} letters, digits, '-', '_' or '.', "
                       f"not {spec['name']!r}")
    if spec["driver"] not in drivers.NAMES:
        raise JobError(f"{where}: 'driver' must be one of {', '.join(drivers.NAMES)}, not {spec['driver']!r}")
    driver = drivers.get(spec["driver"])
    if spec["seed"] is None:
        spec["seed"] = fresh_seed()
    with job_error(where):
        check_seed(spec["seed"])
    try:
        variant = Variant.parse(spec["variant"])
        deck, spec["players"], split = check_table(variant.deck(spec["deck"]), spec["players"], spec["split"])
    except (DeckError, VariantError) as error:
        raise JobError(f"{where}: {error}") from None
    # Stored as it plays (variant.py), the variant kept as its provenance.
    spec["deck"], spec["variant"] = str(deck), str(variant)
    spec["split"] = "even" if split is None else split
    spec["engine"] = check_engine(spec, spec["engine"], where)
    spec["devices"] = check_devices(spec, spec["devices"], where)
    problem = lay_on_problem(variant, driver, spec["engine"])
    if problem is not None:
        raise JobError(f"{where}: {problem}")
    for other in drivers.ALL:
        # The climber's table is checked below: every spec holds its rules.
        if other.options not in (None, "climb") and other.options in data and other is not driver:
            raise JobError(f"{where}: [{other.options}] is given but the driver is {spec['driver']!r}")
    driver.check(spec, data, where)
    # A census's budget is bounded by its deck's arrangements (Census.check),
    # which may be far more than 10**18; every other budget by MAX_COUNT.
    most_deals = None if driver.plays.deals == "every" else MAX_COUNT
    with job_error(where):
        for key, low, high in (("workers", 0, MAX_WORKERS), ("min_cards", 0, MAX_COUNT), ("deals", 0, most_deals),
                               ("chunk", 1, MAX_CHUNK), ("extend_cards", 0, MAX_COUNT)):
            whole(spec[key], f"'{key}'", low, high)
    if spec["chunk_seconds"] != 0:
        with job_error(where, " (or 0: chunks of `chunk` deals each)"):
            spec["chunk_seconds"] = seconds(spec["chunk_seconds"], "'chunk_seconds'", MAX_CHUNK_SECONDS)
        if not driver.budget.timed:
            raise JobError(f"{where}: 'chunk_seconds' sizes the chunks of sample and census jobs as they run; "
                           f"a {spec['driver']} job's chunk is one {driver.budget.unit[:-1]} walk or search: give 0")
    # Every spec holds the climber's rules, whatever its driver (a stored spec
    # has them); only the climb driver's job file may change them.
    climb = data.get("climb", {})
    if not isinstance(climb, dict):
        raise JobError(f"{where}: [climb] must be a table of the climber's parameters")
    if climb and driver.options != "climb":
        raise JobError(f"{where}: [climb] is given but the driver is {spec['driver']!r}")
    try:
        spec["climb"] = ClimbRules(**climb).as_dict()
    except (TypeError, ValueError) as error:
        raise JobError(f"{where}: [climb]: {error}") from None
    if spec["engine"].gpu:
        # Again, now that the spec holds its [climb] (a climb by anneal plays on no GPU).
        driver.check_gpu(spec, spec["engine"], where)
    return spec


def check_engine(spec, name, where="job"):
    """The engine the job `spec` plays on, resolved (engine.Choice): `name`,
    or $BEGGAR_ENGINE, else compiled. A GPU engine plays two-player jobs of
    the drivers it can."""
    from ..engine import ALL_ENGINES, Choice, EngineError
    try:
        name = Choice(name)
    except EngineError:
        if name is None:
            raise JobError(f"the environment variable BEGGAR_ENGINE must be one of {', '.join(ALL_ENGINES)}, "
                           f"not {shown_value(os.environ['BEGGAR_ENGINE'])}") from None
        raise JobError(f"{where}: 'engine' must be one of {', '.join(ALL_ENGINES)}, not {shown_value(name)}") \
            from None
    if name.gpu:
        if not drivers.of(spec).devices.gpu:
            played = [driver.name for driver in drivers.ALL if driver.devices.gpu]
            played = ", ".join(played[:-1]) + " and " + played[-1]
            raise JobError(f"{where}: the {name} engine plays {played} jobs; the "
                           f"{spec['driver']} driver runs on the compiled engine")
        if spec["players"] != 2:
            raise JobError(f"{where}: the {name} engine plays two-player deals; {spec['players']}-player "
                           "jobs run on the compiled engine")
        drivers.of(spec).check_gpu(spec, name, where)
    return name


def check_devices(spec, devices, where="job"):
    """The devices a GPU job of `spec` plays on: None (its engine's default
    device), "all", or a sorted list of device numbers. A job of another
    engine has none, whatever devices it names (--engine compiled)."""
    if devices is None:
        return None
    with job_error(where):
        devices = checks_devices(devices, "'devices'")
    if not spec["engine"].gpu:
        return None
    return devices if devices == "all" else list(devices)


def lay_on_problem(variant, driver, engine):
    """Why a job of `driver` on `engine` cannot play `variant`, or None: the
    walks, backward play and the kernels play the standard trick alone."""
    if variant.lay_on and driver.plays.deals is None:
        return (f"variant {variant} lays on, and the {driver.name} driver's walks and backward play are the "
                "standard trick's: sample, climb and census play it")
    if variant.lay_on and engine.gpu:
        return f"variant {variant} lays on, which the {engine} engine's kernels do not play: engine = \"compiled\""
    return None


def stored(spec, where="the archive"):
    """A spec as an archive keeps it, with the keys added since it was written
    given their defaults (the deals it dealt then), checked as a job file's
    are: ArchiveFault naming `where` (the file and the job) when it cannot be
    a job's spec (an archive damaged, or written by hand)."""
    from ..archive import ArchiveFault
    if not isinstance(spec, dict):
        raise ArchiveFault(f"{where}: damaged: its spec is not a JSON object")
    # What every spec has held since the first format: without them the
    # defaults would make another job of it (a fresh seed, a sample driver).
    missing = [key for key in ("name", "driver", "seed") if key not in spec]
    if missing:
        raise ArchiveFault(f"{where}: damaged: its spec has no '{missing[0]}'")
    # A job written before family extension searched no family: extend_cards 0;
    # one written before the GPU engine played on the compiled one; one
    # written before chunks were sized as a job runs has chunks of one part.
    spec = {**DEFAULTS, "extend_cards": 0, "engine": "compiled", "chunk_seconds": 0, **spec}
    try:
        # What check() does not know it leaves alone: a perturb job's start
        # loops, and the tables of other drivers (a stored spec has the
        # climber's defaults whatever its driver). Its deck is stored as it
        # plays: checked as it stands, the variant on its own.
        check({key: value for key, value in spec.items()
               if key != "start" and (key not in TABLES or key == spec.get("driver"))} | {"variant": "standard"},
              where)
        Variant.parse(spec["variant"])
    except JobError as error:
        text = str(error)
        raise ArchiveFault(f"{where}: damaged: {text[len(where) + 2:] if text.startswith(where) else text}") \
            from None
    except (TypeError, ValueError, AttributeError) as error:
        raise ArchiveFault(f"{where}: damaged: its spec cannot be read ({cut(str(error))})") from None
    # Resolved as a job file's is (check did it to a copy); a job stored
    # with an engine's older name (engine "gpu") plays on it by its name now.
    from ..engine import Choice
    spec["engine"] = Choice(spec["engine"])
    start = start_problem(spec)
    problem = drivers.of(spec).stored_problem(spec) if start is None else f"its start {start}"
    if problem is not None:
        raise ArchiveFault(f"{where}: damaged: {problem}")
    return spec


def start_problem(spec):
    """What makes the loops a stored spec starts from (`start`) none it can
    start from, or None."""
    from ..archive.readback import key_problem
    from ..decks import Deck
    driver = drivers.of(spec)
    if not driver.starts.loops:
        return None if "start" not in spec else f"holds {cut(spec['start'])}: a {driver.name} job starts from no loops"
    start = spec.get("start")
    if not isinstance(start, list) or not start:
        return f"holds {cut(start)}, not a list of the loops it starts from (one at least)"
    deck = Deck.parse(spec["deck"])
    for number, key in enumerate(start):
        # As the job was given it: one given before archive format 6 may hold the
        # empty hand of a player who is out (its drivers play it to its players' loop).
        problem = key_problem(key, deck, empty_hands=True)
        if problem is not None:
            return f"loop {number}: the key {problem}"
    if driver.starts.chunk_each and not 0 < -(-spec["deals"] // spec["chunk"]) <= len(start):
        return (f"holds {len(start)} loops, and its budget of {spec['deals']:,} {driver.budget.unit} in chunks of "
                f"{spec['chunk']:,} searches from {-(-spec['deals'] // spec['chunk']):,}")
    return None


@dataclass
class NewJob:
    """A new job's spec, checked and ready to be stored, and how it came to be."""
    spec: dict
    fresh: bool             # its seed was drawn (spec.fresh_seed), not given
    timed: bool             # its chunk was sized by time on this machine (drivers.timed_chunk)
    pace: object            # pace.Pace of its first deals, or None


def prepare(data, where="job", here=True):
    """A new job from a job file's keys `data`: checked, a GPU job's device
    checked where it plays `here`, its pace measured and its chunk sized
    where `data` gives none (docs/searching.md). Nothing is stored: a bad job
    leaves no archive behind."""
    spec = check(data, where)
    timed = False
    # No bindings, driver or device: one line, before anything is stored.
    # On a cluster its GPU workers check theirs (cluster.Cluster.for_gpu),
    # and a GPU job there is taken to play on GPUs.
    on_gpus = check_device(spec["engine"], spec["devices"]) if here else spec["engine"].on_device
    driver = drivers.of(spec)
    if on_gpus:
        # A driver whose parts are fixed (a hunt) keeps them on a GPU too.
        spec.update({key: value for key, value in GPU_DEFAULTS.items()
                     if key not in data and not (key == "chunk" and driver.budget.part)})
    measured = pace.measure(spec)
    if "chunk" not in data and driver.budget.timed and not driver.budget.part:
        if "chunk_seconds" not in data:
            spec["chunk_seconds"] = CHUNK_SECONDS
        if not on_gpus:
            # Sized by time on this deck and table, then fixed in the spec: a
            # resumed job, or one run again with its seed, plays the same parts.
            spec["chunk"] = drivers.timed_chunk(spec, PART_SECONDS if spec["chunk_seconds"] else CHUNK_SECONDS)
            timed = True
    if "chunk" not in data:
        # Smaller still where its hits would take longer to cross-check, or,
        # for a part, where they would be more than a keep writes at once.
        spec["chunk"] = (pace.chunk_for(measured, spec["chunk"], PART_SECONDS, PART_GAMES) if spec["chunk_seconds"]
                         else pace.chunk_for(measured, spec["chunk"]))
    return NewJob(spec, data.get("seed") is None, timed, measured)


def check_device(choice, devices=None):
    """Whether the engine `choice` plays on GPUs here (gpu.check: GpuFault,
    one line, where a GPU engine's bindings, driver or `devices` cannot)."""
    if not choice.gpu:
        return False
    from .. import gpu
    return gpu.check(choice, devices)


def create(archive, new):
    """Store the NewJob `new` in `archive`, with what it starts from; returns its id."""
    job_id = new_job_id(new.spec)
    drivers.of(new.spec).start(archive, new.spec)
    archive.add_job(job_id, new.spec)
    return job_id


def new_job_id(spec):
    return f"{spec['name']}-{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"
