"""Census speed against random sampling of the same deck, side by side in one run.

    python3 benchmarks/census_speed.py [--deck half] [--deals N] [--repeat R]

Prints deals per second on one core for the census path (next arrangement,
deal, play, histograms; engine.census) and for random sampling of the same deck
and table (engine.sample, nothing kept), the ratio between them, and what the
whole census of the deck would take on this machine's cores at that rate.
Best of R runs, pinned to one core.
"""

import argparse
import os

from beggar import _engine as compiled
from beggar import census as enumeration
from beggar.decks import Deck
from engine_speed import best_rate, pin_to_one_core

NEVER = 10 ** 9


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deck", default="half")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=4_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    deck = Deck.parse(args.deck)
    whole = enumeration.count(deck)
    pin_to_one_core(0)
    # Blocks spread over the ranks: the first ones, all plain cards on top, are
    # not typical deals.
    census = best_rate(lambda r: compiled.census(whole * (r + 1) // (args.repeat + 1), args.deals, deck,
                                                 args.players, None, 10), args.deals, args.repeat)
    sample = best_rate(lambda r: compiled.sample(args.deals, 1, NEVER, r * args.deals, deck, args.players),
                       args.deals, args.repeat)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = os.cpu_count() or cores
    print(f"{deck} deck, {args.players} players: {whole:,} deals in all; one core, best of {args.repeat}")
    print(f"  census (next arrangement + play)  {census:12,.0f} deals/s")
    print(f"  random sampling (shuffle + play)  {sample:12,.0f} deals/s   census / sampling {census / sample:.2f}x")
    print(f"  the whole census at this rate on {cores} cores: {whole / census / cores / 60:,.1f} minutes")


if __name__ == "__main__":
    main()
