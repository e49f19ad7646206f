"""Family searches from every published finished record, timed, in one run.

    python3 benchmarks/family_speed.py [--reference]

For each record: the states of its family, the balanced deals among them, the
longest one, and the seconds the compiled engine took (processor time, forward
play to the final state included). --reference also times the reference
engine on each, for the ratio.
"""

import argparse
import time
from importlib import resources

from beggar.backward import family
from beggar.savefile import parse


def timed(deal, engine_name):
    start = time.process_time()
    found = family(deal, engine_name=engine_name)
    return found, time.process_time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", action="store_true", help="time the reference engine too")
    args = parser.parse_args()
    text = resources.files("beggar").joinpath("data", "published-deals.json").read_text()
    games = [g for g in parse(text, "published-deals.json") if g.expected["status"] == "finished"]
    print(f"{'record':18} {'states':>9} {'balanced':>9} {'longest':>8} {'compiled s':>11}"
          + (f" {'reference s':>12} {'ratio':>6}" if args.reference else ""))
    slowest = 0.0
    for game in games:
        found, seconds = timed(game.deal, "compiled")
        slowest = max(slowest, seconds)
        line = (f"{game.name:18} {found.states:>9,} {found.balanced:>9,} {found.longest[1]:>8} "
                f"{seconds:>11.3f}")
        if args.reference:
            _, slow = timed(game.deal, "reference")
            line += f" {slow:>12.2f} {slow / seconds:>5.0f}x"
        print(line)
    print(f"slowest compiled family search: {slowest:.3f} s")


if __name__ == "__main__":
    main()
