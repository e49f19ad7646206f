"""Backward play with elimination: what each guide reaches within a bound.

For published loops at tables of 3 and 4, the deals that never end found by
a search bounded in states, for each guide (states.GUIDES), side by side,
with the compiled engine. Run: python benchmarks/elimination_guides.py
"""

from beggar import elimination, loops
from beggar.states import GUIDES

CASES = [("Zanotto 2017", 3, (10_000, 30_000)), ("Zanotto 2017", 4, (100_000, 300_000)),
         ("Casella 2024", 4, (100_000, 300_000))]


def main():
    published = dict(loops.published())
    print(f"{'loop, table':<18} {'states':>9}  " + "  ".join(f"{guide:>9}" for guide in GUIDES))
    for name, players, bounds in CASES:
        for bound in bounds:
            found = [elimination.search(published[name], players, guide, bound, 600) for guide in GUIDES]
            print(f"{name + ', ' + str(players):<18} {bound:>9,}  "
                  + "  ".join(f"{len(f.deals):>9}" for f in found))


if __name__ == "__main__":
    main()
