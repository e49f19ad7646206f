"""Family extension's factor, counted from a job against the model `beggar stats` uses.

    python3 benchmarks/extension_factor.py ARCHIVE [--job ID] [--targets X ...]

A sample job whose games of extend_cards and more all got a family search
(min_cards = extend_cards) holds, for each family, the game as played (c
cards) and its longest balanced member (c + g). This script prints the gains
by the length of the game they were found from (does the gain depend on it?),
their mean and median (an exponential's median is ln 2 times its mean), and
for each target X the factor by which extension multiplies the games reaching
X, counted (the families whose longest member reached X over the games that
reached X as played), against the model's F(X) (reports/odds.py:
extension_factor, gains exponential of their mean at every length) with its
95 % range, and against the factor the gains as they came gave before (the
mean over g of P(cards >= X - g) of the fit, over P(cards >= X)).
"""

import argparse

from beggar.archive import Archive
from beggar.reports import odds

#: The lengths of the games the gains are told by.
BINS = (2400, 2600, 2800, 3000, 3200, 3500, 4000, 10 ** 9)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive")
    parser.add_argument("--job", help="the job (default: every sample job of 26/26 deals, as beggar stats)")
    parser.add_argument("--targets", type=int, nargs="+", default=[2800, 3000, 3200, 3500, 3800, 5000, 8345])
    args = parser.parse_args()
    with Archive(args.archive, readonly=True) as archive:
        played = odds.collect(archive, args.job)
    tail = odds.fit_tail(played)
    extend = played.spec["extend_cards"]
    gains = odds.fit_gains(played.gains)
    if gains is None:
        raise SystemExit(f"{args.archive}: no family searched")
    families = played.families
    print(f"{len(families):,} families of games of {extend}+ cards; tail s = {tail.scale:.1f} cards "
          f"(95 %: {tail.scale_low:.1f} to {tail.scale_high:.1f}); gains: mean {gains.scale:.1f} "
          f"(95 %: {gains.scale_low:.1f} to {gains.scale_high:.1f}), median "
          f"{sorted(played.gains)[len(played.gains) // 2]}, largest {max(played.gains)}")
    print(f"\n{'game cards':>12} {'families':>9} {'mean gain':>10} {'median':>7} {'no gain':>8}")
    for low, high in zip(BINS, BINS[1:]):
        found = sorted(gain for cards, gain in families if low <= cards < high)
        if found:
            span = f"{low}-{high}" if high < 10 ** 9 else f"{low}+"
            print(f"{span:>12} {len(found):>9,} {sum(found) / len(found):>10.0f} {found[len(found) // 2]:>7} "
                  f"{sum(gain == 0 for gain in found) / len(found):>8.1%}")
    print(f"\n{'cards':>6} {'counted (families / games)':>28} {'model F(X) (95 %)':>20} {'as before':>10}")
    for cards in args.targets:
        reached = sum(c + g >= cards for c, g in families)
        played_to = sum(c >= cards for c, _ in families)
        counted = f"{reached / played_to:.1f} ({reached:,} / {played_to:,})" if played_to else "-"
        ends = [odds.extension_factor(tail, g, extend, cards, s)
                for s in (tail.scale_low, tail.scale_high) for g in (gains.scale_low, gains.scale_high)]
        model = f"{odds.extension_factor(tail, gains.scale, extend, cards):.1f} ({min(ends):.1f}-{max(ends):.1f})"
        before = sum(tail.p(max(extend, cards - g, tail.start)) for g in played.gains) / len(played.gains)
        print(f"{cards:>6} {counted:>28} {model:>20} {before / tail.p(cards):>10.1f}")


if __name__ == "__main__":
    main()
