"""What a loop family should be, measured, and how many families the hunt's
walks reach.

    python3 benchmarks/families.py                       # the definitions, on the loops shipped
    python3 benchmarks/families.py --graph-tries 20000   # and the graph of single changes
    python3 benchmarks/families.py --hunt /tmp/hunt.sqlite   # a hunt's families against its perturbations

The definitions, on the standard deck's loops known (finds.known_loops):
how many groups each makes and how it groups the loops with balanced
deals (period 62, balance 22): by (period, balance); by the cycle's trick
sequence up to rotation over its turn (a "kind"); by the bag of the turn's
tricks (family.py, the family); by the graph whose edges are single
changes (one change of a state on one loop's cycle that falls into the
other: each loop's own walk of --graph-tries tries of one change each),
its connected parts.

A hunt's families: for each family of the hunt's loops, the first part that
found it; the curve of families found against perturbations (a species-
accumulation curve), and Chao1's estimate of the families its walks reach
(from the families seen in one round only and in two).
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from beggar import _loops, family, loops  # noqa: E402
from beggar.archive import Archive  # noqa: E402
from beggar.cycle import key_deal  # noqa: E402
from beggar.decks import Deck  # noqa: E402
from beggar.finds import known_loops  # noqa: E402
from beggar.search.drivers import aim  # noqa: E402


def kind(loop):
    """The cycle's trick sequence over its turn, up to rotation."""
    played = family.turn(family.tricks(list(loop.states)))
    return min(tuple(played[i:] + played[:i]) for i in range(len(played)))


def graph_parts(known, deck, tries):
    """The connected parts of the graph of single changes over `known`
    (Loop by key): {key: part number}."""
    parent = {key: key for key in known}

    def root(key):
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for key, loop in known.items():
        walk = _loops.perturb(list(loop.states), deck, 1, 0, tries, changes=1, reach=8, moves="small")
        for hands, leader in walk.loops:
            other = loops.of_state(tuple(tuple(hand) for hand in hands), leader).hex
            if other in parent:
                parent[root(other)] = root(key)
    return {key: root(key) for key in known}


def definitions(deck, graph_tries):
    known = {key: loops.of_deal(key_deal(key)) for key in sorted(known_loops(str(deck)))}
    balanced = [key for key, loop in known.items() if loop.period[0] == 62 and aim.balance(loop.states) == 22]
    ways = {"period and balance": lambda loop: (loop.period[0], aim.balance(loop.states)),
            "trick sequence (kind)": kind,
            "bag of tricks (family)": lambda loop: family.of_loop(loop).name}
    groups = {name: {key: way(loop) for key, loop in known.items()} for name, way in ways.items()}
    if graph_tries:
        groups["single-change graph"] = graph_parts(known, deck, graph_tries)
    print(f"{deck} deck: {len(known):,} loops known, {len(balanced)} of them of period 62 and balance 22")
    print(f"{'grouped by':24} {'groups':>7} {'largest':>8} {'of one loop':>12} {'groups of the 4 balanced':>25}")
    for name, of in groups.items():
        sizes = collections.Counter(of.values())
        print(f"{name:24} {len(sizes):>7,} {max(sizes.values()):>8,} {sum(1 for n in sizes.values() if n == 1):>12,} "
              f"{len({of[key] for key in balanced}):>25}")


def hunt_curve(path):
    with Archive(path, readonly=True) as archive:
        job_id = archive.last_job()
        spec = archive.job(job_id)["spec"] if isinstance(archive.job(job_id), dict) else None
        first = {}
        rounds = collections.defaultdict(set)
        chunk = None
        for number, stats in archive.chunk_records(job_id):
            record = stats["hunt"]
            for entry in record["loops"]:
                key, part = entry[0], entry[1]
                name = entry[5] if len(entry) == 6 else family.of_loop(loops.of_deal(key_deal(key))).name
                first[name] = min(first.get(name, part), part)
                rounds[name].add(record["round"])
            chunk = chunk or (spec or {}).get("chunk")
    part_tries = chunk or 65536
    given = {family.of_loop(loops.of_deal(key_deal(key))).name for key in known_loops("standard")}
    new = sorted(part for name, part in first.items() if name not in given)
    print(f"{path}: {len(first):,} families met, {len(new):,} new; families found against perturbations:")
    marks = sorted({int(len(new) * q) for q in (0.1, 0.25, 0.5, 0.75, 1.0)} - {0})
    for count in marks:
        print(f"  {count:>5,} families by {(new[count - 1] + 1) * part_tries:>14,} perturbations")
    seen = collections.Counter(len(rounds[name]) for name in first if name not in given)
    once, twice = seen.get(1, 0), seen.get(2, 0)
    chao = len(new) + (once * once / (2 * twice) if twice else once * (once - 1) / 2)
    print(f"  seen in one round only: {once}, in two: {twice}; Chao1: about {chao:,.0f} families within reach")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deck", default="standard")
    parser.add_argument("--graph-tries", type=int, default=0, help="tries of each loop's walk of single changes")
    parser.add_argument("--hunt", help="an archive whose last job is a hunt")
    args = parser.parse_args()
    if args.hunt:
        hunt_curve(args.hunt)
    else:
        definitions(Deck.parse(args.deck), args.graph_tries)


if __name__ == "__main__":
    main()
