"""What every driver reads of a job's spec: its keys and their defaults, the
bounds of its numbers, the table its deals are dealt at, and how its budget
is cut into chunks. It imports nothing of the search package, which all
builds on it.
"""

import os
import secrets
from contextlib import contextmanager

from ..checks import MAX_COUNT, seconds, whole
from ..decks import Deck
from ..errors import BadInput
from ..variant import Variant

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
    "chunk": 4_000_000,     # climb: one walk; sample and census with none given: PART_SECONDS of a core
    "chunk_seconds": 0,     # sample, census: seconds a chunk of parts takes as the job runs (units.py); 0: one part
    "extend_cards": 2800,   # a kept game this long gets a family search; 0: none
    "deck": "standard",     # a name or counts (decks.py)
    "variant": "standard",  # what each court card pays (variant.py); the deck is stored as it plays
    "players": 2,
    "split": "even",        # two players: "even", the first hand's size, or "random"
    "first": 0,             # census: the rank of the first arrangement played
    "top": 10,              # census: the longest games kept
    "basin_states": 2_000_000,  # grow, perturb: the bounds of a new loop's basin search
    "basin_seconds": 60.0,
    "engine": None,         # None: $BEGGAR_ENGINE, else compiled (engine.py); gpu for GPU jobs
    "devices": None,        # a GPU job's devices: None (the engine's default one), "all", or numbers
}

#: What a job on the GPU engine takes where its file and command line give
#: nothing (docs/gpu.md tells the measures): parts of about a second of the GPU,
#: and a threshold whose games the CPU side replays and extends as fast as it finds them.
GPU_DEFAULTS = {"chunk": 10 ** 9, "min_cards": 3500, "extend_cards": 3500}

#: Seconds a chunk takes when a job gives no chunk (its chunk_seconds): long
#: enough that keeping a chunk costs little, short enough that a stop or a
#: time limit is prompt; its parts take about PART_SECONDS of a core.
CHUNK_SECONDS = 3.0
PART_SECONDS = 0.25
MAX_CHUNK_SECONDS = 3600

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
    runs of one job file play different deals."""
    return secrets.randbelow(FRESH_SEEDS)


class JobError(BadInput, ValueError):
    """A job specification that cannot be run; the message names file and key."""


@contextmanager
def job_error(where, after=""):
    """A check's ValueError as a JobError naming `where`, with `after` added."""
    try:
        yield
    except ValueError as error:
        raise JobError(f"{where}: {error}{after}") from None


def options_table(data, name, what, known, where):
    """The job file's table [`name`] of `what` (its options, of `known`):
    JobError where it is no table, or holds an option unknown."""
    options = data.get(name, {})
    if not isinstance(options, dict):
        raise JobError(f"{where}: [{name}] must be a table of {what}")
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise JobError(f"{where}: [{name}]: unknown option '{unknown[0]}' (known: {', '.join(known)})")
    return options


def shown_value(value):
    """A value as an error names it, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def table(spec):
    """The keyword arguments of engine.sample and engine.climb for the spec's deals."""
    return {"deck": spec["deck"], "players": spec["players"],
            "split": None if spec["split"] == "even" else spec["split"], "variant": trick(spec)}


def trick(spec):
    """The trick the job's deals play under (its deck is stored as it plays): a Variant."""
    return Variant.parse(spec.get("variant", "standard")).trick


def deck_words(spec):
    """The job's deck as it plays, with the variant it was given: '40 4J 4Q 4K deck (variant aces-plain)'."""
    variant = spec.get("variant", "standard")
    return f"{Deck.parse(spec['deck'])} deck" + ("" if variant == "standard" else f" (variant {variant})")


def extends(spec):
    """Whether the spec's long games get a family search: backward play is for
    two players, under the standard trick."""
    return spec["extend_cards"] > 0 and spec["players"] == 2 and not trick(spec).lay_on


def chunks_in(spec):
    """How many chunks the budget holds (None: no budget)."""
    return -(-spec["deals"] // spec["chunk"]) if spec["deals"] else None


def chunk_deals(spec, chunk, parts=1):
    """Deals in chunk number `chunk`, or in the `parts` chunks from it on:
    the last one of a budget may be short."""
    if spec["deals"]:
        return min(parts * spec["chunk"], spec["deals"] - chunk * spec["chunk"])
    return parts * spec["chunk"]


def grouped(spec):
    """Whether the job's chunks are runs of parts sized as it runs (chunk_seconds)."""
    return bool(spec.get("chunk_seconds"))


def check_basin_bounds(spec, where):
    """The bounds of a search from a loop: basin_states and basin_seconds."""
    with job_error(where):
        whole(spec["basin_states"], "'basin_states'", 1, MAX_COUNT)
        spec["basin_seconds"] = seconds(spec["basin_seconds"], "'basin_seconds'")
