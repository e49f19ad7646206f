"""The GPU kernels' speed as far as it can be seen without a GPU: compiled figures and a warp model.

    python3 benchmarks/gpu_kernel_model.py [--games N] [--games-per-warp G] [--arch sm_80,sm_89,sm_90]

Nothing here runs on a GPU, and no figure is a measured speed:

1. What ptxas made of each kernel (bg_sample, bg_census) for each
   architecture, hands of 32 pieces (the standard deck's ring), from NVRTC's
   own compile with `--ptxas-options=-v`: registers, stack frame (local
   memory), spill stores and loads, static shared memory (the kernels take no
   dynamic shared memory); then the theoretical occupancy at the kernels'
   threads a block, by the rules of NVIDIA's occupancy calculator. And from the
   machine code (SASS, disassembled by nvdisasm with the source line of each
   instruction, `-lineinfo` changing none of them): the local loads (LDL)
   and stores (STL) in the code of each part of the game, counted in the
   code, not as executed: "per trick" is bg_trick and bg_step (a trick and
   its check for an end), "loop check" Brent's snapshot and comparison and
   a perturbation's cycle hash, "dealing" the deal and its random stream,
   unranking, or a perturbation's changes; "the rest" is kernel.cu's own
   code (the queue, its takes, the counts). nvdisasm comes from the wheel
   nvidia-cuda-nvdisasm (`pip install nvidia-cuda-nvdisasm`); without it that
   part is left out and says so.

2. A warp model: games of each shape (standard 26/26, a random split of the
   standard deck, camicia, the half deck) played by the compiled engine, their
   lengths in tricks logged, then replayed through two schedulings of 32
   lanes a warp, a step costing one trick for every lane that has a game:
   - the reconverging kernel of the third wave (each lane played a game to
     its end and the warp reconverged after the trick loop, so every round
     of 32 games lasted as long as its longest);
   - kernel.cu's flat loop, as it is: blocks of its threads, the deck's steps
     between barriers (engine.steps_between: about its mean game), a lane whose game ended takes the next dealt game of
     its block's queue in the next step or idles until the refill when the
     queue is empty, a refill when half the queue is free in which threads
     0 .. free - 1 deal one game each, the last games of a block ending it.
     A take costs a warp TAKE tricks and a refill DEAL tricks for each warp
     that has a lane in it (options; a deal is about 1,700 instructions, a
     standard trick about 225, a take, a copy of about 10 words of two
     pieces each, about 45).
   SIMT efficiency is the lanes' work (tricks, and for the flat loop takes
   and deals) over 32 times the warps' steps.
"""

import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from beggar import _engine as compiled
from beggar.decks import STANDARD, Deck
from beggar.gpu import device, source
from beggar.gpu.engine import ring_of, steps_between

LANES = 32
SHAPES = [("standard 26/26", "standard", None), ("standard, random split", "standard", "random"),
          ("camicia 20/20", "camicia", None), ("half 13/13", "half", None)]

#: What bounds the blocks of a multiprocessor, per architecture (NVIDIA's
#: occupancy calculator): warps, blocks, registers (allocated 256 at a time
#: per warp, warps 4 at a time), shared memory at the largest carveout (1 KB
#: of it reserved per block, allocated 128 bytes at a time).
LIMITS = {
    "sm_80": {"warps": 64, "blocks": 32, "registers": 65536, "shared": 167936},
    "sm_89": {"warps": 48, "blocks": 24, "registers": 65536, "shared": 102400},
    "sm_90": {"warps": 64, "blocks": 32, "registers": 65536, "shared": 233472},
}

#: The parts of the game, by the game.h functions their code comes from.
PARTS = {
    "per trick": {"bg_trick", "bg_step", "bg_pop", "bg_head", "bg_size"},
    "loop check": {"bg_same", "bg_copy", "bg_state_hash", "bg_cycle_hash", "bg_known"},
    "dealing": {"bg_mix64", "bg_next32", "bg_below", "bg_stream_start", "bg_put", "bg_end_hand",
                "bg_place", "bg_put_hand", "bg_deal_random", "bg_exact_quotient", "bg_unrank",
                "bg_next_arrangement", "bg_deal_arrangement", "bg_deal_cards", "bg_state_insert",
                "bg_state_remove", "bg_change", "bg_perturbed", "bg_climb_deal", "bg_mutate", "bg_climb_propose",
                "bg_load_cards"},
}


# ---------------------------------------------------------------- the compiled kernels

def ptxas_figures(log):
    """{kernel: figures} from ptxas's -v lines in NVRTC's log."""
    figures, kernel = {}, None
    for line in log.splitlines():
        found = re.search(r"Function properties for (\w+)", line)
        if found:
            kernel = found.group(1)
            figures[kernel] = {}
            continue
        if kernel is None:
            continue
        found = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if found:
            figures[kernel].update(stack=int(found.group(1)), spill_stores=int(found.group(2)),
                                   spill_loads=int(found.group(3)))
        found = re.search(r"Used (\d+) registers", line)
        if found:
            figures[kernel]["registers"] = int(found.group(1))
            shared = re.search(r"(\d+) bytes smem", line)
            figures[kernel]["shared"] = int(shared.group(1)) if shared else 0
    return figures


def occupancy(arch, registers, shared, threads):
    """(blocks a multiprocessor holds, their warps over its most): the
    theoretical occupancy of a kernel of `registers` a thread and `shared`
    bytes of static shared memory a block."""
    limit = LIMITS[arch]
    warps = -(-threads // LANES)
    warp_registers = -(-registers * LANES // 256) * 256
    by_registers = (limit["registers"] // warp_registers) // 4 * 4 // warps
    by_shared = limit["shared"] // (-(-(shared + 1024) // 128) * 128)
    blocks = min(limit["blocks"], limit["warps"] // warps, by_registers, by_shared)
    return blocks, blocks * warps / limit["warps"]


def functions_of(header):
    """[(first line, last line, name)] of game.h's functions."""
    lines = header.splitlines()
    spans = []
    for number, line in enumerate(lines, 1):
        found = re.match(r"BG_FN [^(]*\b(bg_\w+)\(", line)
        if found:
            end = next(n for n in range(number, len(lines) + 1) if lines[n - 1] == "}")
            spans.append((number, end, found.group(1)))
    return spans


def tool(name):
    """The path of a CUDA tool (nvdisasm): on PATH or in an NVIDIA wheel."""
    found = shutil.which(name)
    if found:
        return found
    try:
        import nvidia
    except ImportError:
        return None
    for folder in nvidia.__path__:
        for path in sorted(Path(folder).glob(f"*/bin/{name}")):
            return str(path)
    return None


def machine_code(nvdisasm, cubin, header):
    """{kernel: (local accesses, reconverges)} from the SASS of `cubin`
    (built with -lineinfo): {part: [LDL, STL]} counted by the game.h function
    each instruction comes from, and whether the warp reconverges after
    every game: whether the trick loop (the span of the branches back from
    game code to game code) lies inside a convergence region (a BSSY before
    it, its BSYNC after it) that holds no branch back to before the loop (no
    loop over deals), so that its threads wait at the BSYNC for the longest
    game of the warp."""
    spans = functions_of(header)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kernel.cubin"
        path.write_bytes(cubin)
        sass = subprocess.run([nvdisasm, "-c", "-gi", str(path)], capture_output=True, text=True,
                              check=True).stdout
    kernels = {}
    # -gi gives an instruction's source as its chain of inlined calls,
    # innermost first, before the first instruction of each new line.
    where, fresh, pending = None, True, []
    for line in sass.splitlines():
        found = re.match(r"\s*\.text\.(\w+):", line)
        if found:
            kernel = kernels[found.group(1)] = {"counts": {part: [0, 0] for part in [*PARTS, "the rest"]},
                                                "labels": {}, "regions": [], "branches": [], "game": []}
            continue
        found = re.match(r"(\.L_x_\d+):", line)
        if found:
            pending.append(found.group(1))
            continue
        found = re.search(r'//## File "[^"]*?([\w.]+)", line (\d+)', line)
        if found:
            if fresh:
                where = (found.group(1), int(found.group(2)))
            fresh = False
            continue
        found = re.match(r"\s*/\*([0-9a-f]+)\*/\s+(.*)", line)
        if not found or not kernels:
            continue
        fresh = True
        address, text = int(found.group(1), 16), found.group(2)
        for label in pending:
            kernel["labels"][label] = address
        pending = []
        name = next((n for first, last, n in spans if where and where[0] == "game.h" and first <= where[1] <= last),
                    None)
        if name in PARTS["per trick"]:
            kernel["game"].append(address)
        region = re.search(r"\bBSSY\s+B\d+,\s*`?\(?(\.L_x_\d+)", text)
        if region:
            kernel["regions"].append((address, region.group(1)))
        branch = re.search(r"\bBRA\b.*?(\.L_x_\d+)", text)
        if branch:
            kernel["branches"].append((address, branch.group(1)))
        access = re.search(r"\b(LDL|STL)(\.\w+)*\s", text)
        if access:
            part = next((p for p, names in PARTS.items() if name in names), "the rest")
            kernel["counts"][part][access.group(1) == "STL"] += 1
    result = {}
    for name, kernel in kernels.items():
        game, labels = set(kernel["game"]), kernel["labels"]
        loop = [(labels[target], at) for at, target in kernel["branches"]
                if at in game and labels.get(target, at) < at and labels[target] in game]
        waits = False
        if loop:
            head, tail = min(loop)[0], max(at for _, at in loop)
            for start, label in kernel["regions"]:
                end = labels.get(label, -1)
                if start < head and end > tail:
                    waits |= not any(start <= at < end and labels.get(target, head) < head
                                     for at, target in kernel["branches"])
        result[name] = (kernel["counts"], waits)
    return result


def compiled_figures(arches, ring, cards):
    nvdisasm = tool("nvdisasm")
    header = source.files()["game.h"]
    threads = device.block_threads(ring)
    print(f"compiled by NVRTC {device.nvrtc_version()}, ring {ring} and {cards} cards (the standard deck's), "
          f"{threads} threads a block; static counts from the code, nothing run")
    if nvdisasm is None:
        print("SASS: nvdisasm not found (pip install nvidia-cuda-nvdisasm): local loads and stores left out")
    print()
    print(f"{'arch':6} {'kernel':10} {'regs':>5} {'stack B':>8} {'spills st/ld':>13} {'smem static/dyn':>16} "
          f"{'blocks/SM':>10} {'occupancy':>10} {'reconverges':>11}   LDL/STL: per trick, loop check, dealing, the rest")
    for arch in arches:
        cubin, log = device.compile_program(arch, ring, ["--ptxas-options=-v", "-lineinfo"], cards)
        figures = ptxas_figures(log)
        code = machine_code(nvdisasm, cubin, header) if nvdisasm else {}
        for kernel in device.KERNELS:
            f = figures[kernel]
            blocks, occupied = occupancy(arch, f["registers"], f["shared"], threads)
            local, waits = code.get(kernel, (None, None))
            said = ", ".join(f"{a}/{b}" for a, b in local.values()) if local else "-"
            waits = "-" if waits is None else "yes" if waits else "no"
            print(f"{arch:6} {kernel:10} {f['registers']:5} {f['stack']:8,} "
                  f"{f['spill_stores']:>6}/{f['spill_loads']:<6} {f['shared']:>10,}/0     "
                  f"{blocks:10} {occupied:10.0%} {waits:>11}   {said}")


# ---------------------------------------------------------------- the warp model

def trick_lengths(deck, split, games, seed=2026, chunk=100_000):
    """The tricks of `games` random deals of `seed`, played by the compiled
    engine (a loop's: where the engine stopped it)."""
    tricks = np.empty(games, np.int64)
    for start in range(0, games, chunk):
        n = min(chunk, games - start)
        played = compiled.sample(n, seed, 0, start, deck, 2, split)
        tricks[start:start + n] = [outcome.tricks for _, outcome in played]
    return tricks


def reconverging(tricks):
    """Warp steps of today's kernel: rounds of 32 games, each as long as its longest."""
    rounds = tricks[:len(tricks) // LANES * LANES].reshape(-1, LANES)
    return int(rounds.max(axis=1).sum()), int(rounds.sum())


def flat(tricks, threads, steps, games_per_block, take, deal, parallel=64):
    """Warp steps of kernel.cu's flat loop: (warp cost, lane work), both in
    tricks, over blocks of `threads` lanes that play `games_per_block` games
    each, `parallel` blocks replayed at once."""
    cost = work = 0.0
    warps = -(-threads // LANES)
    blocks = len(tricks) // games_per_block
    for first in range(0, blocks - parallel + 1, parallel):
        games = tricks[first * games_per_block:(first + parallel) * games_per_block].reshape(parallel, -1)
        lane = np.arange(threads)
        left = np.zeros((parallel, threads), np.int64)      # tricks left of each lane's game
        queue = np.zeros((parallel, threads), np.int64)     # the queue's games, oldest first
        queued = np.zeros(parallel, np.int64)
        dealt = np.zeros(parallel, np.int64)                # games of the block dealt so far
        rows = np.arange(parallel)[:, None]

        def charge(lanes, units):
            # A warp pays `units` once if any of its lanes takes part.
            nonlocal cost
            padded = np.zeros((parallel, warps * LANES), bool)
            padded[:, :threads] = lanes
            cost += units * padded.reshape(parallel, warps, LANES).any(axis=2).sum()

        while True:
            # The refill (kernel.cu's barrier): threads 0 .. free - 1 deal.
            free = threads - queued
            refill = free >= (threads + 1) // 2
            dealers = refill[:, None] & (lane[None, :] < free[:, None]) & \
                (lane[None, :] < (games_per_block - dealt)[:, None])
            fresh = dealers.sum(axis=1)
            for b in np.nonzero(fresh)[0]:
                queue[b, queued[b]:queued[b] + fresh[b]] = games[b, dealt[b]:dealt[b] + fresh[b]]
            queued += fresh
            dealt += fresh
            charge(dealers, deal)
            work += deal * fresh.sum()
            if not (left.any() or queued.any()):
                break
            starved = np.zeros((parallel, threads), bool)
            for _ in range(steps):
                takers = (left == 0) & ~starved
                rank = np.cumsum(takers, axis=1) - 1        # the takers' order in the queue
                took = takers & (rank < queued[:, None])
                starved |= takers & ~took
                taken = took.sum(axis=1)
                left[took] = queue[np.broadcast_to(rows, took.shape)[took], rank[took]]
                for b in np.nonzero(taken)[0]:
                    queue[b, :queued[b] - taken[b]] = queue[b, taken[b]:queued[b]].copy()
                queued -= taken
                charge(took, take)
                work += take * taken.sum()
                playing = left > 0
                charge(playing, 1)
                work += playing.sum()
                left[playing] -= 1
    return cost, work


def warp_model(games, threads, steps, games_per_block, take, deal):
    print(f"warp model (a model, not a measurement): {games:,} games a shape played by the compiled engine, "
          f"{LANES} lanes a warp, a step one trick")
    print("  reconverging: a lane plays its game to the end; the warp reconverges after the trick loop, each "
          "round as long as its longest game (the third wave's kernel)")
    print(f"  flat loop: kernel.cu's, blocks of {threads} threads, "
          f"{steps or 'the deck' + chr(39) + 's (engine.steps_between)'} steps between refills, "
          f"{games_per_block:,} games a block, a take {take} tricks, a deal {deal} tricks")
    print()
    print("  a game's lane steps: the lanes' steps a game costs in the flat loop, its work and the steps its "
          "warp's idle lanes lose (deals a second go as their inverse)")
    print()
    lane_steps = "a game's lane steps"
    print(f"{'shape':24} {'steps':>5} {'mean game':>10} {'mean longest of 32':>19} {'SIMT reconverging':>18} "
          f"{'SIMT flat loop':>15} {lane_steps:>19}")
    for name, deck, split in SHAPES:
        tricks = trick_lengths(Deck.parse(deck), split, games)
        steps_taken, played = reconverging(tricks)
        before = played / (LANES * steps_taken)
        between = steps or steps_between(Deck.parse(deck), split)
        cost, work = flat(tricks, threads, between, games_per_block, take, deal)
        longest = steps_taken / (len(tricks) // LANES)
        modelled = len(tricks) // games_per_block // 64 * 64 * games_per_block
        print(f"{name:24} {between:5} {tricks.mean():10.1f} {longest:19.1f} {before:18.2f} "
              f"{work / (LANES * cost):15.2f} "
              f"{LANES * cost / modelled:19.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10 ** 6, help="games a shape in the warp model (10^6)")
    parser.add_argument("--games-per-block", type=int, default=4096,
                        help="games a block plays in the model of the flat loop (4096)")
    parser.add_argument("--take", type=float, default=0.2, help="a take's cost in tricks (0.2)")
    parser.add_argument("--deal", type=float, default=7.5, help="a deal's cost in tricks (7.5)")
    parser.add_argument("--steps", type=int, help="steps between refills for every shape (default: each deck's, "
                        "engine.steps_between)")
    parser.add_argument("--arch", default="sm_80,sm_89,sm_90", help="architectures (sm_80,sm_89,sm_90)")
    args = parser.parse_args()
    arches = args.arch.split(",")
    unknown = [arch for arch in arches if arch not in LIMITS]
    if unknown or args.games_per_block < 1 or args.games < 64 * args.games_per_block \
            or args.take < 0 or args.deal < 0:
        parser.error(f"--arch takes {', '.join(LIMITS)}; --games at least 64 times --games-per-block; "
                     "--take and --deal 0 or more")
    ring = ring_of(STANDARD)
    try:
        compiled_figures(arches, ring, device.cards_of(STANDARD.total))
    except device.GpuFault as error:
        print(f"compiled figures: none ({error})")
    print()
    warp_model(args.games, device.block_threads(ring), args.steps, args.games_per_block, args.take, args.deal)


if __name__ == "__main__":
    main()
