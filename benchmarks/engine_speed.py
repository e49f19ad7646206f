"""Random 26/26 deals per second on one core: the compiled engine's
generate-and-play call (sample) against the reference engine, in one run.

    python3 benchmarks/engine_speed.py [--deals N] [--reference-deals N] [--repeat R]

Every game runs to its end with loop detection on; no game is kept
(min_cards is out of reach), so the figure is the engine's alone. The best of
R repeats is reported, as the other runs only add noise from the machine.
"""

import argparse
import os
import time

from beggar import _engine as compiled
from beggar import reference

NEVER = 10 ** 9


def rate(engine, deals, repeat, seed=1):
    """Best deals/s over `repeat` runs of `deals` deals."""
    best = 0.0
    for r in range(repeat):
        start = time.perf_counter()
        engine.sample(deals, seed=seed, min_cards=NEVER, start=r * deals)
        best = max(best, deals / (time.perf_counter() - start))
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=2_000_000)
    parser.add_argument("--reference-deals", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})   # one core
    fast = rate(compiled, args.deals, args.repeat)
    slow = rate(reference, args.reference_deals, 1)
    print(f"compiled sample():  {fast:12,.0f} deals/s  ({args.deals:,} deals, best of {args.repeat})")
    print(f"reference sample(): {slow:12,.0f} deals/s  ({args.reference_deals:,} deals)")
    print(f"ratio compiled / reference: {fast / slow:,.0f}x")


if __name__ == "__main__":
    main()
