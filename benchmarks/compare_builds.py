"""Two builds of the compiled engine, side by side in one run.

    python3 benchmarks/compare_builds.py PYTHON_BEFORE PYTHON_AFTER [--rounds R] [--core C]

Each PYTHON is the interpreter of an environment where a build of beggar is
installed (a virtual environment of another checkout, say). The rounds
alternate between the two builds, each a fresh process pinned to one core,
and every figure is the best of R rounds in deals (or climbing steps) per
processor second: processor time, because a change of a few per cent drowns
in the wall clock of a shared machine. Prints both builds' figures and
after/before for the calls every search plays: sample_best() of 2, 3 and 4
players, a census block of the half deck and hill climbing (public calls
only, so that any two builds compare). Made for changes to the compiled
modules that should cost nothing (issue 19's split of _engine.pyx into
_game.pyx and _engine.pyx).
"""

import argparse
import json
import os
import subprocess
import sys

# What one round plays, run by each build's interpreter: figures as JSON.
ROUND = r"""
import json, sys, time
from beggar import _engine as compiled
from beggar.climbing import ClimbRules
from beggar.decks import STANDARD, Deck

NEVER = 10 ** 9     # no game is kept: the figures are the engine's alone
r, n = int(sys.argv[1]), int(sys.argv[2])

def rate(count, call):
    start = time.process_time()
    call()
    return count / (time.process_time() - start)

print(json.dumps({
    "sample 26/26": rate(n, lambda: compiled.sample_best(n, 1, NEVER, r * n, STANDARD, 2, None)),
    "3 players": rate(n // 2, lambda: compiled.sample_best(n // 2, 1, NEVER, r * n, STANDARD, 3, None)),
    "4 players": rate(n // 2, lambda: compiled.sample_best(n // 2, 1, NEVER, r * n, STANDARD, 4, None)),
    "half census": rate(n, lambda: compiled.census(10 ** 6 + r * n, n, Deck.parse("half"))),
    "climb steps": rate(n // 4, lambda: compiled.climb(1, r, n // 4, NEVER, ClimbRules())),
}))
"""


def one_round(python, r, deals, core):
    command = [python, "-c", ROUND, str(r), str(deals)]
    if hasattr(os, "sched_setaffinity"):
        command = ["taskset", "-c", str(core)] + command
    # Run away from any checkout, so that each interpreter imports its own installed build.
    done = subprocess.run(command, capture_output=True, text=True, cwd=os.path.expanduser("~"))
    if done.returncode != 0:
        sys.exit(f"compare_builds: {python} failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--deals", type=int, default=1_000_000, help="deals of a 26/26 sample per round")
    parser.add_argument("--core", type=int, default=0)
    args = parser.parse_args()
    builds = {"before": args.before, "after": args.after}
    best = {name: {} for name in builds}
    for r in range(args.rounds):
        order = list(builds) if r % 2 == 0 else list(builds)[::-1]     # neither always goes first
        for name in order:
            for call, value in one_round(builds[name], r, args.deals, args.core).items():
                best[name][call] = max(best[name].get(call, 0.0), value)
    print(f"best of {args.rounds} rounds, per processor second, one core")
    print(f"  {'':14}{'before':>12}{'after':>12}{'after/before':>14}")
    for call, before in best["before"].items():
        after = best["after"][call]
        print(f"  {call:14}{before:12,.0f}{after:12,.0f}{after / before:14.3f}")


if __name__ == "__main__":
    main()
