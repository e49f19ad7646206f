"""Hill climbing against random sampling, on an equal budget of deals.

    python3 benchmarks/climb_vs_sample.py [--deals N] [--seeds S] [--patience P ...]

For each seed, random sampling plays N random 26/26 deals and each climber
configuration plays N deals (one walk, restarting after `patience` deals
without a new best). Printed side by side: the longest game found, and how
many distinct deals lasted over 2000 and over 3000 cards, per seed and in
total. Everything runs in the compiled engine, on one core.
"""

import argparse
import itertools

from beggar.climbing import ClimbRules
from beggar.engine import climb, sample_best

THRESHOLDS = (2000, 3000)


def tally(hits):
    """(games over each threshold among distinct deals)."""
    distinct = {str(deal): outcome.cards for deal, outcome in hits}
    return [sum(cards > t for cards in distinct.values()) for t in THRESHOLDS]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=2_000_000)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--patience", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--accept", nargs="+", default=["equal", "late", "anneal"])
    args = parser.parse_args()

    configs = {"sample": None}
    for accept, patience in itertools.product(args.accept, args.patience):
        configs[f"climb {accept} p={patience}"] = ClimbRules(accept=accept, patience=patience)
    totals = {name: [0, 0, 0] for name in configs}        # sum of bests, >2000, >3000
    print(f"{args.deals:,} deals per run, seeds 1-{args.seeds}; best / >2000 / >3000 cards")
    header = f"{'':24}" + "".join(f"{'seed ' + str(s):>20}" for s in range(1, args.seeds + 1))
    print(header)
    for name, rules in configs.items():
        cells = []
        for seed in range(1, args.seeds + 1):
            if rules is None:
                hits, best, _ = sample_best(args.deals, seed, min(THRESHOLDS) + 1)
            else:
                walk = climb(seed, 0, args.deals, min(THRESHOLDS) + 1, rules)
                hits, best = walk.hits, walk.best
            over = tally(hits)
            totals[name][0] += best[1].cards
            totals[name][1] += over[0]
            totals[name][2] += over[1]
            cells.append(f"{best[1].cards} / {over[0]} / {over[1]}")
        print(f"{name:24}" + "".join(f"{cell:>20}" for cell in cells), flush=True)
    print()
    print(f"{'in total':24}{'mean best':>12}{'>2000':>10}{'>3000':>10}")
    for name, (best, over2, over3) in totals.items():
        print(f"{name:24}{best / args.seeds:>12,.0f}{over2:>10}{over3:>10}")


if __name__ == "__main__":
    main()
