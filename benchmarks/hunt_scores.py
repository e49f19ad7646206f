"""What a loop's cycle says about its seats, and what steering a hunt's walk
buys: the measurements behind an aimed hunt (issue 36).

    python3 benchmarks/hunt_scores.py PART [--deck standard] [--seed 1] [--quick] [--json FILE] [options]

PART is one of:

two-seats  A sample of distinct two-player loops: the deck's known ones
           (finds.known_loops, each reduced to its two players) and the new
           ones of seeded perturbation walks from them (--walk-tries tries at
           each width of --widths, unsteered, and as many steered). For each,
           its cycle's score S2, the largest smaller hand over the states of
           its cycle (free once the cycle is known), and its basin's best
           balance B2, the largest smaller hand of any state of its basin,
           searched to the end (elimination.from_loop at a table of 2: the
           states backward.basin visits, and its best state), with its states,
           balanced deals and processor seconds. Prints B2 by S2 and G, the
           largest B2 - S2: the safe rule "seat at 2 players iff S2 >= half - G".
tables     A sample of those loops (--sample, spread over (period, S2) and
           their basins' best balance), each searched back at tables of 3 and 4
           with elimination (guide "smallest", --bound states; --big-bound for
           the first --big of them, to see whether the bound changes the
           answer): the best balance reached (the largest smallest hand of a
           state with every player in) and the deals found, against each
           feature of the cycle (and of its basin, which costs little): for
           each, the table of its values and the safe bound "F below X never
           reached a deal in N loops", with what that bound leaves unseated.
walks      Steered against unsteered walks from the known loops, at each width
           of --widths: --walk-tries tries each steered walk, --unsteered-tries
           each unsteered one. Steered: rounds of 16,384 tries (perturb's own
           round: its pool fixed within it) whose pool holds only the elite,
           the loops whose S2 is at least half - --margin (or, with --elite
           top, the best by S2 up to the pool's 4,096 states), best S2 first
           and the newest first within a score (the pool takes the first
           4,096 states), each new elite loop joining it when its round ends.
           Unsteered: walks of --chunk tries (the walk adding its own finds
           between its rounds, as a hunt's does) from every loop known, in an
           order drawn from the seed. Each new loop's basin is searched (of
           S2 >= --basin-from only, where given): new loops, those of S2 at
           least half - 5, and new loops with balanced deals (the prize; each
           listed with its deals and compared with the known ones by
           canonical key), per 10^7 tries and per core-minute. --resume FILE
           goes on with the steered walks of an earlier run to --walk-tries
           (the same loops as one run that long: a round cut short is played
           again whole, and try t of a round is the same whatever its length).
           The walks of one seed at two widths draw the same pool states for
           the same tries: they are not independent samples (with seed 1,
           widths 3,6, 4,8 and 5,10 found the same 52 loops of S2 21); compare
           widths over several seeds.

Times are this process's processor seconds (time.process_time), so that a
busy machine (this one has 2 cores shared by several users) changes them
little; every count is reproducible from --seed. --quick runs a small
version of a part in well under a minute (tables --quick makes its own small
sample). --json FILE writes the raw results (every loop's features, basin and
seats, every walk's finds).

The measurements of issue 36 were made with (about an hour of a core in all,
each run under `nice -n 19`; M a folder for the JSON):

    python3 benchmarks/hunt_scores.py walks --widths 4,8 --json M/walks-standard-4-8.json   # and 3,6, 5,10
    python3 benchmarks/hunt_scores.py walks --modes steered --widths 4,8 --walk-tries 500000000 \
        --resume M/walks-standard-4-8.json --json M/steered-4-8-5e8.json                    # and 5,10; 3,6 to 3e8
    python3 benchmarks/hunt_scores.py walks --modes steered --widths 4,8 --seed 2 --walk-tries 250000000 \
        --json M/steered-4-8-seed2.json                                  # 3,6 with seed 3, 5,10 with seed 4
    python3 benchmarks/hunt_scores.py walks --modes steered --elite top --widths 4,8 --walk-tries 10000000 \
        --basin-from 14 --json M/steered-top-4-8.json
    python3 benchmarks/hunt_scores.py two-seats --also M/walks-standard-3-6.json M/walks-standard-4-8.json \
        M/walks-standard-5-10.json M/steered-4-8-5e8.json --json M/two-seats-standard.json
    python3 benchmarks/hunt_scores.py tables --loops M/two-seats-standard.json --json M/tables-standard.json
    python3 benchmarks/hunt_scores.py tables --loops M/two-seats-standard.json --sample 100 --big 100 \
        --json M/tables-standard-big.json
    python3 benchmarks/hunt_scores.py walks --deck camicia --modes steered --widths 4,8 --walk-tries 100000000
    python3 benchmarks/hunt_scores.py two-seats --deck camicia --json M/two-seats-camicia.json
    python3 benchmarks/hunt_scores.py tables --deck camicia --loops M/two-seats-camicia.json --bound 2000000
    python3 benchmarks/hunt_scores.py walks --deck '28 3J 1Q' --walk-tries 10000000
"""

import argparse
import json
import random
import statistics
import sys
import time
from collections import defaultdict

from beggar import _loops, backward, elimination, finds, loops
from beggar.cycle import key_hands
from beggar.decks import Deck

#: States a perturbation walk's pool holds, and tries in one of its rounds
#: (beggar/_loops.pyx: POOL, ROUND).
POOL = 4096
ROUND = 16384

#: The widths (changes, reach) walked by default.
WIDTHS = ((3, 6), (4, 8), (5, 10))

#: A bound on processor seconds no search here reaches: searches are bounded by states alone,
#: so that what they find does not depend on the machine's speed.
SECONDS = 3600.0

#: Tries of the growth walk that finds a deck's first loops where none is known.
GROW_TRIES = 300_000

#: The k of the features "states whose smaller hand is at most k".
AT_MOST = (2, 4, 6, 8, 10)


# ------------------------------------------------------------------ loops and their features

def two_player_loop(loop):
    """The two-player loop of a Loop's players (its seats empty on its cycle
    left out), or None for a loop of three or four players."""
    cycle = loop.states
    if len(cycle[0][0]) != 2:
        return None
    return loop if loop.players == 2 else loops.of_state(*cycle[0])


def known(deck):
    """{hex: (Loop, name)} of the deck's known two-player loops: the published
    ones and the shipped finds' (a 3- or 4-player find by the loop its two
    players fall into)."""
    found = {}
    # A published loop by its published name, whatever finds fall into it too.
    for key, name in sorted(finds.known_loops(deck).items(), key=lambda item: (not item[1].startswith("published"),
                                                                                 item[0])):
        loop = two_player_loop(loops.of_state(key_hands(key), 0))
        if loop is not None:
            found.setdefault(loop.hex, (loop, name))
    if not found:
        # A deck nobody published a loop of (a small one): the loops of a short
        # growth walk from the top down, as hunt_speed.py's job starts from.
        growth = _loops.grow(deck, 1, 0, GROW_TRIES, start_courts=0)
        for number, state in enumerate(growth.loops):
            loop = loops.of_state(*state)
            found.setdefault(loop.hex, (loop, f"growth walk 0 of seed 1, loop {number + 1}"))
    return found


def features(loop):
    """What a two-player loop's cycle says, free once the cycle is known."""
    smaller = [min(len(hands[0]), len(hands[1])) for hands, _ in loop.states]
    total = sum(len(hand) for hand in loop.states[0][0])
    figures = {"period": loop.period[0], "period_cards": loop.period[1], "S2": max(smaller),
               "smallest": min(smaller), "largest": total - min(smaller), "spread": max(smaller) - min(smaller),
               "mean": round(statistics.fmean(smaller), 2),
               "near": sum(1 for size in smaller if size >= max(smaller) - 2)}
    for k in AT_MOST:
        figures[f"at_most_{k}"] = sum(1 for size in smaller if size <= k)
    return figures


def score(loop):
    """A loop's two-seat score S2: the largest smaller hand on its cycle."""
    return max(min(len(hands[0]), len(hands[1])) for hands, _ in loop.states)


def searched(cycle, players, total, bound):
    """A backward search from a loop's cycle at a table of `players`
    (elimination.from_loop, guide "smallest", bounded by `bound` states):
    {best, deals, states, stopped_by, seconds}; best is the largest smallest
    hand of a state with every player in (a deal found counts as its own
    sizes), None where none was reached."""
    began = time.process_time()
    table = elimination.from_loop(cycle, players, total, "smallest", bound, SECONDS)
    seconds = time.process_time() - began
    best = table.deals[0][0] if table.deals else table.best
    return {"best": None if best is None else min(map(len, best.hands)), "deals": len(table.deals),
            "first_deal": str(table.deals[0][0]) if table.deals else None, "states": table.states,
            "stopped_by": table.stopped_by, "seconds": round(seconds, 4),
            "deal_list": [str(deal) for deal, _, _ in table.deals] if players == 2 else None}


def basin2(loop, total, bound):
    """A loop's two-seat basin, searched to the end (within `bound` states):
    searched() at a table of 2, whose best is B2."""
    return searched(loop.states, 2, total, bound)


def same_as_basin(record, bound):
    """Whether backward.basin, from the loop's canonical deal, visits as many
    states and finds the same balanced deals as basin2 did (its record)."""
    found = backward.basin(loops.of_state(key_hands(record["key"]), 0).deal(), bound, SECONDS)
    return (found.states == record["basin"]["states"] and found.stopped_by == record["basin"]["stopped_by"]
            and sorted(str(deal) for deal, _ in found.deals) == sorted(record["basin"]["deal_list"]))


# ------------------------------------------------------------------ walks

class Walker:
    """The loops a set of walks met: the known ones and the new, each once,
    with its features, S2 and (where searched) its basin."""

    def __init__(self, deck, start, basin_bound, basin_from=0):
        self.deck = deck
        self.total = Deck.parse(deck).total
        self.half = self.total // 2
        self.start = start                                      # {hex: (Loop, name)}
        self.loops = {key: loop for key, (loop, _) in start.items()}
        self.scores = {key: score(loop) for key, loop in self.loops.items()}
        self.new = {}                                           # hex: record
        self.basin_bound = basin_bound
        self.basin_from = basin_from                            # basins of the new loops of S2 >= this only
        self.seconds = {"walk": 0.0, "score": 0.0, "basin": 0.0}

    def restore(self, experiment):
        """Take the loops an earlier run of a walk found (its record), and its times."""
        for record in experiment["loops"]:
            loop = loops.of_state(key_hands(record["key"]), 0)
            self.loops[record["key"]] = loop
            self.scores[record["key"]] = score(loop)
            self.new[record["key"]] = record
        self.seconds = dict(experiment["seconds"])

    def walk(self, states, seed, index, tries, changes, reach):
        began = time.process_time()
        growth = _loops.perturb(states, self.deck, seed, index, tries, changes=changes, reach=reach)
        self.seconds["walk"] += time.process_time() - began
        return growth.loops

    def take(self, reported, label, tries_so_far):
        """The loops of `reported` states new to the walker, in canonical order: [hex]."""
        began = time.process_time()
        fresh = {}
        for hands, leader in reported:
            loop = loops.of_state(hands, leader)
            if loop.hex not in self.loops and loop.hex not in fresh:
                fresh[loop.hex] = loop
        self.seconds["score"] += time.process_time() - began
        added = []
        for key in sorted(fresh):
            loop = fresh[key]
            self.loops[key] = loop
            self.scores[key] = score(loop)
            record = {"key": key, "deal": str(loop.deal()), "found_by": label, "tries": tries_so_far,
                      **features(loop)}
            if record["S2"] >= self.basin_from:
                began = time.process_time()
                record["basin"] = basin2(loop, self.total, self.basin_bound)
                self.seconds["basin"] += time.process_time() - began
            self.new[key] = record
            added.append(key)
        return added


def canonical_states(walker, keys):
    return [walker.loops[key].state for key in keys]


def steered(walker, seed, width, tries, margin, elite_rule, label, resumed=None):
    """Rounds of ROUND tries whose pool holds only the elite (see the module
    docstring); new elite loops join it when their round ends. Returns the
    experiment's record. `resumed`: the record of an earlier run of the same
    walk, whose loops `walker` already holds, to go on from (its last round,
    where cut short, played again whole: try t of a round is the same
    whatever the round's length)."""
    threshold = walker.half - margin
    # Newest first within a score, so that a full pool takes the newcomers.
    joined = {key: 0 for key in walker.loops}
    done, index, timeline, reported_count = 0, 0, [], 0
    first_new = len(walker.new)
    if resumed:
        joined.update(resumed.get("joined", {}))
        done, index, timeline = resumed["tries"], resumed["rounds"], [tuple(t) for t in resumed["timeline"]]
        # A record of an earlier version of this script did not count them.
        reported_count = resumed.get("reported", 0)
        first_new -= len(resumed["new"])
        if done % ROUND:
            done -= done % ROUND
            index -= 1
    elite = {key for key in walker.loops if walker.scores[key] >= threshold} if elite_rule == "margin" else None
    while done < tries:
        # A loop found in round r joins the pool for round r + 1 (a resumed
        # run that plays its last round again knows it already).
        if elite_rule == "margin":
            chosen = sorted((k for k in elite if joined[k] <= index), key=lambda k: (-walker.scores[k], -joined[k], k))
        else:
            chosen = top_by_score(walker, joined, index)
        n = min(ROUND, tries - done)
        reported = walker.walk(canonical_states(walker, chosen), seed, index, n, *width)
        reported_count += len(reported)
        done += n
        index += 1
        for key in walker.take(reported, label, done):
            joined[key] = index
            timeline.append((done, walker.scores[key]))
            if elite_rule == "margin" and walker.scores[key] >= threshold:
                elite.add(key)
    final = sorted(elite) if elite_rule == "margin" else top_by_score(walker, joined, index)
    new = list(walker.new)[first_new:]
    return {"tries": done, "rounds": index, "reported": reported_count, "elite_end": len(final),
            "elite_states_end": sum(walker.loops[k].period[0] for k in final), "timeline": timeline,
            "joined": {key: joined[key] for key in new}, "new": new}


def top_by_score(walker, joined, index):
    """The loops of the highest S2 (newest first within a score) whose states
    fill the pool of round `index`."""
    chosen, states = [], 0
    pooled = (key for key in walker.loops if joined[key] <= index)
    for key in sorted(pooled, key=lambda k: (-walker.scores[k], -joined[k], k)):
        if states + walker.loops[key].period[0] > POOL and chosen:
            break
        chosen.append(key)
        states += walker.loops[key].period[0]
    return chosen


def unsteered(walker, seed, width, tries, chunk, label):
    """Walks of `chunk` tries from every loop known, in an order drawn from
    the seed and the walk (as a hunt's chunks): the walk adds its own finds
    to its pool between its rounds."""
    first_new = len(walker.new)
    done, index, timeline, reported_count = 0, 0, [], 0
    while done < tries:
        keys = sorted(walker.loops)
        random.Random(f"unsteered {seed} {index}").shuffle(keys)
        n = min(chunk, tries - done)
        reported = walker.walk(canonical_states(walker, keys), seed, index, n, *width)
        reported_count += len(reported)
        done += n
        index += 1
        for key in walker.take(reported, label, done):
            timeline.append((done, walker.scores[key]))
    return {"tries": done, "rounds": index, "reported": reported_count, "timeline": timeline,
            "new": list(walker.new)[first_new:]}


# ------------------------------------------------------------------ reports

def mean(values):
    return statistics.fmean(values) if values else float("nan")


def table_by(records, feature, value_of, half, title):
    """Rows by the value of `feature`: loops, and the min/max/mean of `value_of`."""
    groups = defaultdict(list)
    for record in records:
        groups[record[feature]].append(record)
    print(title)
    print(f"  {feature:>10} {'loops':>6} {'min':>5} {'max':>5} {'mean':>6}")
    for value in sorted(groups):
        got = [value_of(r) for r in groups[value]]
        print(f"  {value:>10} {len(got):>6} {min(got):>5} {max(got):>5} {mean(got):>6.2f}")


def print_two_seats(records, half):
    groups = defaultdict(list)
    for record in records:
        groups[record["S2"]].append(record)
    print(f"two seats: {len(records)} distinct loops, every basin searched to the end: "
          f"{sum(1 for r in records if r['basin']['stopped_by'] is None)}")
    print(f"  {'S2':>3} {'loops':>6} {'periods':<22} {'B2 min':>6} {'max':>4} {'mean':>6} "
          f"{'B2-S2':>7} {'balanced':>8} {'deals':>6} {'states mean':>11} {'ms mean':>8}")
    for value in sorted(groups):
        group = groups[value]
        b2 = [r["basin"]["best"] for r in group]
        gaps = [r["basin"]["best"] - r["S2"] for r in group]
        periods = sorted({r["period"] for r in group})
        shown = ",".join(map(str, periods[:6])) + ("..." if len(periods) > 6 else "")
        print(f"  {value:>3} {len(group):>6} {shown:<22} {min(b2):>6} {max(b2):>4} {mean(b2):>6.2f} "
              f"{min(gaps):>3}..{max(gaps):<3} {sum(1 for r in group if r['basin']['deals']):>8} "
              f"{sum(r['basin']['deals'] for r in group):>6} {mean([r['basin']['states'] for r in group]):>11,.0f} "
              f"{1000 * mean([r['basin']['seconds'] for r in group]):>8.1f}")
    gap = max(r["basin"]["best"] - r["S2"] for r in records)
    reach = [r["S2"] for r in records if r["basin"]["best"] >= half - 3]
    balanced = [r["S2"] for r in records if r["basin"]["deals"]]
    print(f"  G = max(B2 - S2) = {gap}; min(B2 - S2) = {min(r['basin']['best'] - r['S2'] for r in records)}")
    print(f"  loops whose basin reaches {half - 3}..{half}: S2 from {min(reach, default='-')}; "
          f"with a balanced deal: {len(balanced)} loops, S2 from {min(balanced, default='-')}")
    print(f"  rule: seat at 2 players iff S2 >= {half} - {gap} = {half - gap}: "
          f"{sum(1 for r in records if r['S2'] >= half - gap)} of {len(records)} loops seated")
    states = [r["basin"]["states"] for r in records]
    seconds = [r["basin"]["seconds"] for r in records]
    print(f"  basin search: states median {statistics.median(states):,.0f}, max {max(states):,}; "
          f"processor ms median {1000 * statistics.median(seconds):.1f}, max {1000 * max(seconds):.1f}")


#: The features tried as predictors of a table's best balance: the cycle's
#: (free once it is known) and its basin's (B2, states: a basin search costs
#: milliseconds, a seat at 3 and 4 far more).
PREDICTORS = ("S2", "smallest", "spread", "mean", "near", "period", "period_cards",
              *(f"at_most_{k}" for k in AT_MOST), "B2", "basin_states")


def value(record, feature):
    if feature == "B2":
        return record["basin"]["best"]
    if feature == "basin_states":
        return record["basin"]["states"]
    return record[feature]


def safe_bounds(records, players, feature):
    """The bounds a feature gives a table: X, the least value of a loop that
    reached a deal (below it none did), and Y, the largest (above it none
    did); and how many loops each leaves out."""
    table = str(players)
    withdeal = [value(r, feature) for r in records if r[table]["deals"]]
    if not withdeal:
        return None
    low, high = min(withdeal), max(withdeal)
    below = sum(1 for r in records if value(r, feature) < low)
    above = sum(1 for r in records if value(r, feature) > high)
    return low, below, high, above


def spearman(xs, ys):
    def ranks(values):
        order = sorted(range(len(values)), key=values.__getitem__)
        out = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2
            i = j + 1
        return out
    rx, ry = ranks(xs), ranks(ys)
    mx, my = mean(rx), mean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else float("nan")


def print_predictors(records, players):
    table = str(players)
    best = [-1 if r[table]["best"] is None else r[table]["best"] for r in records]
    dealt = sum(1 for r in records if r[table]["deals"])
    print(f"table of {players}: {len(records)} loops, {dealt} reached a deal; each feature's rank correlation with "
          "the best balance, and its safe bounds (no loop with a deal below X or above Y)")
    print(f"  {'feature':<14} {'rho':>6} {'X':>6} {'left below X':>13} {'Y':>6} {'left above Y':>13}")
    for feature in PREDICTORS:
        rho = spearman([value(r, feature) for r in records], best)
        bounds = safe_bounds(records, players, feature)
        if bounds is None:
            print(f"  {feature:<14} {rho:>6.2f}  (no deal)")
            continue
        low, below, high, above = bounds
        print(f"  {feature:<14} {rho:>6.2f} {low:>6} {below:>13} {high:>6} {above:>13}")


def print_table_by(records, players, feature):
    table = str(players)
    groups = defaultdict(list)
    for record in records:
        groups[value(record, feature)].append(record)
    print(f"table of {players} by {feature}:")
    print(f"  {feature:>12} {'loops':>6} {'best min':>8} {'max':>4} {'mean':>6} {'with deal':>9} {'deals':>7}")
    for v in sorted(groups):
        group = groups[v]
        got = [-1 if r[table]["best"] is None else r[table]["best"] for r in group]
        print(f"  {v:>12} {len(group):>6} {min(got):>8} {max(got):>4} {mean(got):>6.2f} "
              f"{sum(1 for r in group if r[table]['deals']):>9} {sum(r[table]['deals'] for r in group):>7}")


def print_costs(records, players, bound):
    table = str(players)
    states = [r[table]["states"] for r in records]
    seconds = [r[table]["seconds"] for r in records]
    stopped = sum(1 for r in records if r[table]["stopped_by"])
    print(f"table of {players}, bound {bound:,} states: states median {statistics.median(states):,.0f}, "
          f"max {max(states):,}; {stopped} of {len(records)} stopped by the bound; processor s median "
          f"{statistics.median(seconds):.3f}, mean {mean(seconds):.3f}, max {max(seconds):.3f}")


def stratified(records, count, seed):
    """`count` records spread over (period, S2, B2): one of each such group in
    turn, each group in an order drawn from the seed (a prefix of a larger
    sample is a smaller one)."""
    groups = defaultdict(list)
    for record in sorted(records, key=lambda r: r["key"]):
        groups[(record["period"], record["S2"], record["basin"]["best"])].append(record)
    rng = random.Random(f"tables {seed}")
    order = sorted(groups)
    for group in order:
        rng.shuffle(groups[group])
    chosen = []
    depth = 0
    while len(chosen) < count and any(len(g) > depth for g in groups.values()):
        for group in order:
            if depth < len(groups[group]) and len(chosen) < count:
                chosen.append(groups[group][depth])
        depth += 1
    return chosen


# ------------------------------------------------------------------ the parts

def two_seats(args):
    start = known(args.deck)
    total = Deck.parse(args.deck).total
    walker = Walker(args.deck, start, args.basin_bound)
    print(f"{args.deck} deck: {len(start)} known two-player loops; walks of {args.walk_tries:,} tries, "
          f"unsteered and steered, at widths {', '.join(f'{c},{r}' for c, r in args.widths)}, seed {args.seed}",
          flush=True)
    for changes, reach in args.widths:
        unsteered(walker, args.seed, (changes, reach), args.walk_tries, args.chunk, f"unsteered {changes},{reach}")
        steered(walker, args.seed, (changes, reach), args.walk_tries, args.margin, "margin",
                f"steered {changes},{reach}")
    records = []
    for key, (loop, name) in sorted(start.items()):
        records.append({"key": key, "deal": str(loop.deal()), "found_by": f"known: {name}", "tries": 0,
                        **features(loop), "basin": basin2(loop, total, args.basin_bound)})
    records.extend(walker.new.values())
    seen = {record["key"] for record in records}
    for path in args.also:
        with open(path) as file:
            data = json.load(file)
        if data["deck"] != args.deck:
            sys.exit(f"hunt_scores: {path} holds loops of the {data['deck']} deck, not {args.deck}")
        for experiment in data["experiments"]:
            for record in experiment["loops"]:
                if record["key"] not in seen and "basin" in record:
                    seen.add(record["key"])
                    records.append(record)
    if args.also:
        print(f"  with the new loops of {', '.join(args.also)}: {len(records)} loops")
    print(f"  {len(walker.new)} new loops; processor s: walks {walker.seconds['walk']:.1f}, "
          f"cycles {walker.seconds['score']:.1f}, basins {walker.seconds['basin']:.1f}")
    print_two_seats(records, total // 2)
    # Every loop with a balanced deal, and a sample of the others.
    checked = {r["key"]: r for r in random.Random(args.seed).sample(records, min(args.check, len(records)))}
    checked.update((r["key"], r) for r in records if r["basin"]["deals"])
    checked = list(checked.values())
    agree = sum(1 for record in checked if same_as_basin(record, args.basin_bound))
    print(f"  backward.basin agrees (states, balanced deals) on {agree} of {len(checked)} loops "
          "(every one with a balanced deal and a sample)")
    return {"deck": args.deck, "seed": args.seed, "widths": args.widths, "walk_tries": args.walk_tries,
            "basin_bound": args.basin_bound, "seconds": walker.seconds, "loops": records}


def loops_of(args):
    """The two-seat sample: read from --loops, or made as two-seats makes it."""
    if args.loops:
        with open(args.loops) as file:
            data = json.load(file)
        if data["deck"] != args.deck:
            sys.exit(f"hunt_scores: {args.loops} holds loops of the {data['deck']} deck, not {args.deck}")
        return data["loops"]
    return two_seats(args)["loops"]


def tables(args):
    total = Deck.parse(args.deck).total
    records = loops_of(args)
    chosen = stratified(records, args.sample, args.seed)
    print(f"tables of 3 and 4: {len(chosen)} of {len(records)} loops (spread over period, S2, B2), "
          f"bound {args.bound:,} states" + (f"; the first {args.big} also at {args.big_bound:,}" if args.big else ""),
          flush=True)
    out = []
    for number, record in enumerate(chosen):
        cycle = loops.of_state(key_hands(record["key"]), 0).states
        row = {key: record[key] for key in record if key != "basin"}
        row["basin"] = {k: v for k, v in record["basin"].items() if k != "deal_list"}
        for players in (3, 4):
            row[str(players)] = searched(cycle, players, total, args.bound)
            if number < args.big:
                row[f"{players}_big"] = searched(cycle, players, total, args.big_bound)
        out.append(row)
    for players in (3, 4):
        print_costs(out, players, args.bound)
        print_predictors(out, players)
        for feature in args.show:
            print_table_by(out, players, feature)
    if args.big:
        for players in (3, 4):
            big = out[:args.big]
            changed = [(r[str(players)]["best"], r[f"{players}_big"]["best"], r[str(players)]["deals"],
                        r[f"{players}_big"]["deals"]) for r in big]
            print(f"table of {players}, {args.big} loops at {args.bound:,} and {args.big_bound:,} states: best "
                  f"balance changed in {sum(1 for a, b, _, _ in changed if a != b)}, a deal found only at the "
                  f"larger bound in {sum(1 for _, _, a, b in changed if not a and b)}, deals "
                  f"{sum(c[2] for c in changed)} -> {sum(c[3] for c in changed)}")
            print_costs([{str(players): r[f"{players}_big"]} for r in big], players, args.big_bound)
    return {"deck": args.deck, "seed": args.seed, "bound": args.bound, "big_bound": args.big_bound, "big": args.big,
            "loops": out}


def walks(args):
    start = known(args.deck)
    half = Deck.parse(args.deck).total // 2
    near = half - 5
    print(f"{args.deck} deck: walks from its {len(start)} known loops, seed {args.seed}; "
          f"steered: pool the loops of S2 >= {half - args.margin} (else the best by S2), rounds of {ROUND:,}; "
          f"unsteered: every loop known, walks of {args.chunk:,}", flush=True)
    print(f"  {'walk':<16} {'tries':>11} {'core s':>7} {'new':>6} {'/1e7':>7} {'/core-min':>9} "
          f"{'S2>=' + str(near):>7} {'max S2':>6} {'max B2':>6} {'prizes':>6} {'deals':>6} {'prizes/core-min':>15}")
    experiments = []
    earlier = {}
    if args.resume:
        with open(args.resume) as file:
            data = json.load(file)
        if (data["deck"], data["seed"], data["margin"], data["elite"]) != (args.deck, args.seed, args.margin,
                                                                          args.elite):
            sys.exit(f"hunt_scores: {args.resume} is a run of another deck, seed, margin or elite")
        earlier = {experiment["walk"]: experiment for experiment in data["experiments"]}
    modes = [mode for mode in ("steered", "unsteered") if mode in args.modes]
    for changes, reach in args.widths:
        for mode in modes:
            walker = Walker(args.deck, start, args.basin_bound, args.basin_from)
            label = f"{mode} {changes},{reach}" + (" top" if mode == "steered" and args.elite == "top" else "")
            if mode == "steered":
                rule = args.elite
                if rule == "margin" and not any(s >= half - args.margin for s in walker.scores.values()):
                    rule = "top"
                resumed = earlier.get(label)
                if resumed:
                    walker.restore(resumed)
                result = steered(walker, args.seed, (changes, reach), args.walk_tries, args.margin, rule, label,
                                 resumed)
            else:
                result = unsteered(walker, args.seed, (changes, reach), args.unsteered_tries, args.chunk, label)
            found = [walker.new[key] for key in result["new"]]
            prizes = [r for r in found if "basin" in r and r["basin"]["deals"]]
            core = sum(walker.seconds.values())
            tries = result["tries"]
            experiment = {"walk": label, "changes": changes, "reach": reach,
                          "seconds": walker.seconds, "core_seconds": core, **result, "loops": found,
                          "prizes": [{"key": r["key"], "deal": r["deal"], "period": r["period"], "S2": r["S2"],
                                      "B2": r["basin"]["best"], "deals": r["basin"]["deals"],
                                      "deal_list": r["basin"]["deal_list"], "tries": r["tries"],
                                      "known_as": start[r["key"]][1] if r["key"] in start else None}
                                     for r in prizes]}
            experiments.append(experiment)
            print(f"  {label:<16} {tries:>11,} {core:>7.1f} {len(found):>6} "
                  f"{len(found) * 1e7 / tries:>7.0f} {len(found) * 60 / core:>9.1f} "
                  f"{sum(1 for r in found if r['S2'] >= near):>7} {max((r['S2'] for r in found), default='-'):>6} "
                  f"{max((r['basin']['best'] for r in found if 'basin' in r), default='-'):>6} {len(prizes):>6} "
                  f"{sum(r['basin']['deals'] for r in prizes):>6} {len(prizes) * 60 / core:>15.2f}", flush=True)
    for experiment in experiments:
        for prize in experiment["prizes"]:
            print(f"  prize, {experiment['walk']}, after {prize['tries']:,} tries: loop {prize['key'][:24]}... "
                  f"period {prize['period']}, S2 {prize['S2']}, {prize['deals']} balanced deals, e.g. "
                  f"{prize['deal_list'][0]}" + (f" (known: {prize['known_as']})" if prize["known_as"] else " (new)"))
    keys = [{p["key"] for p in e["prizes"]} for e in experiments]
    union = set().union(*keys) if keys else set()
    print(f"  distinct prize loops over all walks: {len(union)}, "
          f"{sum(len(p['deal_list']) for p in {p['key']: p for e in experiments for p in e['prizes']}.values())} "
          "balanced deals")
    return {"deck": args.deck, "seed": args.seed, "margin": args.margin, "elite": args.elite, "chunk": args.chunk,
            "known": sorted(start), "experiments": experiments}


PARTS = {"two-seats": two_seats, "tables": tables, "walks": walks}


def width(text):
    try:
        changes, reach = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a width is CHANGES,REACH, not {text!r}") from None
    return changes, reach


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=sorted(PARTS))
    parser.add_argument("--deck", default="standard")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a small version, well under a minute")
    parser.add_argument("--json", help="write the raw results to this file")
    parser.add_argument("--widths", type=width, nargs="+", help="walk widths CHANGES,REACH")
    parser.add_argument("--walk-tries", type=int, help="tries of each walk experiment")
    parser.add_argument("--unsteered-tries", type=int, help="walks: tries of each unsteered experiment")
    parser.add_argument("--also", nargs="*", default=[],
                        help="two-seats: walks JSON files whose new loops join the sample")
    parser.add_argument("--resume", help="walks: go on with the steered walks of this walks JSON, to --walk-tries")
    parser.add_argument("--chunk", type=int, default=1 << 20, help="tries of an unsteered walk (default 2^20)")
    parser.add_argument("--margin", type=int, default=5, help="steered pool: loops of S2 >= half - MARGIN")
    parser.add_argument("--elite", choices=("margin", "top"), default="margin",
                        help="steered pool: by --margin, or the best by S2 up to the pool's states")
    parser.add_argument("--modes", nargs="+", default=["steered", "unsteered"], choices=("steered", "unsteered"))
    parser.add_argument("--basin-from", type=int, default=0,
                        help="walks: search the basins of the new loops of S2 >= this only (default: all)")
    parser.add_argument("--check", type=int, default=200,
                        help="two-seats: loops whose basin is searched again by backward.basin")
    parser.add_argument("--basin-bound", type=int, default=10_000_000, help="states of a basin search")
    parser.add_argument("--loops", help="tables: the two-seats JSON to sample from (else made afresh)")
    parser.add_argument("--sample", type=int, help="tables: loops searched at 3 and 4")
    parser.add_argument("--bound", type=int, help="tables: states of a search at 3 or 4 (default 200,000)")
    parser.add_argument("--big", type=int, help="tables: the first BIG loops searched again at --big-bound")
    parser.add_argument("--big-bound", type=int, default=2_000_000)
    parser.add_argument("--show", nargs="*", default=["S2", "B2", "smallest", "period"],
                        help="tables: the features whose full table is printed")
    args = parser.parse_args()
    args.deck = str(Deck.parse(args.deck))
    quick = args.quick
    defaults = {"widths": [(3, 6), (4, 8)] if args.part != "walks" else list(WIDTHS),
                "walk_tries": (200_000 if quick else 2_000_000) if args.part != "walks"
                else (300_000 if quick else 100_000_000),
                "unsteered_tries": 300_000 if quick else 10_000_000,
                "sample": 16 if quick else 600, "bound": 20_000 if quick else 200_000, "big": 4 if quick else 0}
    for name, default in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    if quick:
        args.chunk = min(args.chunk, 1 << 16)
        args.big_bound = min(args.big_bound, 100_000)
    began = time.process_time()
    result = PARTS[args.part](args)
    result["part"], result["quick"] = args.part, quick
    print(f"processor seconds in all: {time.process_time() - began:.1f}")
    if args.json:
        with open(args.json, "w") as file:
            json.dump(result, file)
            file.write("\n")


if __name__ == "__main__":
    main()
