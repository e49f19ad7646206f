"""What each kind of walk finds: new loops, new families and new cells
(family and balance) per 10^6 tries, and the best balance among them, for
each kind of change alone, the small and the wide moves, growth from loops
cut by a few cards (the hunt's growth walks), and the pools a hunt may walk
from, side by side in one run on one core.

    python3 benchmarks/move_yield.py                       # standard deck, 10^6 tries a line
    python3 benchmarks/move_yield.py --deck camicia --tries 3000000

The pools: "map", the first loop (by key) of each cell of the loops known
(the hunt's map); "near", the loops of balance 21 and more (the
neighbourhood of Casella's loop, whose perturbation the earlier hunts had
spent); "elite" as the hunt's (within 5 cards of a balanced deal, or the
nearest); "every", every loop known. The loops known are those a hunt
starts from (finds.known_loops): a loop is new when none of them is it, a
family when none of them is of it. Every figure is reproducible from
--seed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from beggar import _loops, family, loops  # noqa: E402
from beggar.cycle import key_deal, key_hands  # noqa: E402
from beggar.decks import Deck  # noqa: E402
from beggar.finds import known_loops  # noqa: E402
from beggar.search.drivers import aim, regrow  # noqa: E402

KINDS = ["swap", "move", "court", "split", "block", "turn", "splice", "small", "wide"]


def pools(known, total):
    """{name: [Loop]} of the pools measured."""
    cells = {}
    for loop in sorted(known, key=lambda loop: loop.hex):
        cells.setdefault((family.of_loop(loop).name, aim.balance(loop.states)), loop)
    balance = {loop.hex: aim.balance(loop.states) for loop in known}
    best = max(balance.values())
    within = max(5, aim.need(total) - best)
    return {"map": list(cells.values()),
            "near": [loop for loop in known if balance[loop.hex] >= 21] or None,
            "elite": [loop for loop in known if aim.need(total) - balance[loop.hex] <= within],
            "every": list(known)}


def measure(found_states, known, families, cells):
    """(new loops, new families, new cells, best balance) of the states a walk reported."""
    new = {}
    for hands, leader in found_states:
        loop = loops.of_state(tuple(tuple(hand) for hand in hands), leader)
        if loop.hex not in known:
            new[loop.hex] = loop
    named = [(family.of_loop(loop).name, aim.balance(loop.states)) for loop in new.values()]
    return (len(new), len({name for name, _ in named} - families), len(set(named) - cells),
            max((balance for _, balance in named), default=None))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deck", default="standard")
    parser.add_argument("--tries", type=int, default=10 ** 6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--changes", type=int, default=4)
    parser.add_argument("--reach", type=int, default=8)
    parser.add_argument("--pools", default="map,near", help="the pools measured, of map, near, elite, every")
    args = parser.parse_args()
    deck = Deck.parse(args.deck)
    known_list = [loops.of_deal(key_deal(key)) for key in sorted(known_loops(str(deck)))]
    known = {loop.hex for loop in known_list}
    families = {family.of_loop(loop).name for loop in known_list}
    cells = {(family.of_loop(loop).name, aim.balance(loop.states)) for loop in known_list}
    hashes = dict(zip(known, _loops.cycle_hashes([loop.state for loop in known_list], deck)))
    print(f"{deck} deck: {len(known):,} loops known in {len(families)} families and {len(cells)} cells; "
          f"{args.tries:,} tries a line, seed {args.seed}, changes {args.changes}, reach {args.reach}")
    print(f"{'pool':6} {'walk':8} {'loops':>7} {'new loops/10^6':>15} {'new families/10^6':>18} "
          f"{'new cells/10^6':>15} {'best balance':>13} {'seconds':>8}")
    scale = 10 ** 6 / args.tries
    for pool_name, pool in pools(known_list, deck.total).items():
        if pool_name not in args.pools.split(","):
            continue
        if not pool:
            print(f"{pool_name:6} no loop of balance 21 or more")
            continue
        keys = {loop.hex for loop in pool}
        others = [hashes[key] for key in known if key not in keys]
        states = [state for loop in pool for state in loop.states]
        random.Random(args.seed).shuffle(states)
        for walk in KINDS + ["regrow"]:
            began = time.process_time()
            if walk == "regrow":
                starts = regrow.starts([key_hands(loop.hex) for loop in pool], args.seed, 0, max(16, 4 * len(pool)), 4)
                found = _loops.grow(deck, args.seed, 0, args.tries, starts=starts).loops if starts else []
            else:
                found = _loops.perturb(states, deck, args.seed, 0, args.tries, changes=args.changes,
                                       reach=args.reach, moves=walk, known=others).loops
            seconds = time.process_time() - began
            new, new_families, new_cells, best = measure(found, known, families, cells)
            print(f"{pool_name:6} {walk:8} {len(found):>7,} {new * scale:>15,.1f} {new_families * scale:>18,.1f} "
                  f"{new_cells * scale:>15,.1f} {'-' if best is None else best:>13} {seconds:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
