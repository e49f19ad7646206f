"""The published record deals shipped with the package, and a check that plays them.

`python3 -m beggar.published` plays every one on both engines and prints a table.
"""

import json
import sys
from importlib import resources

from .deal import Deal
from .engine import ENGINES, play


def records():
    """The published deals: dicts with name, year, p1, p2, status, cards, tricks, source."""
    return json.loads(resources.files(__package__).joinpath("data", "published-deals.json").read_text())


def expected_figures(record):
    """What a record's outcome must show, in the form of outcome_figures()."""
    loop = record["status"] == "loop"
    return (record["status"], record["cards"], record["tricks"],
            (record["loop_entry"]["tricks"], record["loop_entry"]["cards"]) if loop else None,
            (record["loop_period"]["tricks"], record["loop_period"]["cards"]) if loop else None)


def outcome_figures(outcome):
    return outcome.status, outcome.cards, outcome.tricks, outcome.loop_entry, outcome.loop_period


def main():
    failures = 0
    print(f"{'deal':20} {'year':>4} {'published':>12} " + " ".join(f"{e:>12}" for e in ENGINES))
    for record in records():
        deal = Deal.parse(f"{record['p1']}/{record['p2']}", deck="standard")
        expected = expected_figures(record)
        cells = []
        for engine in ENGINES:
            got = outcome_figures(play(deal, engine=engine))
            cells.append(f"{got[1]}/{got[2]} " + ("OK" if got == expected else "MISMATCH"))
            failures += got != expected
        print(f"{record['name']:20} {record['year']:>4} {record['cards']:>7}/{record['tricks']:<4} "
              + " ".join(f"{c:>12}" for c in cells))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
