"""The hunt measured: perturbations per second on each engine, beside the
compiled engine's random deals of the same shape, and the new loops an hour
of a short hunt job on this machine.

    python3 benchmarks/hunt_speed.py [--deck standard] [--tries N] [--repeat R] [--core C]
        [--job-seconds S] [--workers W] [--job-deck DECK] [--chunk N] [--seed S]

Perturbation: walks from the deck's known loops (those a hunt job starts
from: the published ones and the shipped finds'), each of `--tries` tries,
played through walks.perturbation, the one call every perturbation goes
through (the hunt's and the perturb driver's), on each engine of ENGINES
(on a GPU engine, beside the compiled engine's random deals all the same:
the target is the compiled engine's).
A perturbation is a deal: a state of the whole deck, two hands of any
split, played to its end or its loop. So beside it, the compiled engine's
random deals of the same shape: the deck dealt to two players at a random
split (engine.sample_best, loop detection on, no game kept), and at an even
split for reference. The target: perturbations/s at least random deals/s
on the compiled engine. Single-core figures are the best of R runs pinned to
one core (core C), in wall-clock seconds (a GPU engine's time is not this
process's processor time), the perturbation and sampling runs interleaved
so that the machine's moods fall on both alike.

Then a hunt job as `beggar search search/hunt.toml` runs it (the job file's
options; a temporary archive), on `--job-deck` (the deck by default; a deck
with no known loop gets a short grow job first, whose loops it starts from)
for `--job-seconds` on `--workers` workers (parts of `--chunk`
perturbations, the job file's by default): its perturbations a second a
worker beside what its walks alone did a worker (the target: half or more:
what checking the new loops and searching the seats take is the rest), and
its new loops, an hour. New loops come in bursts on the standard deck: a
short job there says how fast it looks, not how often it finds; a small deck
such as '28 3J 1Q' shows the whole pipeline.
"""

import argparse
import os
import tempfile
import time

from beggar import engine, finds, loops
from beggar.archive import Archive
from beggar.cycle import key_hands
from beggar.decks import Deck
from beggar.errors import BadInput, Fault
from beggar.search import job as jobs
from beggar.search.drivers.walks import perturbation
from beggar.search.drivers.hunt import HuntRules, two_player_key
from beggar.search.runner import run

#: The engines perturbation is measured on: the compiled engine and the GPU
#: engines (engine.perturb plays a walk on each, with the same loops found;
#: gpu-host is the GPU kernels on this machine's cores). One that cannot run
#: here (no GPU, no OpenCL device) is said so in its row. Another engine that
#: perturbs is a name added here.
ENGINES = ("compiled", "gpu-host", "cuda", "opencl")

NEVER = 10 ** 9


def pin_to_one_core(core):
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {core})


def start_states(deck):
    """One state on each known loop of `deck`, as a hunt's walk is given them."""
    keys = sorted({two_player_key(key) for key in finds.known_loops(str(Deck.parse(deck)))})
    if not keys:
        raise SystemExit(f"hunt_speed: no known loop of the {deck} deck to perturb from (--deck standard or camicia)")
    return [(key_hands(key), 0) for key in keys]


def rates(deck, engine_name, tries, repeat, seed):
    """Best perturbations/s of `engine_name`, its own random deals/s of a
    random split, and random deals/s (random split, even split) on the
    compiled engine: each over `repeat` runs of `tries`, interleaved."""
    states = start_states(deck)
    spec = {"deck": str(Deck.parse(deck)), "seed": seed, "engine": engine_name}
    walk = HuntRules().walk()
    best = {"perturb": 0.0, "own": 0.0, "random": 0.0, "even": 0.0}
    for r in range(repeat):
        runs = (("perturb", lambda: perturbation(spec, states, r, tries, walk)),
                ("own", lambda: engine.sample_best(tries, seed, NEVER, r * tries, engine_name, 2, deck, "random")),
                ("random", lambda: engine.sample_best(tries, seed, NEVER, r * tries, "compiled", 2, deck, "random")),
                ("even", lambda: engine.sample_best(tries, seed, NEVER, r * tries, "compiled", 2, deck, None)))
        for name, call in runs:
            began = time.perf_counter()
            call()
            best[name] = max(best[name], tries / (time.perf_counter() - began))
    return best


def hunt_job(deck, seconds, workers, seed, chunk, folder):
    """A hunt job of search/hunt.toml's options on `deck`, `seconds` long on
    `workers` workers in a new archive in `folder`: (its summary, the loops
    it started from). A deck with no known loop gets a grow job first."""
    archive_path = os.path.join(folder, "hunt.sqlite")
    here = os.path.dirname(os.path.abspath(__file__))
    data = jobs.read(os.path.join(here, os.pardir, "search", "hunt.toml"))
    data.update(deck=deck, seed=seed, workers=workers)
    if chunk:
        data["chunk"] = chunk
    with Archive(archive_path) as archive:
        if not finds.known_loops(str(Deck.parse(deck))):
            grow = jobs.prepare({"driver": "grow", "deck": deck, "seed": seed, "deals": 300_000,
                                 "chunk": 300_000, "workers": 1, "grow": {"start_courts": 0}})
            run(archive, jobs.create(archive, grow), workers=1, progress=False)
        new = jobs.prepare(data)
        job_id = jobs.create(archive, new)
        summary = run(archive, job_id, time_limit=seconds, workers=workers, progress=False)
    return summary, len(new.spec["start"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deck", default="standard", help="the deck perturbed (default standard)")
    parser.add_argument("--tries", type=int, default=2_000_000, help="perturbations (and deals) a run")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each, the best kept")
    parser.add_argument("--core", type=int, default=0, help="the core the single-core runs are pinned to")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--job-seconds", type=float, default=600.0, help="how long the hunt job runs (0: none)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="the hunt job's workers")
    parser.add_argument("--job-deck", help="the hunt job's deck (default: --deck)")
    parser.add_argument("--chunk", type=int, help="the hunt job's perturbations a part (default: the job file's)")
    args = parser.parse_args()
    deck = str(Deck.parse(args.deck))
    cores = os.cpu_count() or 1
    if args.tries > 0:
        affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
        pin_to_one_core(args.core)
        print(f"{deck} deck, perturbation from its {len(start_states(deck))} known loops against random deals of "
              f"the same shape, {args.tries:,} a run, best of {args.repeat}, one core ({cores} cores seen)")
        print(f"  {'engine':<10} {'perturbations/s':>16} {'its deals/s':>12} {'ratio':>6} {'random deals/s':>15} "
              f"{'ratio':>6} {'26/26 deals/s':>14}")
        for name in ENGINES:
            try:
                best = rates(deck, name, args.tries, args.repeat, args.seed)
            except (BadInput, Fault) as error:
                print(f"  {name:<10} not here: {error}")
                continue
            print(f"  {name:<10} {best['perturb']:>16,.0f} {best['own']:>12,.0f} "
                  f"{best['perturb'] / best['own']:>5.2f}x {best['random']:>15,.0f} "
                  f"{best['perturb'] / best['random']:>5.2f}x {best['even']:>14,.0f}")
        print("  its deals/s: the engine's own random deals of a random split (a perturbation's shape); target: "
              "ratio 0.80x or more; random deals/s: the compiled engine's, the same shape; target: ratio 1.00x")
        if affinity is not None:
            os.sched_setaffinity(0, affinity)
    if args.job_seconds > 0:
        job_deck = str(Deck.parse(args.job_deck or args.deck))
        with tempfile.TemporaryDirectory() as folder:
            summary, given = hunt_job(job_deck, args.job_seconds, args.workers, args.seed, args.chunk,
                                      folder)
        hours = summary.seconds / 3600
        state = summary.payload
        walked = summary.deals / state.walk_seconds if state.walk_seconds else 0
        job = summary.deals / summary.seconds / summary.workers if summary.seconds else 0
        print(f"hunt job, {job_deck} deck, seed {args.seed}, {summary.seconds:.0f} s on "
              f"{summary.workers} worker{'s' if summary.workers != 1 else ''} from {given} loops:")
        print(f"  {summary.deals:,} perturbations: {job:,.0f}/s a worker, its walks alone {walked:,.0f}/s a worker: "
              f"{job / walked if walked else 0:.2f}x (target: 0.50x or more)")
        print(f"  {state.found} new loop{'s' if state.found != 1 else ''}: {state.found / hours:,.1f} an hour; "
              f"{len(state.known)} loops known at the end; {len(state.seats_done)} seats searched, {len(state.due)} "
              "to search; best balance " + ", ".join(
                  f"at {players}: " + ("none" if state.best(players) is None else str(state.best(players)[0]))
                  for players in state.rules.tables))


if __name__ == "__main__":
    main()
