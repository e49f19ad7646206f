"""What a deal costs the GPU kernels beside a trick, counted in instructions.

    python3 benchmarks/gpu_deal_cost.py [--deals N] [--against REV]

Builds benchmarks/gpu_deal_cost.c, game.h's dealing and play with the
standard deck's sizes, for this machine (cc -O2) and counts with callgrind
(valgrind, `apt-get install valgrind`) the instructions executed by one
random deal, one census deal (a step to the next arrangement and its deal)
and one trick (with its check for an end), over N deals. These are x86
instructions of the host build, not a GPU's: a model of the kernels' costs,
not a measurement of them (no device runs here). The warp model of
benchmarks/gpu_kernel_model.py takes a deal's cost in tricks: the ratio
printed here is what its --deal option should be.

With --against REV (a git revision of this repository), the game.h of that
revision is counted the same way, side by side: a revision whose game.h
this program builds against (the table of both hands' pieces by place,
49ee19c, or later).

Counts do not depend on the machine's load: run it whenever.
"""

import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from beggar.gpu import source
from gpu_kernel_model import at_revision

HERE = Path(__file__).resolve().parent
PARTS = (("random deal", "deal", "deal_random"), ("census deal", "census", "deal_census"),
         ("trick", "play", "play_trick"))


def build(folder, headers, name="this build"):
    """The program, built against `headers` ({name: text}) in `folder`."""
    for header, text in headers.items():
        (folder / header).write_text(text)
    program = folder / "gpu_deal_cost"
    built = subprocess.run(["cc", "-O2", f"-I{folder}", str(HERE / "gpu_deal_cost.c"), "-o", str(program)],
                           capture_output=True, text=True)
    if built.returncode:
        first = next((line for line in built.stderr.splitlines() if "error" in line), built.stderr.strip())
        raise SystemExit(f"gpu_deal_cost: gpu_deal_cost.c does not build against {name}'s game.h: {first}")
    return program


def instructions(program, mode, function, n):
    """(instructions executed in `function`, the program's first number) of one run."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "callgrind.out"
        ran = subprocess.run(["valgrind", "--tool=callgrind", f"--toggle-collect={function}",
                              f"--callgrind-out-file={out}", str(program), mode, str(n)],
                             capture_output=True, text=True, check=True)
        totals = re.search(r"^(?:totals|summary): (\d+)", out.read_text(), re.MULTILINE)
        return int(totals.group(1)), int(ran.stdout.split()[0])


def costs(program, n):
    """{part: instructions each} of one build."""
    found = {}
    for label, mode, function in PARTS:
        total, tricks = instructions(program, mode, function, n)
        found[label] = total / (tricks if mode == "play" else n)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=20_000, help="deals of each count (default 20,000)")
    parser.add_argument("--against", metavar="REV", help="also count game.h of this git revision")
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("cc") is None:
        raise SystemExit("gpu_deal_cost: needs valgrind and a C compiler (apt-get install valgrind gcc)")
    builds = [("this build", {name: text for name, text in source.files().items() if name != "kernel.cu"})]
    if args.against:
        builds.append((args.against, source.files(lambda name: at_revision(args.against, name), "game.h")))
    counted = []
    for name, headers in builds:
        with tempfile.TemporaryDirectory() as folder:
            counted.append((name, costs(build(Path(folder), headers, name), args.deals)))
    print(f"x86 instructions (callgrind, cc -O2) of game.h's parts, standard deck, {args.deals:,} deals; "
          "a model of the kernels' costs, not a GPU's count")
    header = f"{'':<14}" + "".join(f"{name:>14}" for name, _ in counted)
    if len(counted) == 2:
        header += f"{'ratio':>10}"
    print(header)
    for label, _, _ in PARTS:
        row = f"{label:<14}" + "".join(f"{found[label]:>14,.0f}" for _, found in counted)
        if len(counted) == 2:
            row += f"{counted[0][1][label] / counted[1][1][label]:>10.2f}"
        print(row)
    for name, found in counted:
        print(f"{name}: a random deal costs {found['random deal'] / found['trick']:.1f} tricks, a census deal "
              f"{found['census deal'] / found['trick']:.1f} (gpu_kernel_model.py --deal)")


if __name__ == "__main__":
    main()
