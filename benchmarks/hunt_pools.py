"""The pools a hunt's walks may start from, side by side: rounds of walks,
each from the pool of the loops known after the round before, counting the
new loops and new families each round finds (how a hunt's rate of new
families decays, or not).

    python3 benchmarks/hunt_pools.py                         # every pool, 8 rounds of 10^6 wide tries
    python3 benchmarks/hunt_pools.py --pools map,novelty --rounds 12

The pools: "elite", the loops within 5 cards of a balanced deal (or the
nearest); "map", the first loop found of each cell (family and balance);
"novelty", the first loops of the cells found in the last two rounds (the
map where none was); "rare", the first loops of the cells of the families
with fewest loops known (a quarter of the cells, 8 at least); "restart",
the loops the walks started from, every round. One walk a round (seed,
round), each told every loop known but its pool's.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from beggar import _loops, family, loops  # noqa: E402
from beggar.cycle import key_deal  # noqa: E402
from beggar.decks import Deck  # noqa: E402
from beggar.finds import known_loops  # noqa: E402
from beggar.search.drivers import aim  # noqa: E402

POOLS = ("elite", "map", "novelty", "rare", "restart")


def choose(how, known, cell, found_round, round_, total):
    first = {}
    for key in sorted(known, key=lambda key: (found_round[key], key)):
        first.setdefault(cell[key], key)
    if how == "map":
        return list(first.values())
    if how == "novelty":
        return [key for key in first.values() if found_round[key] >= round_ - 2] or list(first.values())
    if how == "rare":
        sizes = collections.Counter(name for name, _ in cell.values())
        ranked = sorted(first.values(), key=lambda key: (sizes[cell[key][0]], key))
        return ranked[:max(8, len(ranked) // 4)]
    if how == "restart":
        return [key for key in known if found_round[key] < 0]
    balance = {key: cell[key][1] for key in known}
    within = max(5, aim.need(total) - max(balance.values()))
    return [key for key in known if aim.need(total) - balance[key] <= within]


def run(how, deck, rounds, tries, seed, moves):
    known = {}
    for key in known_loops(str(deck)):
        loop = loops.of_deal(key_deal(key))
        known[loop.hex] = loop
    cell = {key: (family.of_loop(loop).name, aim.balance(loop.states)) for key, loop in known.items()}
    hashes = dict(zip(known, _loops.cycle_hashes([loop.state for loop in known.values()], deck)))
    found_round = {key: -1 for key in known}
    families = {name for name, _ in cell.values()}
    total_families = total_loops = 0
    line = []
    for round_ in range(rounds):
        pool = choose(how, known, cell, found_round, round_, deck.total)
        chosen = set(pool)
        walk = _loops.perturb([state for key in pool for state in known[key].states], deck, seed, round_, tries,
                              changes=4, reach=8, moves=moves,
                              known=[h for key, h in hashes.items() if key not in chosen][:30000])
        new_families = 0
        for hands, leader in walk.loops:
            loop = loops.of_state(tuple(tuple(hand) for hand in hands), leader)
            if loop.hex in known:
                continue
            known[loop.hex] = loop
            found_round[loop.hex] = round_
            hashes[loop.hex] = _loops.cycle_hashes([loop.state], deck)[0]
            cell[loop.hex] = (family.of_loop(loop).name, aim.balance(loop.states))
            total_loops += 1
            if cell[loop.hex][0] not in families:
                families.add(cell[loop.hex][0])
                new_families += 1
        total_families += new_families
        line.append(str(new_families))
    best = max(balance for _, balance in cell.values())
    print(f"{how:8} {' '.join(f'{n:>3}' for n in line)}   {total_families:>6} {total_loops:>9,} {best:>5}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deck", default="standard")
    parser.add_argument("--pools", default=",".join(POOLS))
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--tries", type=int, default=10 ** 6)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--moves", default="wide")
    args = parser.parse_args()
    deck = Deck.parse(args.deck)
    print(f"{deck} deck: rounds of {args.tries:,} {args.moves} tries, seed {args.seed}; new families each round, "
          "then in all, the new loops and the best balance known")
    print(f"{'pool':8} {' '.join(f'{r:>3}' for r in range(args.rounds))}   {'all':>6} {'loops':>9} {'best':>5}")
    for how in args.pools.split(","):
        run(how, deck, args.rounds, args.tries, args.seed, args.moves)


if __name__ == "__main__":
    main()
