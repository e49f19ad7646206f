"""Engine speed, measured side by side in one run.

    python3 benchmarks/engine_speed.py [--deals N] [--repeat R] [--core C]
    python3 benchmarks/engine_speed.py --yardstick ../shared/bench/yardstick.c [--rounds 5] [--seconds 4]

Prints random 26/26 deals per second on one core for the compiled engine's
generate-and-play call (sample_best, which keeps the length histogram a
search chunk keeps), the same for the batch call (play_batch on pre-dealt
rows), the reference engine, the ratio between them, and the throughput of
two worker processes against one. Then every kind of table a search job
deals (standard 2, 3 and 4 players, camicia and the half deck for two), each
with its deals/s, cards laid per second (so that decks of other sizes compare
fairly with the standard deck) and the reference. Then
what the length histogram every search chunk keeps costs: sample_best() with it
and sample() without it, the runs interleaved. Every game runs to its end with loop
detection on and no game is kept (min_cards is out of reach), so the figures
are the engine's alone. Single-core figures are the best of R runs pinned to
one core (core C, 0 by default): the other runs only add noise from the machine.

With --yardstick, only the comparison with a plain C engine of the kind the
fastest public CPU engines are: the file is built with gcc -O3 -march=native,
then it and beggar.sample (loop detection on, the histogram off, as sample()
plays) run in turn on the same core for the same seconds, round after round;
the median of the rounds' ratios is the figure quoted. Each round also plays
sample() one game at a time (set_lanes(False)), as a processor without
AVX-512 plays it.
"""

import argparse
import multiprocessing
import os
import re
import statistics
import subprocess
import tempfile
import time

import numpy as np

from beggar import Deal, Rules
from beggar import _engine as compiled
from beggar import reference
from beggar.decks import STANDARD, Deck

NEVER = 10 ** 9
SEED = 1


def pin_to_one_core(core):
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {core})


def best_rate(run, deals, repeat):
    """Best deals/s of `run(r)` over `repeat` runs of `deals` deals."""
    best = 0.0
    for r in range(repeat):
        start = time.perf_counter()
        run(r)
        best = max(best, deals / (time.perf_counter() - start))
    return best


TABLES = [("standard", 2), ("camicia", 2), ("half", 2), ("standard", 3), ("standard", 4)]


def sample_rate(deals, repeat, deck=STANDARD, players=2):
    return best_rate(lambda r: compiled.sample_best(deals, SEED, NEVER, r * deals, deck, players),
                     deals, repeat)


def histogram_rates(deals, repeat):
    """Best deals per processor second of sample_best() (the length histogram)
    and of sample() (none), the runs of the two interleaved so that the machine's
    moods fall on both alike (processor time: a cost of a few per cent drowns
    in the wall clock of a shared machine)."""
    best = {compiled.sample_best: 0.0, compiled.sample: 0.0}
    for r in range(repeat):
        for call in best:
            start = time.process_time()
            call(deals, SEED, NEVER, r * deals)
            best[call] = max(best[call], deals / (time.process_time() - start))
    return best[compiled.sample_best], best[compiled.sample]


def cards_per_deal(deck, players, deals=20000):
    """Mean cards laid per game of the table (the same deals every run)."""
    hits = compiled.sample(deals, SEED, 0, 0, deck, players)
    return sum(outcome.cards for _, outcome in hits) / len(hits)


def batch_rate(deals, repeat):
    decks = np.array([[c for hand in Deal.shuffled(2, SEED, i).hands for c in hand]
                      for i in range(min(deals, 20000))], dtype=np.uint8)
    decks = np.resize(decks, (deals, 52))
    return best_rate(lambda r: compiled.play_batch(decks, 26, Rules()), deals, repeat)


def yardstick_rounds(source, core, rounds, seconds):
    """(yardstick games/s, sample() deals/s, sample() one game at a time) of
    each round, run in turn on `core`."""
    with tempfile.TemporaryDirectory() as folder:
        program = os.path.join(folder, "yardstick")
        subprocess.run(["gcc", "-O3", "-march=native", "-o", program, source], check=True)
        pin_to_one_core(core)
        deals = 200_000
        while (taken := _timed_sample(deals, 0)) < seconds / 4:     # sized to run about `seconds`
            deals *= 2
        deals = int(deals * seconds / taken)
        figures = []
        for r in range(rounds):
            printed = subprocess.run(["taskset", "-c", str(core), program, str(seconds)], check=True,
                                     capture_output=True, text=True).stdout
            theirs = float(re.match(r"(\d+) games/s", printed).group(1))
            figures.append((theirs, deals / _timed_sample(deals, r * deals),
                            deals / _timed_sample(deals, r * deals, lanes=False)))
        return figures


def _timed_sample(deals, start, lanes=True):
    before = compiled.set_lanes(lanes)
    try:
        began = time.perf_counter()
        compiled.sample(deals, SEED, NEVER, start)
        return time.perf_counter() - began
    finally:
        compiled.set_lanes(before)


def _worker(args):
    deals, start = args
    compiled.sample(deals, SEED, NEVER, start)


def workers_rate(workers, deals):
    """Deals/s of `workers` processes, each playing `deals` deals, by the wall clock."""
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        pool.map(_worker, [(1000, 0)] * workers)            # started and warm
        start = time.perf_counter()
        pool.map(_worker, [(deals, i * deals) for i in range(workers)])
        return workers * deals / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=2_000_000, help="deals per compiled run")
    parser.add_argument("--reference-deals", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--core", type=int, default=0, help="the core the one-core figures run on (default 0)")
    parser.add_argument("--yardstick", metavar="PATH", help="only the ratio to this C engine (yardstick.c)")
    parser.add_argument("--rounds", type=int, default=5, help="--yardstick: alternating rounds (default 5)")
    parser.add_argument("--seconds", type=float, default=4, help="--yardstick: seconds a side a round")
    args = parser.parse_args()
    if args.yardstick:
        figures = yardstick_rounds(args.yardstick, args.core, args.rounds, args.seconds)
        print(f"random 26/26 deals per second on core {args.core}: the yardstick and beggar.sample in turn "
              f"(lanes {'on' if compiled.LANES_USABLE else 'not run by this processor'})")
        for theirs, ours, alone in figures:
            print(f"  yardstick {theirs:12,.0f}   sample() {ours:12,.0f}   ratio {ours / theirs:.2f}x   "
                  f"one game at a time {alone:12,.0f}   ratio {alone / theirs:.2f}x")
        for name, column in (("median ratio", 1), ("one game at a time", 2)):
            ratios = sorted(figure[column] / figure[0] for figure in figures)
            print(f"{name} {statistics.median(ratios):.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f}, {len(ratios)} rounds)")
        return

    one, two = workers_rate(1, args.deals), workers_rate(2, args.deals)
    pin_to_one_core(args.core)
    sampled = sample_rate(args.deals, args.repeat)
    batched = batch_rate(args.deals // 4, args.repeat)
    slow = best_rate(lambda r: reference.sample(args.reference_deals, SEED, NEVER), args.reference_deals, 1)
    counted, uncounted = histogram_rates(args.deals, 2 * args.repeat)
    tables = []
    for name, players in TABLES:
        deck = Deck.parse(name)
        tables.append((name, players, sample_rate(args.deals // 2, args.repeat, deck, players),
                       best_rate(lambda r: reference.sample(args.reference_deals, SEED, NEVER, 0, deck, players),
                                 args.reference_deals, 1),
                       cards_per_deal(deck, players)))

    print(f"random 26/26 deals per second, one core, loop detection on ({os.cpu_count()} cores seen)")
    print(f"  sample()      {sampled:12,.0f}")
    print(f"  play_batch()  {batched:12,.0f}")
    print(f"  reference     {slow:12,.0f}   compiled sample() / reference: {sampled / slow:,.0f}x")
    print(f"two worker processes: {two:12,.0f} deals/s, one: {one:12,.0f}   ratio {two / one:.2f}x")
    print()
    print("every table, one core, sample(), loop detection on")
    print(f"  {'deck':<9} {'players':>7} {'deals/s':>11} {'cards/deal':>10} {'M cards/s':>9} "
          f"{'reference':>9} {'compiled/ref':>12}")
    for name, players, fast, ref, cards in tables:
        print(f"  {name:<9} {players:>7} {fast:>11,.0f} {cards:>10.1f} {fast * cards / 1e6:>9.1f} "
              f"{ref:>9,.0f} {fast / ref:>11,.0f}x")
    print()
    print("the length histogram of every game (lengths.py), one core, sample(), 26/26, runs interleaved, "
          "deals per processor second")
    print(f"  with it {counted:12,.0f}   without it {uncounted:12,.0f}   "
          f"cost {100 * (1 - counted / uncounted):+.1f} % of the deals per second")


if __name__ == "__main__":
    main()
