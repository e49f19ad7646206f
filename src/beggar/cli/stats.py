"""beggar stats: the odds of long games, from a job's length histograms."""

import json
import math

from ..archive import DEFAULT_PATH, Archive
from ..reports import odds
from ..search import drivers
from ..lengths import TOP
from . import plot
from .format import number
from .options import PLOT_INSTALL, whole_in


def run_stats(args):
    if args.plot is not None:
        plot.prepare(args.plot)     # before any work: a missing matplotlib is a usage error
    with Archive(args.archive, readonly=True) as archive:
        played = odds.collect(archive, args.job, marks=args.plot is not None)
        exhaustive = odds.is_exhaustive(played)
        try:
            # A census's exact counts stand without a fit, unless one is asked for.
            tail = None if exhaustive and args.tail_from is None else odds.fit_tail(played, args.tail_from)
        except odds.OddsError:
            if not exhaustive:
                raise
            tail = None
        targets = odds.targets(archive, played, tail.start if tail is not None else 0)
        marks = odds.references(archive, played)
    rows = odds.survival(played, tail=tail)
    # A census has played every deal of its block: no prediction.
    expected = [] if exhaustive or tail is None else odds.expectations(played, tail, targets)
    if args.json:
        print(json.dumps(_finite(_as_json(played, tail, rows, expected, marks)), indent=1, allow_nan=False))
    else:
        print("\n".join(report(played, tail, rows, expected, marks)))
    if args.plot is not None:
        _plot(args.plot, played, tail, marks)
        if not args.json:
            print(f"plot written to {args.plot}")
    return 0


def _as_json(played, tail, rows, expected, marks):
    gains = odds.fit_gains(played.gains)
    return {"jobs": played.jobs, "deals": played.deals, "deals_without_histogram": played.other_deals,
            "statuses": played.statuses, "rate": played.rate,
            "mean": odds.middle(played)[0], "median": odds.middle(played)[1], "workers": played.workers,
            "interval": "Wilson score, 95 %",
            "survival": rows,
            "tail": None if tail is None else {
                "model": "P(cards >= L) = p_from * exp(-(L - from) / scale), L >= from; scale by "
                         "maximum likelihood over the histogram's bins",
                "from": tail.start, "p_from": tail.p_from, "games": tail.games, "scale": tail.scale,
                "scale_low": tail.scale_low, "scale_high": tail.scale_high},
            "exhaustive": odds.is_exhaustive(played),
            "references": [{"name": name, "cards": cards} for name, cards in marks],
            "extension": {"extend_cards": played.spec["extend_cards"], "families": len(played.gains),
                          "mean_gain": sum(played.gains) / len(played.gains) if played.gains else None,
                          "largest_gain": max(played.gains, default=None),
                          "model": "gains exponential of scale G at every length; factor(X) = 1 + (exp(k D) - 1) "
                                   "/ (s k), D = X - max(extend_cards, tail from), k = 1/s - 1/G",
                          **{f"gain_scale{end}": None if gains is None else getattr(gains, f"scale{end}")
                             for end in ("", "_low", "_high")}},
            "expected": expected}


def _finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def duration(seconds):
    if seconds is None or not math.isfinite(seconds):
        return "-"
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            # Past ten million years only the order of magnitude means anything
            # (a census of a small deck puts 8345 cards some 10^40 years away).
            count = seconds / size
            return f"{count:,.1f} {unit}" if count < 1e7 else f"{number(count)} {unit}"
    return f"{seconds:.0f} s"


def report(played, tail, rows, expected, marks=()):
    spec = played.spec
    what = (f"job {played.jobs[0]}" if len(played.jobs) == 1
            else f"{len(played.jobs)} sample jobs of 26/26 deals")
    statuses = played.statuses
    lines = [f"stats    {what}: {spec['driver']}, {spec['deck']} deck, {spec['players']} players",
             f"deals    {played.deals:,} with a length histogram"
             + (f" ({played.other_deals:,} more from chunks without one)" if played.other_deals else "")
             + f"; {statuses.get('finished', 0):,} finished, {statuses.get('loop', 0):,} loop deals",
             "lengths  mean {:.1f} cards, median {}".format(*odds.middle(played)),
             f"rate     {played.rate:,.0f} deals/s ({played.workers:g} worker{'s' if played.workers != 1 else ''}"
             " at the rate their chunks were played)"]
    if odds.is_exhaustive(played):
        lines += ["", f"{'cards':>6} {'games >= L':>12} {'share':>10}"]
        lines += [f"{row['cards']:>6} {row['games']:>12,} {row['p']:>10.3g}" for row in rows]
        return lines + ["", "counts   exact: a census plays every deal of its block once, so these are the "
                            "block's own figures and nothing is predicted from them"]
    if drivers.of(spec).plays.deals == "walked":
        lines.append("note     a climb's deals are correlated walks, each a small change of the one before, "
                     "not random deals: the odds below are those of its walks, not of random deals")
    lines += ["", f"{'cards':>6} {'games >= L':>12} {'P(cards >= L)':>14}  {'95 % interval (Wilson)':<24}"
                  f" {'fit':>10} {'fit games':>11}"]
    for row in rows:
        interval = f"{row['low']:.3g} to {row['high']:.3g}"
        fit = "" if row["fit"] is None else f"{row['fit']:10.3g} {row['fit_games']:11,.1f}"
        lines.append(f"{row['cards']:>6} {row['games']:>12,} {row['p']:>14.3g}  {interval:<24} {fit}".rstrip())
    lines += ["", f"tail     P(cards >= L) = P(cards >= {tail.start}) * exp(-(L - {tail.start}) / s) for L >= "
                  f"{tail.start}: s = {tail.scale:.1f} cards (95 %: {tail.scale_low:.1f} to {tail.scale_high:.1f}),",
              f"         fitted by maximum likelihood to the {tail.games:,} games of {tail.start}+ cards; "
              f"P(cards >= {tail.start}) = {tail.p_from:.3g}"]
    extend = spec["extend_cards"] if spec["players"] == 2 else 0
    with_extension = any("extension_deals" in row for row in expected)
    lines += ["", "targets  " + ("the published records of 26/26 standard deals (8345: one card past the longest)"
                                 if odds.is_record_table(spec) else
                                 f"round lengths below the longest known game of this table, {marks[0][0]}, "
                                 f"{marks[0][1]} cards, and one card past it" if marks else
                                 "this table has no published record and the archive keeps none of its games: "
                                 "round lengths below the longest played, and one card past it")]
    header = f"{'cards':>6} {'deals expected (95 %)':>30} {'time at this rate':>18}"
    if with_extension:
        header += f" {'with extension (95 %)':>30} {'time':>14} {'factor':>7}"
    lines.append(header)
    for row in expected:
        deals = f"{number(row['deals'])} ({number(row['deals_low'])}-{number(row['deals_high'])})"
        line = f"{row['cards']:>6} {deals:>30} {duration(row['seconds']):>18}"
        if with_extension:
            extended = (f"{number(row['extension_deals'])} ({number(row['extension_deals_low'])}-"
                        f"{number(row['extension_deals_high'])})")
            line += (f" {extended:>30} {duration(row['extension_seconds']):>14}"
                     f" {'x' + format(row['extension_factor'], '.1f'):>7}")
        lines.append(line)
    if with_extension:
        gains, model = played.gains, odds.fit_gains(played.gains)
        lines.append(f"extension: games of {extend}+ cards get a family search; {len(gains):,} searched, mean gain "
                     f"{model.scale:.0f} cards, largest {max(gains)}; 'with extension' models the gain as "
                     f"exponential of scale {model.scale:.0f} cards (95 %: {model.scale_low:.0f} to "
                     f"{model.scale_high:.0f}), alike at every length (docs/odds.md)")
    elif extend:
        lines.append(f"extension: no family searched yet (games of {extend}+ cards get one)")
    return lines


def _plot(path, played, tail, marks):
    edges, survive = zip(*odds.curve(played))      # collect's played deals: one point at least
    figure, axes = plot.pyplot().subplots(figsize=(10, 5))
    axes.step(edges, survive, where="post", color="steelblue", label=f"this archive: {played.deals:,} deals")
    top = max([edges[-1] + 500] + [cards + 300 for _, cards in marks])
    floor = 0.5 / played.deals
    if tail is not None:
        xs = list(range(tail.start, top + 1, 50))
        axes.plot(xs, [tail.p(x) for x in xs], color="darkorange", linestyle="--",
                  label=f"fit: exp(-(L - {tail.start}) / {tail.scale:.0f}) beyond {tail.start}")
    finds = sorted(played.finds)
    if finds:
        axes.plot(finds, [tail.p(c) if tail is not None and c >= tail.start else 1.0 / played.deals for c in finds],
                  "|", color="black", markersize=12, label=f"games kept, as played ({sum(played.finds.values())})")
    if played.extended:
        # Found by backward play from a kept game, not drawn from the deals: no point of the curve.
        axes.plot(sorted(played.extended), [floor] * len(played.extended), "x", color="purple", markersize=6,
                  label=f"found by family extension, no sample of the curve ({sum(played.extended.values())})")
    longest = max((cards for _, cards in marks), default=None)
    for number, (name, cards) in enumerate(marks):
        axes.axvline(cards, color="red" if cards == longest else "grey", linewidth=1 if cards == longest else 0.6,
                     alpha=0.8)
        axes.annotate(f"{name} ({cards})", (cards, 1), xytext=(2, -4 - 9 * (number % 6)),
                      textcoords="offset points", fontsize=6, rotation=0, color="dimgrey", va="top")
    # A probability, up to 2: left to itself, the log scale of a steep fit ends decades above 1.
    axes.set(yscale="log", ylim=(floor / 2, 2), xlabel="cards L", ylabel="P(cards >= L)",
             title=f"survival of game lengths, {', '.join(played.jobs)[:80]}")
    axes.legend(loc="center right", fontsize="small")
    plot.save(figure, path)


def add(commands):
    stats = commands.add_parser(
        "stats", help="the odds of long games, from a job's length histograms",
        description="How rare games of each length are, from every game a job played (each chunk "
                    "keeps a histogram of the lengths): the survival table P(cards >= L) with 95 % "
                    "Wilson intervals, an exponential tail fitted by maximum likelihood, and the deals "
                    "and time expected, at the job's rate, to see a game of 5000, 6000, 7000 and 8345 "
                    "cards, plainly and with family extension. With no JOB, every sample job of 26/26 "
                    "deals in the archive together.")
    stats.add_argument("job", nargs="?", metavar="JOB", help="a job of the archive (default: every sample job)")
    stats.add_argument("--archive", default=DEFAULT_PATH, metavar="PATH", help=f"the archive (default {DEFAULT_PATH})")
    stats.add_argument("--tail-from", type=whole_in(1, TOP), metavar="L",
                       help=f"fit the tail to the games of L cards or more (default {odds.TAIL_FROM} where "
                            f"{odds.TAIL_GAMES} games reach it, else where the job's longest {odds.TAIL_GAMES} "
                            "games begin)")
    stats.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    stats.add_argument("--plot", metavar="PNG", help="draw the survival curve on a log scale with the fit, the "
                       "games kept and the records of the job's table (needs matplotlib: " + PLOT_INSTALL + ")")
    stats.set_defaults(run=run_stats)
