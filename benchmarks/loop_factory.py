"""The loop factory's engine measured: growth walks and perturbation, one run per deck.

    taskset -c 1 python3 benchmarks/loop_factory.py [--seconds 300] [--decks camicia standard]
        [--starts 4 0] [--no-perturb]

For each deck, growth walks of a fixed seed (walks 0, 1, 2 ... of `--tries`
plays each) run for `--seconds` of processor time, once for each way of
starting a walk in `--starts` (grow's start_courts: 4, the default, starts
from 4 random court cards and 12 plain; 0 starts top down from the whole
deck), then perturbation of the deck's published loops (and of the full
loops growth found) for as long.
Printed for each: walks and tries per second, the largest loop size reached
over time, distinct full loops (by canonical state, cycle.py's order) and
their rate per hour, how many of them have a balanced state on their cycle,
and the balanced deals a bounded basin search (beggar basin) finds from them.
Processor time of this process only; pin it to one core.
"""

import argparse
import time

from beggar import _loops, loops
from beggar.backward import basin
from beggar.cycle import key_deal
from beggar.decks import Deck


class Loops:
    """Distinct full loops found (by canonical state, beggar.loops), with what
    a basin search gives for each."""

    def __init__(self, known, basin_states, basin_seconds):
        self.known = {loops.of_state(*state).key for state in known}
        self.found = {}
        self.basin_states, self.basin_seconds = basin_states, basin_seconds

    def add(self, state):
        loop = loops.of_state(*state)
        if loop.key in self.known or loop.key in self.found:
            return
        found = basin(loop.deal(), self.basin_states, self.basin_seconds)
        self.found[loop.key] = (len(loop.states), loop.balanced, len(found.deals), found.stopped_by,
                                found.deals[:1])

    def report(self, seconds):
        found = self.found.values()
        print(f"  distinct full loops      {len(self.found)} ({len(self.found) / seconds * 3600:.1f} per hour)")
        print(f"  balanced state on cycle  {sum(f[1] for f in found)}")
        print(f"  balanced deals in basins {sum(f[2] for f in found)} "
              f"(basin bound {self.basin_states:,} states / {self.basin_seconds:g} s; "
              f"{sum(f[3] is not None for f in found)} searches hit it)")
        for key, (period, on_cycle, deals, stopped_by, first) in self.found.items():
            example = f"  e.g. {first[0][0]}" if first else ""
            print(f"    loop of {period} tricks: {deals} balanced deals{example}")


def run_growth(deck, seed, tries, seconds, loops, start_courts):
    start = time.process_time()
    walks = restarts = played = largest = 0
    over_time = []
    while time.process_time() - start < seconds:
        before = time.process_time()
        grown = _loops.grow(deck, seed, walks, tries, start_courts=start_courts)
        spent = time.process_time() - before
        for at, size in grown.sizes:
            if size > largest:
                largest = size
                at = before - start + spent * at / grown.tries
                if over_time and round(over_time[-1][0], 1) == round(at, 1):
                    over_time.pop()     # one size per tenth of a second: the largest
                over_time.append((at, size))
        for state in grown.loops:
            loops.add(state)
        walks += 1
        restarts += grown.restarts
        played += grown.tries
    return time.process_time() - start, walks, restarts, played, over_time


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="processor seconds per deck and method")
    parser.add_argument("--decks", nargs="+", default=["camicia", "standard"], choices=["camicia", "standard"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tries", type=int, default=2_000_000, help="plays per growth walk")
    parser.add_argument("--starts", type=int, nargs="+", default=[4], help="grow's start_courts to compare")
    parser.add_argument("--no-perturb", action="store_true", help="growth only")
    parser.add_argument("--perturb-tries", type=int, default=5_000_000, help="plays per perturbation run")
    parser.add_argument("--basin-states", type=int, default=200_000)
    parser.add_argument("--basin-seconds", type=float, default=20.0)
    args = parser.parse_args()
    for deck in args.decks:
        named = loops.published(str(Deck.parse(deck)))
        published = [(deal.hands, 0) for _, deal in named]
        grown = Loops(published, args.basin_states, args.basin_seconds)
        for start_courts in args.starts:
            print(f"{deck}: growth, seed {args.seed}, {args.tries:,} plays per walk, "
                  + (f"{start_courts} court cards to start" if start_courts else "top down")
                  + f", {args.seconds:g} s of processor time")
            found = Loops(published, args.basin_states, args.basin_seconds)
            seconds, walks, restarts, played, over_time = run_growth(deck, args.seed, args.tries, args.seconds,
                                                                     found, start_courts)
            print(f"  {walks} walks ({walks / seconds:.2f}/s), {restarts} restarts, {played:,} plays "
                  f"({played / seconds / 1e6:.2f} M/s)")
            print("  largest loop over time   " + ", ".join(f"{size} at {at:.1f} s" for at, size in over_time))
            found.report(seconds)
            grown.found.update(found.found)
        if args.no_perturb:
            continue
        print(f"{deck}: perturbation of {', '.join(name for name, _ in named)}"
              + (f" and {len(grown.found)} grown loops" if grown.found else "")
              + f", seed {args.seed}, {args.perturb_tries:,} plays per run")
        sources = published + [(key_deal(key).hands, 0) for key in grown.found]
        perturbed = Loops(sources, args.basin_states, args.basin_seconds)
        start, runs, played = time.process_time(), 0, 0
        while time.process_time() - start < args.seconds:
            found = _loops.perturb(sources, deck, args.seed, runs, args.perturb_tries)
            for state in found.loops:
                perturbed.add(state)
            runs += 1
            played += found.tries
        seconds = time.process_time() - start
        print(f"  {runs} runs, {played:,} plays ({played / seconds / 1e6:.2f} M/s)")
        perturbed.report(seconds)


if __name__ == "__main__":
    main()
