"""Family extension at several thresholds, on one budget of deals, side by side.

    taskset -c 0 python3 benchmarks/extension_yield.py [--deals N] [--thresholds T ...] [--targets C ...]

A job keeps the games of at least `min_cards` cards (each replayed by the
reference engine) and gives those of at least `extend_cards` a family search,
keeping the family's longest balanced deal (replayed too). This script plays
N random 26/26 deals once, with the compiled engine, keeping every game of at
least the lowest threshold; then, for each threshold T (min_cards =
extend_cards = T, as the job files set them), it counts what a job at T would
have done with the same deals: the family searches run, the processor time
they and the replays took, the mean and the largest gain (cards the family's
longest balanced deal lasts over the game it was found from), the best game
reached, and games of at least `--targets` cards reached (distinct deals,
played or found by extension) per processor hour, sampling included. Every
family search is run and timed once, which is what a job at any threshold
at or below the game's length would have spent on it. Processor time, on
whatever core it runs; pin it (taskset) so that other work does not share
its cache.
"""

import argparse
import time

from beggar import engine
from beggar.backward import family
from beggar.search.crosscheck import EXTENSION_SECONDS, EXTENSION_STATES

SEED = 1
BATCH = 10_000_000


def cpu():
    return time.process_time()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=1_200_000_000, help="random deals played (default 1.2e9)")
    parser.add_argument("--thresholds", type=int, nargs="+", default=[2400, 2800, 3200, 3600, 4000])
    parser.add_argument("--targets", type=int, nargs="+", default=[3600, 4000],
                        help="count games of at least these many cards")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    low = min(args.thresholds)

    start = cpu()
    hits = []
    for first in range(0, args.deals, BATCH):
        hits += engine.sample(min(BATCH, args.deals - first), args.seed, low, first)
    sampling = cpu() - start

    games = []      # (cards, replay s, family s or None, longest member's cards, member)
    for deal, outcome in hits:
        start = cpu()
        engine.play(deal, engine="reference")
        replay = cpu() - start
        if outcome.status != "finished":
            games.append((outcome.cards, replay, None, outcome.cards, None))
            continue
        start = cpu()
        longest = family(deal, EXTENSION_STATES, EXTENSION_SECONDS).longest
        member, cards = None, outcome.cards
        if longest is not None and longest[0] != deal:
            member, cards = longest[0], longest[1]
            engine.play(member)
            engine.play(member, engine="reference")
        games.append((outcome.cards, replay, cpu() - start, cards, member))

    print(f"{args.deals:,} random 26/26 deals (seed {args.seed}), sampled in {sampling:,.0f} processor s; "
          f"{len(hits):,} games of {low}+ cards")
    print("min_cards = extend_cards = T; games of C+ cards counted over distinct deals, played or found "
          "by extension, per processor hour (sampling, replays and family searches)")
    print(f"{'T':>6} {'kept':>6} {'families':>8} {'family s':>9} {'mean gain':>9} {'max gain':>8} "
          f"{'best':>6} {'CPU h':>7}" + "".join(f" {f'{c}+':>6} {f'{c}+/CPU h':>12}" for c in args.targets))
    rates = {c: [] for c in args.targets}
    for threshold in [None] + sorted(args.thresholds):
        # None: no extension at all, games of the highest threshold kept.
        keep = max(args.thresholds) if threshold is None else threshold
        kept = [g for g in games if g[0] >= keep]
        searched = [] if threshold is None else [g for g in kept if g[2] is not None]
        seconds = sampling + sum(g[1] for g in kept) + sum(g[2] for g in searched)
        gains = [g[3] - g[0] for g in searched]
        reached = {str(g[4]): g[3] for g in searched if g[4] is not None}
        best = max([g[0] for g in games] + list(reached.values()), default=0)
        hours = seconds / 3600
        line = (f"{'none' if threshold is None else threshold:>6} {len(kept):>6} {len(searched):>8} "
                f"{sum(g[2] for g in searched):>9.1f} {(sum(gains) / len(gains) if gains else 0):>9.0f} "
                f"{max(gains, default=0):>8} {best:>6} {hours:>7.3f}")
        for c in args.targets:
            over = sum(1 for g in games if g[0] >= c) + sum(1 for cards in reached.values() if cards >= c)
            rates[c].append((threshold, over / hours))
            line += f" {over:>6} {over / hours:>12.1f}"
        print(line)
    for c in args.targets:
        threshold, rate = max(rates[c], key=lambda row: row[1])
        print(f"most games of {c}+ cards per processor hour: "
              f"{'no extension' if threshold is None else f'T = {threshold}'} ({rate:.1f})")

if __name__ == "__main__":
    main()
