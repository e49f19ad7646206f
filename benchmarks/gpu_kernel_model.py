"""The GPU kernels' speed as far as it can be seen without a GPU: compiled figures and an issue model.

    python3 benchmarks/gpu_kernel_model.py [--games N] [--against REV] [--arch sm_80,sm_89,sm_90]

Nothing here runs on a GPU, and no figure is a measured speed. It needs
NVRTC (the `gpu` extra) and nvdisasm (`pip install '.[model]'`, the
nvidia-cuda-nvdisasm wheel); a CUDA toolkit's nvdisasm on PATH serves too.

1. What ptxas made of each kernel for each architecture, hands of 32 pieces
   (the standard deck's ring), from NVRTC's own compile with
   `--ptxas-options=-v`: registers, stack frame (local memory), spill stores
   and loads, static shared memory (the kernels take no dynamic shared
   memory); then the theoretical occupancy at the kernels' threads a block,
   by the rules of NVIDIA's occupancy calculator. And from the machine code
   (SASS, disassembled by nvdisasm with the source line of each instruction,
   `-lineinfo` changing none of them): the local loads (LDL) and stores
   (STL) in the code of each part of the game, counted in the code, not as
   executed: "per trick" is bg_trick and bg_step (a trick and its check for
   an end), "loop check" Brent's snapshot and comparison and a
   perturbation's cycle hash, "dealing" the deal and its random stream,
   unranking, or a perturbation's changes; "the rest" is kernel.cu's own
   code (the queue, its takes, the counts).

2. An issue model of bg_sample, what a warp issues for each deal: random
   deals of each shape (standard 26/26, a random split of the standard deck,
   camicia, the half deck) played trick by trick by the reference engine,
   each trick's path through bg_trick taken from its pile (the first player
   out of cards, or the penalty exchanges, and how the last one ended); then
   replayed lane by lane through kernel.cu's flat loop as it is written: a
   block of its threads, the deck's steps between barriers
   (engine.steps_between), a lane whose game ended takes the next dealt game
   of the block's queue or idles to the barrier when it is empty, a refill
   when half the queue is free in which threads 0 .. free - 1 deal one game
   each. Each step charges each warp the SASS's basic blocks (basic_blocks:
   the control-flow graph, split at labels and after branches) of the parts
   its lanes run (PARTS_OF_A_STEP; a block is of the part most of its
   instructions' source lines are in): a part's blocks once if any lane
   runs it; a loop's (a trick's exchanges, a take's copy, a hand's court
   cards in the dealing) blocks that every pass runs, whatever their source
   lines, for the most trips among the warp's lanes, as a warp issues them.
   A loop's exit, the blocks from its cycle to the BSYNC where its lanes
   wait for the rest, runs once a warp if the lanes that left it wait
   there together, or once for each group of lanes that leaves at the same
   trip, as independent thread scheduling may run it: both figures are
   printed, the first the one quoted. Out come the warp-instructions a
   deal, the active threads an instruction issued (SIMT efficiency: that
   over 32) and the deals a second they allow one H200 (132
   multiprocessors of 4 schedulers at 1.98 GHz) at 0.6 to 0.9 instructions
   issued a cycle a scheduler. A step's instructions wait on nothing here:
   latencies, bank conflicts and occupancy are in the issue rate, which
   only a device measures. With --against REV, the kernel of that git
   revision is modelled beside this one, on the same games.
   benchmarks/gpu_sass_walk.py counts the same code independently, lane by
   lane through its blocks, for the version it holds; the model agrees with
   it within 2 % (tests/test_kernel_model.py).
"""
import argparse
import collections
import itertools
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from beggar import engine
from beggar.deal import Deal
from beggar.decks import STANDARD, Deck
from beggar.gpu import cuda, source
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

#: The parts of the game, by the functions of GAME_FILES their code comes from.
#: (An instruction whose innermost line is in another file is "the rest".)
PARTS = {
    "per trick": {"bg_trick", "bg_step", "bg_pop", "bg_lay", "bg_head", "bg_size"},
    "loop check": {"bg_same", "bg_copy", "bg_state_hash", "bg_cycle_hash", "bg_known"},
    "dealing": {"bg_mix64", "bg_next32", "bg_below", "bg_stream_start", "bg_put", "bg_end_hand",
                "bg_place", "bg_put_hand", "bg_deal_random", "bg_exact_quotient", "bg_unrank",
                "bg_next_arrangement", "bg_deal_arrangement", "bg_deal_cards", "bg_state_insert",
                "bg_state_remove", "bg_change", "bg_perturbed", "bg_mutate", "bg_climb_propose",
                "bg_load_cards", "bg_draw_place", "bg_first_hand", "bg_deal_two"},
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


#: The files whose functions PARTS names: the game, and the random deal's steps it takes.
GAME_FILES = ("game.h", "deal.h")


def functions_of(texts):
    """[(file, first line, last line, name)] of the functions of GAME_FILES in `texts` ({name: text})."""
    spans = []
    for file in GAME_FILES:
        lines = texts.get(file, "").splitlines()
        for number, line in enumerate(lines, 1):
            found = re.match(r"BG_FN [^(]*\b(bg_\w+)\(", line)
            if found:
                end = next(n for n in range(number, len(lines) + 1) if lines[n - 1] == "}")
                spans.append((file, number, end, found.group(1)))
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


def machine_code(nvdisasm, cubin, texts):
    """{kernel: {part: [LDL, STL]}} from the SASS of `cubin` (built with
    -lineinfo), counted by the function (GAME_FILES') each instruction comes from."""
    spans = functions_of(texts)
    kernels = {}
    for kernel_name, (instructions, _) in read_sass(disassemble(nvdisasm, cubin)).items():
        counts = kernels[kernel_name] = {part: [0, 0] for part in [*PARTS, "the rest"]}
        for _, text, chain in instructions:
            where = chain[0] if chain else None         # the innermost inlined call's line
            name = next((n for file, first, last, n in spans
                         if where and where[0] == file and first <= where[1] <= last), None)
            access = re.search(r"\b(LDL|STL)(\.\w+)*\s", text)
            if access:
                part = next((p for p, names in PARTS.items() if name in names), "the rest")
                counts[part][access.group(1) == "STL"] += 1
    return kernels


def compiled_figures(arches, ring, cards):
    nvdisasm = tool("nvdisasm")
    texts = source.files()
    threads = cuda.block_threads(ring)
    print(f"compiled by NVRTC {cuda.nvrtc_version()}, ring {ring} and {cards} cards (the standard deck's), "
          f"{threads} threads a block; static counts from the code, nothing run")
    if nvdisasm is None:
        print("SASS: nvdisasm not found (pip install '.[model]'): local loads and stores left out")
    print()
    print(f"{'arch':6} {'kernel':10} {'regs':>5} {'stack B':>8} {'spills st/ld':>13} {'smem static/dyn':>16} "
          f"{'blocks/SM':>10} {'occupancy':>10}   "
          "LDL/STL: per trick, loop check, dealing, the rest")
    for arch in arches:
        cubin, log = cuda.compile_program(arch, ring, ["--ptxas-options=-v", "-lineinfo"], cards)
        figures = ptxas_figures(log)
        code = machine_code(nvdisasm, cubin, texts) if nvdisasm else {}
        for kernel in cuda.KERNELS:
            f = figures[kernel]
            blocks, occupied = occupancy(arch, f["registers"], f["shared"], threads)
            local = code.get(kernel)
            said = ", ".join(f"{a}/{b}" for a, b in local.values()) if local else "-"
            print(f"{arch:6} {kernel:10} {f['registers']:5} {f['stack']:8,} "
                  f"{f['spill_stores']:>6}/{f['spill_loads']:<6} {f['shared']:>10,}/0     "
                  f"{blocks:10} {occupied:10.0%}   {said}")


# ---------------------------------------------------------------- the issue model

#: One H200: multiprocessors, schedulers each, clock (Hz); issue rates modelled.
H200 = {"multiprocessors": 132, "schedulers": 4, "clock": 1.98e9}
ISSUE_RATES = (0.6, 0.75, 0.9)

#: The parts of bg_sample's flat loop, as its source holds them:
#: (name, file, function, anchor, kind[, via]). kind: "function" (the whole
#: function), "block" (the anchor's line to the brace that closes the one it
#: opens, or to its statement's end), "line", "enclosing" (the block around
#: the anchor's line). An instruction belongs to the smallest part that holds
#: a line of its chain of inlined calls, innermost first; a part with `via`
#: only where that chain passes through a line that matches it (the two
#: hands' copies of bg_put_hand). A part whose anchor a revision lacks (the
#: pile's copy where there is no pile) is not in its code.
PARTS_OF_A_STEP = [
    ("loop", "kernel.cu", "bg_flat", r"for \(int step = 0; step < steps; step\+\+\)", "line"),
    ("loop", "kernel.cu", "bg_flat", r"if \(!playing\) \{", "line"),
    ("queue", "kernel.cu", "bg_flat", r"bg_u32 slot = BG_ADD32\(&m->head, 1\);", "line"),
    ("queue", "kernel.cu", "bg_flat", r"if \(slot >= limit\)", "block"),
    ("take", "kernel.cu", "bg_flat", r"if \(!playing\) \{", "block"),
    ("take", "kernel.cu", "bg_take", None, "function"),
    ("take loop", "kernel.cu", "bg_take", r"for \(int k = 0; k < pairs; k\+\+\)", "block"),
    ("take loop 0", "kernel.cu", "bg_take", r"for \(int k = 0; k < pairs0; k\+\+\)", "block"),
    ("take loop 1", "kernel.cu", "bg_take", r"for \(int k = 0; k < pairs1; k\+\+\)", "block"),
    ("step", "game.h", "bg_step", None, "function"),
    ("step", "kernel.cu", "bg_flat", r"int status = bg_step\(", "line"),
    ("step", "kernel.cu", "bg_flat", r"if \(status >= 0\) \{", "line"),
    ("snapshot", "game.h", "bg_step", r"if \((brent->steps == brent->power|g->tricks == brent->due)\) \{", "block"),
    ("compare", "game.h", "bg_same", None, "function"),
    ("trick", "game.h", "bg_trick", None, "function"),
    ("runout", "game.h", "bg_trick", r"if \(!court\) \{", "block"),
    ("exchange", "game.h", "bg_trick", r"for \(;;\) \{", "block"),
    ("paid", "game.h", "bg_trick", r"if \(run >= owed\) \{", "block"),
    ("payer out", "game.h", "bg_trick", r"if \(!\(piece & BG_COURT_MASK\)\) \{", "block"),
    ("copy", "game.h", "bg_trick", r"for \(int i = 0; i < n; i\+\+\)", "block"),
    ("end", "kernel.cu", "bg_flat", r"if \(status >= 0\) \{", "block"),
    ("round", "kernel.cu", "bg_flat", r"if \(playing\)$", "block"),
    ("round", "kernel.cu", "bg_flat", r"BG_SYNC\(\);$", "line"),
    ("round", "kernel.cu", "bg_flat", r"if \(m->done\)$", "block"),
    ("round", "kernel.cu", "bg_flat", r"bg_u32 free_entries = ", "line"),
    ("round", "kernel.cu", "bg_flat", r"if \(m->refill && !dry", "line"),
    ("round", "kernel.cu", "bg_flat", r"limit = m->tail \+ m->filled;", "line"),
    ("leader", "kernel.cu", "bg_flat", r"m->tail \+= m->filled;", "enclosing"),
    ("grab", "kernel.cu", "bg_flat", r"while \(!dealt\) \{", "block"),
    ("new run", "kernel.cu", "bg_flat", r"if \(run == run_end\) \{", "block"),
    ("deal", "kernel.cu", "bg_flat", r"int dealt = 0;", "line"),
    ("deal", "kernel.cu", "bg_flat", r"if \(dealt\) \{", "block"),
    ("deal", "game.h", "bg_deal_random", None, "function"),
    ("deal", "game.h", "bg_put_hand", None, "function"),
    ("deal", "game.h", "bg_end_hand", None, "function"),
    ("places", "game.h", "bg_deal_random", r"for \(int k = 0; k < \(total \+ 3\) / 4; k\+\+\)", "block"),
    ("shuffle", "game.h", "bg_deal_random", r"for \(int i = 0; i < n_courts; i\+\+\) \{", "block"),
    ("split", "game.h", "bg_deal_random", r"if \(drawn\) \{", "block"),
    ("placement", "game.h", "bg_deal_random", r"for \(int i = 0; i < n_courts; i\+\+\)$", "block"),
    ("rejection", "random.h", "bg_below", r"if \(low < n\) \{", "block"),
    ("kept", "kernel.cu", "bg_keep", None, "function"),
    ("long game", "lengths.h", "bg_length_bin", r"if \(cards < BG_LENGTHS_TOP\)", "block"),
    # (This if's test too: only a length past the exact ones comes to it.)
    ("long game", "lengths.h", "bg_length_bin", r"if \(cards < BG_LENGTHS_TOP\)", "line"),
    ("long game", "kernel.cu", "bg_record", r"BG_ADD64\(&l->lengths\[bin\], 1\);", "line"),
    ("put hand 0", "game.h", "bg_put_hand", r"while \(bits\) \{", "block", r"bg_put_hand\(e, 0,"),
    ("put hand 1", "game.h", "bg_put_hand", r"while \(bits\) \{", "block", r"bg_put_hand\(e, 1,"),
]

#: The loops whose trips the replay counts. A part the replay never charges
#: is taken never to run: "rejection", a draw's second try (at most 1 in
#: 2^26 draws of the standard deck); "kept" and "long game", a game handed
#: to the host and a length past 3,000 cards (1 in 1.5 * 10^6 games) or
#: past 1,023, its bin in global memory (1 in 110 standard games);
#: "compare", Brent's comparison past a snapshot's sizes.
LOOPS = {"exchange", "copy", "take loop", "take loop 0", "take loop 1", "places", "shuffle", "placement",
         "put hand 0", "put hand 1"}
#: Those of them that count their iterations (a `for` to a bound), which a
#: compiler may unroll.
COUNTED = {"copy", "take loop", "take loop 0", "take loop 1", "places", "shuffle", "placement"}

Instruction = collections.namedtuple("Instruction", "address text chain")

#: A part's instructions: run once when a lane enters it (`once`); its loop's
#: cycle, run once a trip (`cycle`, a trip `unroll` iterations of the source
#: loop); an unrolled loop's finishing copies of its body, `remainder`
#: instructions for each of the iterations modulo `unroll`; its exit
#: (`exit`), the blocks from the end of the cycle to the BSYNC where the
#: lanes that left it wait for the rest, run once a warp if the lanes leave
#: together, once an exit group (the lanes that leave at the same trip) if
#: each group runs its exit as it leaves (independent thread scheduling).
Cost = collections.namedtuple("Cost", "once cycle unroll remainder exit")

#: A basic block of the SASS: its instructions `first` .. `last` (indices),
#: the addresses it may branch to, whether it may fall through to the next.
Block = collections.namedtuple("Block", "first last targets falls")

#: A convergence region's opening (its label: where its lanes go on
#: together, after its BSYNC); the instructions that end a basic block, and
#: those of them after which the next instruction is not reached (unless
#: predicated).
REGION = re.compile(r"\bBSSY\s+B\d+,\s*`?\(?(\.L_x_\d+)")
ENDS_BLOCK = re.compile(r"\b(BRA|BRX|JMP|EXIT|RET|BREAK|CALL|KILL)\b")
NO_FALL = re.compile(r"^(BRA|BRX|JMP|EXIT|RET)\b")


def basic_blocks(instructions, labels):
    """The control-flow graph of a kernel's SASS, [Block] in address order:
    a block starts at a label (a branch's target, or a BSSY's: where the
    lanes of its convergence region go on together after its BSYNC) and
    ends at a branch, an EXIT, a RET, a BREAK or a CALL."""
    starts = set(labels.values())
    blocks, first = [], 0
    for k, instruction in enumerate(instructions):
        last = k + 1 == len(instructions)
        if not last and instructions[k + 1].address not in starts and not ENDS_BLOCK.search(instruction.text):
            continue
        text = instruction.text
        targets = tuple(labels[name] for name in re.findall(r"(\.L_x_\d+)", text)
                        if re.search(r"\b(BRA|BRX|JMP)\b", text) and name in labels)
        blocks.append(Block(first, k, targets, not NO_FALL.match(text)))
        first = k + 1
    return blocks


def function_span(lines, name):
    """(first, last) line (from 1) of function `name` in `lines`, or None."""
    for number, line in enumerate(lines, 1):
        if re.match(rf"(BG_FN|BG_KERNEL)\b[^(]*\b{name}\(", line):
            return number, next(n for n in range(number, len(lines) + 1) if lines[n - 1] == "}")
    return None


def statement_span(lines, number, kind):
    """(first, last) of the statement at line `number` (see PARTS_OF_A_STEP)."""
    code = [re.sub(r"/\*.*?\*/|//.*", "", line) for line in lines]
    if kind == "line":
        return number, number
    if kind == "enclosing":
        depth = 0
        for n in range(number - 1, 0, -1):
            depth += code[n - 1].count("}") - code[n - 1].count("{")
            if depth < 0:
                return statement_span(lines, n, "block")
        raise ValueError(f"no block around line {number}")
    depth, opened = 0, False
    for n in range(number, len(lines) + 1):
        for char in code[n - 1]:
            if char in "{}":
                depth += 1 if char == "{" else -1
                opened = True
                if depth == 0:
                    return number, n
        if not opened and n > number and code[n - 1].rstrip().endswith(";"):
            return number, n
    raise ValueError(f"no end to the statement at line {number}")


def part_spans(texts):
    """[(name, file, first, last, via)] of PARTS_OF_A_STEP in the source
    `texts` ({name: text}); `via`: the lines of game.h a chain must pass."""
    spans = []
    for name, file, function, anchor, kind, *via in PARTS_OF_A_STEP:
        lines = texts[file].splitlines()
        found = function_span(lines, function)
        if found is None:
            continue
        first, last = found
        through = None
        if via:
            through = {n for n, line in enumerate(texts["game.h"].splitlines(), 1) if re.search(via[0], line)}
        if anchor is None:
            spans.append((name, file, first, last, through))
            continue
        for n in range(first, last + 1):
            if re.search(anchor, lines[n - 1].strip()):
                first, last = statement_span(lines, n, kind)
                # An if's test runs for every lane that comes to it: its
                # line is the enclosing part's, the part its body.
                if kind == "block" and re.match(r"\s*(\} else )?if \(", lines[n - 1]):
                    first += 1
                spans.append((name, file, first, last, through))
    return spans


def part_of(chain, spans):
    """The part of an instruction whose chain of inlined calls is `chain`."""
    for file, line in chain:
        held = [(last - first, name) for name, where, first, last, through in spans
                if where == file and first <= line <= last
                and (through is None or any(f == "game.h" and n in through for f, n in chain))]
        if held:
            return min(held)[1]
    return None


def disassemble(nvdisasm, cubin):
    """nvdisasm -c -gi's text of `cubin`: each instruction, and before the
    first of each new source line its chain of inlined calls."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kernel.cubin"
        path.write_bytes(cubin)
        return subprocess.run([nvdisasm, "-c", "-gi", str(path)], capture_output=True, text=True,
                              check=True).stdout


def read_sass(sass):
    """{kernel: ([Instruction], {label: address})} from nvdisasm -c -gi's
    text, each instruction with its chain of inlined calls, innermost first."""
    kernels, chain, fresh, pending = {}, [], True, []
    for line in sass.splitlines():
        found = re.match(r"\s*\.text\.(\w+):", line)
        if found:
            kernel = kernels[found.group(1)] = ([], {})
            continue
        found = re.match(r"(\.L_x_\d+):", line)
        if found:
            pending.append(found.group(1))
            continue
        found = re.search(r'//## File "[^"]*?([\w.]+)", line (\d+)', line)
        if found:
            if fresh:
                chain = []
            chain.append((found.group(1), int(found.group(2))))
            fresh = False
            continue
        found = re.match(r"\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*;", line)
        if not found or not kernels:
            continue
        fresh = True
        for label in pending:
            kernel[1][label] = int(found.group(1), 16)
        pending = []
        kernel[0].append(Instruction(int(found.group(1), 16), found.group(2), tuple(chain)))
    return kernels


def block_parts(instructions, labels, spans):
    """Each instruction's part, by its basic block: the part most of the
    block's instructions come from by their source lines (ties: the first;
    None, no part, where most are in none: the launch's set-up). A block runs
    whole or not at all, so its few instructions that the compiler gives
    another part's lines (a test, an address) are run as its own are."""
    parts = [part_of(i.chain, spans) for i in instructions]
    at = {i.address: k for k, i in enumerate(instructions)}
    blocks = basic_blocks(instructions, labels)
    for block in blocks:
        part = collections.Counter(parts[block.first:block.last + 1]).most_common(1)[0][0]
        parts[block.first:block.last + 1] = [part] * (block.last - block.first + 1)
    # A BSYNC alone in its block is run by every lane that entered its
    # region: it is of the part of the block that opened it (its BSSY; the
    # region's label is where the lanes go on together, after the BSYNC).
    lone = {b.first for b in blocks if b.first == b.last}
    for k, instruction in enumerate(instructions):
        region = REGION.search(instruction.text)
        closing = at[labels[region.group(1)]] - 1 if region else None
        if closing in lone and instructions[closing].text.startswith("BSYNC"):
            parts[closing] = parts[k]
    return parts


def every_pass(instructions, labels, start, end):
    """The instructions of the cycle start .. end (a branch back at `end` to
    `start`) that every pass runs: those of the blocks that no path from its
    first block to its last goes round (each block dominates the branch back)."""
    blocks = [b for b in basic_blocks(instructions, labels) if start <= b.first and b.last <= end]
    number = {instructions[b.first].address: n for n, b in enumerate(blocks)}

    def reaches(avoid):
        seen, todo = {0}, [0]
        while todo:
            n = todo.pop()
            if n == len(blocks) - 1:
                return True
            nexts = [number[t] for t in blocks[n].targets if t in number]
            nexts += [n + 1] if blocks[n].falls and n + 1 < len(blocks) else []
            for m in nexts:
                if m != avoid and m not in seen:
                    seen.add(m)
                    todo.append(m)
        return False
    return {k for n, b in enumerate(blocks) if n in (0, len(blocks) - 1) or not reaches(n)
            for k in range(b.first, b.last + 1)}


def part_costs(instructions, labels, spans):
    """({part: Cost}, instructions in no part), by basic blocks. A cycle is
    the span of a branch back to an earlier label; it is a counted loop's
    where its branch's block is of the loop's part, the loop's own cycle
    where no larger cycle of the same loop holds it. A block of a loop's own
    cycle that every pass runs is the cycle's, whatever its source lines; one
    that only some passes run (a draw's rejection) is charged as its part is;
    one inside a smaller cycle of the loop (the rejection's own) is taken
    never to go round. The blocks after a cycle up to the BSYNC that closes
    the convergence region around it, all of the loop's part, are its exit."""
    parts = block_parts(instructions, labels, spans)
    at = {i.address: k for k, i in enumerate(instructions)}
    cycles = []
    for k, i in enumerate(instructions):
        found = re.search(r"\bBRA\b.*?(\.L_x_\d+)", i.text)
        if found and labels.get(found.group(1), i.address) < i.address:
            loop = parts[k] if parts[k] in LOOPS else None
            cycles.append((at[labels[found.group(1)]], k, loop))
    # The steps' loop (the cycle that branches back from its code): its
    # code outside that cycle, the loop's set-up and end, runs once a round.
    steps = [(start, end) for start, end, _ in cycles if parts[end] == "loop"]
    for k, part in enumerate(parts):
        if part == "loop" and not any(start <= k <= end for start, end in steps):
            parts[k] = "round"
    own = [c for c in cycles if c[2] and not any(o != c and o[2] == c[2] and o[0] <= c[0] and c[1] <= o[1]
                                                 for o in cycles)]
    passes = {c: every_pass(instructions, labels, c[0], c[1]) for c in own}
    # A loop the compiler unswitched (the shuffle: a copy that places each
    # card as it is drawn, a shorter one for a split drawn after) has a
    # cycle in each copy, and a lane runs one: the loop is charged its
    # longest, "<loop> twin" its shorter. (An unrolled loop's cycles, a step
    # of several iterations and one of the rest, both run.)
    single = [c for c in own if counter_step(instructions, [c]) == 1]
    twins = [c for c in single if any(len(passes[o]) > len(passes[c]) or (len(passes[o]) == len(passes[c]) and o < c)
                                      for o in single if o[2] == c[2] and o != c)]
    own = [c for c in own if c not in twins]
    # The label of a region opened before a cycle: where its lanes go on together.
    ends = [(k, at[labels[r.group(1)]]) for k, i in enumerate(instructions) for r in [REGION.search(i.text)] if r]
    exits = collections.defaultdict(list)
    for start, end, loop in own:
        after = min((label for k, label in ends if k < start and label > end), default=None)
        if after is not None and all(p == loop for p in parts[end + 1:after]):
            exits[loop] += range(end + 1, after)
    exiting = {k for ks in exits.values() for k in ks}
    rest, cycle, placed = collections.defaultdict(list), collections.defaultdict(list), 0
    for k, part in enumerate(parts):
        held = [(end - start, (start, end, loop)) for start, end, loop in own if start <= k <= end]
        mine = min(held)[1] if held else None
        loop = mine[2] if mine else None
        if loop and any(c[0] <= k <= c[1] and c[2] == loop and c not in own for c in cycles) \
                or any(c[0] <= k <= c[1] for c in twins):
            continue
        if loop and k in passes[mine]:
            cycle[loop].append(k)
        elif k in exiting:
            pass
        elif part:
            rest[part].append(k)
        else:
            continue
        placed += 1
    starts = set(labels.values())

    def stores(instruction):
        return bool(re.match(r"(@!?P\d\s+)?ST[SLG]\b", instruction.text))

    costs = {}
    for name in set(rest) | set(cycle) | set(exits):
        # A counted loop that the compiler unrolled: its cycle holds `unroll`
        # copies of the body, and the code after it the copies that finish
        # the last iterations, the rest's basic blocks that store (the
        # cycle's stores are `unroll` times an iteration's, the finishing
        # copies' `unroll` - 1 times).
        once, remainder, unroll = rest[name], 0, 1
        if name in COUNTED:
            blocks, current = [], []
            for k in once:
                if current and (k != current[-1] + 1 or instructions[k].address in starts):
                    blocks.append(current)
                    current = []
                current.append(k)
                if re.search(r"\bBRA\b", instructions[k].text):
                    blocks.append(current)
                    current = []
            blocks.append(current)
            copies = [k for b in blocks if any(stores(instructions[j]) for j in b) for k in b]
            looped, finishing = sum(map(stores, (instructions[k] for k in cycle[name]))), \
                sum(map(stores, (instructions[k] for k in copies)))
            if copies and looped > finishing > 0:
                unroll = looped // (looped - finishing)
            elif not looped:
                # A body that stores nothing: the step of the counter that
                # its branch back tests.
                unroll = counter_step(instructions, [c for c in own if c[2] == name])
                copies = []
            if unroll > 1 and copies:
                remainder = len(copies) / (unroll - 1)
                once = [k for k in once if k not in set(copies)]
        costs[name] = Cost(len(once), len(cycle[name]), unroll, remainder, len(exits[name]))
    for start, end, loop in twins:
        costs[f"{loop} twin"] = costs[loop]._replace(cycle=len(passes[(start, end, loop)]))
    return costs, len(instructions) - placed


def counter_step(instructions, cycles):
    """The largest step (at most 8) of a register that a cycle adds a
    constant to and its branch back tests, or 1."""
    unroll = 1
    for start, end, _ in cycles:
        predicate = re.match(r"@!?(P\d)\s+BRA", instructions[end].text)
        if not predicate:
            continue
        test = next((instructions[k].text for k in range(end - 1, start - 1, -1)
                     if re.match(rf"I?SETP\S* {predicate.group(1)},", instructions[k].text)), "")
        for k in range(start, end):
            step = re.match(r"(?:VIADD|IADD3) (R\d+), (R\d+), (?:RZ, )?(0x[0-9a-f]+)$", instructions[k].text)
            if step and step.group(1) == step.group(2) and re.search(rf"\b{step.group(1)}\b", test):
                value = int(step.group(3), 16)
                value = (1 << 32) - value if value >= 1 << 31 else value
                if value <= 8:
                    unroll = max(unroll, value)
    return unroll


def kernel_sources(revision=None):
    """{name: text} of kernel.cu and the headers it includes: as shipped, or
    at a git revision of this repository."""
    if revision is None:
        return source.files()
    return source.files(lambda name: at_revision(revision, name))


def at_revision(revision, name):
    """The text of the kernels' file `name` at a git revision, from the
    package's folders in source.FOLDERS' order (the headers were all in gpu/ once)."""
    for folder in source.FOLDERS:
        shown = subprocess.run(["git", "-C", str(Path(__file__).parent), "show",
                                f"{revision}:src/beggar/{folder}/{name}"], capture_output=True, text=True)
        if shown.returncode == 0:
            return shown.stdout
    raise SystemExit(f"gpu_kernel_model: no {name} in src/beggar/{{{','.join(source.FOLDERS)}}} at {revision}")


def sample_costs(texts, nvdisasm, arch, ring, cards):
    """({part: Cost}, instructions of bg_sample in no part, its instructions)
    of bg_sample as NVRTC compiles `texts` for `arch`."""
    cubin = cuda.compile_program(arch, ring, ["-lineinfo"], cards, texts)[0]
    instructions, labels = read_sass(disassemble(nvdisasm, cubin))["bg_sample"]
    costs, unplaced = part_costs(instructions, labels, part_spans(texts))
    return costs, unplaced, len(instructions)


# ---------------------------------------------------------------- the games

class Games:
    """Random deals played trick by trick by the engine, as bg_trick plays
    them, the tricks of all games end to end: each trick's penalty exchanges
    (court cards a payer laid), whether the first player ran out before a
    court card, whether the last payer ran out; each game's first trick and
    its deal's court cards a hand. A game still going after `longest`
    tricks is cut there (a loop, which the kernel meets a snapshot in)."""

    def __init__(self, deck, split, count, seed=2026, longest=4096):
        exchanges, runout, out, starts, courts = [], [], [], [0], []
        for index in range(count):
            deal = Deal.shuffled(seed=seed, index=index, deck=deck, split=split)
            for trick in itertools.islice(engine.tricks(deal), longest):
                laid = [k for k, card in enumerate(trick.pile) if card]
                exchanges.append(max(len(laid) - 1, 0))
                runout.append(not laid)
                out.append(bool(laid) and len(trick.pile) - 1 - laid[-1] < trick.pile[laid[-1]])
            starts.append(len(exchanges))
            courts.append([sum(1 for card in hand if card) for hand in deal.hands])
        self.exchanges, self.runout, self.out = np.array(exchanges), np.array(runout), np.array(out)
        self.starts, self.courts = np.array(starts), np.array(courts)
        self.count = count

    def mean_tricks(self):
        return len(self.exchanges) / self.count


# ---------------------------------------------------------------- the replay

class Issue:
    """What a block's warps issue, counted part by part."""

    def __init__(self, costs, threads):
        self.costs, self.threads, self.warps = costs, threads, -(-threads // LANES)
        self.instructions = self.threads_issued = 0
        # What independent thread scheduling adds: a loop's exit run once by
        # each group of lanes that leaves it at the same trip, not once a warp.
        self.exit_groups = 0
        self.parts = collections.Counter()      # warp-instructions by part

    def charge(self, name, lanes, trips=None):
        """Part `name` for the block's `lanes` (a mask), a loop for its
        `trips` a lane: each warp issues it if any of its lanes runs it."""
        cost = self.costs.get(name)
        if cost is None or not lanes.any():
            return
        before = self.instructions
        self._charge(cost, lanes, trips)
        self.parts[name] += self.instructions - before

    def _charge(self, cost, lanes, trips):
        padded = np.zeros(self.warps * LANES, bool)
        padded[:self.threads] = lanes
        runs = padded.reshape(self.warps, LANES)
        self.instructions += (cost.once + cost.exit) * int(runs.any(axis=1).sum())
        self.threads_issued += (cost.once + cost.exit) * int(runs.sum())
        if trips is None or not (cost.cycle or cost.remainder):
            return
        counts = np.zeros(self.warps * LANES, np.int64)
        counts[:self.threads] = np.where(lanes, trips, 0)
        counts = counts.reshape(self.warps, LANES)
        if cost.exit:
            # The distinct trips among each warp's lanes that run the loop.
            ordered = np.sort(np.where(runs, counts, -1), axis=1)
            groups = ((np.diff(ordered, axis=1) != 0) & (ordered[:, 1:] >= 0)).sum(axis=1) + (ordered[:, 0] >= 0)
            self.exit_groups += cost.exit * int((groups - runs.any(axis=1)).sum())
        passes = counts // cost.unroll
        self.instructions += cost.cycle * int(passes.max(axis=1).sum())
        self.threads_issued += cost.cycle * int(passes.sum())
        if cost.remainder:
            left = counts % cost.unroll
            self.instructions += round(cost.remainder * int(left.max(axis=1).sum()))
            self.threads_issued += round(cost.remainder * int(left.sum()))


def replay(games, first, last, costs, threads, steps, deck, drawn, grab=8, brent=1024):
    """The Issue of one block of `threads` playing games first .. last - 1
    through kernel.cu's flat loop (see the top)."""
    issue = Issue(costs, threads)
    lanes = np.arange(threads)
    places, n_courts = np.full(threads, (deck.total + 3) // 4), np.full(threads, len(deck.courts))
    at = np.full(threads, -1)               # each lane's next trick (of Games' tricks), -1: no game
    end = np.zeros(threads, np.int64)       # its game's end
    since = np.zeros(threads, np.int64)     # tricks since the take
    pairs = np.zeros((2, threads), np.int64)
    run_left = np.zeros(threads, np.int64)  # deals left of the lane's run of `grab`
    queue, dealt = collections.deque(), first
    dry = np.zeros(threads, bool)
    everyone = np.ones(threads, bool)
    while True:
        looping = everyone.copy()
        for _ in range(steps):
            issue.charge("loop", looping)
            takers = looping & (at < 0)
            issue.charge("queue", takers)
            order = np.nonzero(takers)[0]
            took = order[:len(queue)]
            looping[order[len(queue):]] = False
            if len(took):
                taken = np.array([queue.popleft() for _ in took])
                at[took], end[took], since[took] = games.starts[taken], games.starts[taken + 1], 0
                # A hand's pieces: its court cards and its trailing plain cards.
                pairs[:, took] = ((games.courts[taken] + 2) // 2).T
                taking = np.zeros(threads, bool)
                taking[took] = True
                issue.charge("take", taking)
                issue.charge("take loop", taking, pairs.max(axis=0))
                issue.charge("take loop 0", taking, pairs[0])
                issue.charge("take loop 1", taking, pairs[1])
            on = looping & (at >= 0)
            if not on.any():
                continue
            now = np.where(on, at, 0)
            exchanges, runout, out = games.exchanges[now], games.runout[now] & on, games.out[now]
            issue.charge("step", on)
            issue.charge("trick", on)
            issue.charge("runout", runout)
            court = on & ~runout
            issue.charge("exchange", court, exchanges)
            issue.charge("paid", court & ~out)
            issue.charge("payer out", court & out)
            issue.charge("copy", on, np.where(court, exchanges + 1, 0))
            at[on] += 1
            since[on] += 1
            # Brent's snapshots: `brent` tricks after the take, then at each doubling.
            past = since - brent
            issue.charge("snapshot", on & (past >= 0) & ((past & (past + brent)) == 0))
            ended = on & (at == end)
            issue.charge("end", ended)
            at[ended] = -1
        issue.charge("round", everyone)
        issue.charge("leader", lanes == 0)
        if (at < 0).all() and not queue and dealt == last:
            break
        free = threads - len(queue)
        if free < (threads + 1) // 2:
            continue
        dealers = (lanes < free) & ~dry
        fresh = np.zeros(threads, bool)
        for lane in np.nonzero(dealers)[0]:
            if dealt == last:
                dry[lane] = True
                continue
            fresh[lane] = True
            queue.append(dealt)
            dealt += 1
        issue.charge("grab", dealers)
        issue.charge("new run", dealers & (run_left == 0))
        run_left[dealers & (run_left == 0)] = grab
        run_left[fresh] -= 1
        courts = np.zeros((2, threads), np.int64)
        courts[:, fresh] = games.courts[np.arange(dealt - fresh.sum(), dealt)].T
        issue.charge("deal", fresh)
        issue.charge("places", fresh, places)
        issue.charge("shuffle twin" if drawn and "shuffle twin" in costs else "shuffle", fresh, n_courts)
        issue.charge("split", fresh & drawn)
        issue.charge("placement", fresh & drawn, n_courts)
        issue.charge("put hand 0", fresh, courts[0])
        issue.charge("put hand 1", fresh, courts[1])
    return issue


#: The parts a deal's instructions are told by: a trick (and the step around
#: it), a take from the queue, the dealing, the barriers.
GROUPS = {"play": {"loop", "step", "trick", "runout", "exchange", "paid", "payer out", "copy", "snapshot", "end"},
          "take": {"queue", "take", "take loop", "take loop 0", "take loop 1"},
          "deal": {"grab", "new run", "deal", "places", "shuffle", "shuffle twin", "split", "placement",
                   "put hand 0", "put hand 1"},
          "barrier": {"round", "leader"}}


def issue_model(games, per_block, builds, arch):
    """Print the issue model of bg_sample for each shape and each build
    ([(label, texts)]), on the same games."""
    nvdisasm = tool("nvdisasm")
    if nvdisasm is None:
        print("issue model: none (nvdisasm not found: pip install nvidia-cuda-nvdisasm, or '.[model]')")
        return
    ring = ring_of(STANDARD)
    threads = cuda.block_threads(ring)
    compiled = []
    for label, texts in builds:
        costs, unplaced, size = sample_costs(texts, nvdisasm, arch, ring, cuda.cards_of(STANDARD.total))
        compiled.append((label, costs))
        print(f"{label}: bg_sample for {arch}, {size:,} instructions, {unplaced:,} of them in no part of a "
              "step (the launch's start and end, other kinds' code)")
    rate = H200["multiprocessors"] * H200["schedulers"] * H200["clock"]
    print()
    print(f"issue model (a model, not a measurement): {games:,} random deals a shape played by the engine, "
          f"replayed in blocks of {threads} threads, {per_block:,} deals a block, NVRTC {cuda.nvrtc_version()}, "
          f"{arch}; deals a second on one H200 at "
          f"{', '.join(str(r) for r in ISSUE_RATES)} warp-instructions issued a cycle a scheduler")
    print()
    print("warp-instr/deal: each loop's exit (to the BSYNC where its lanes wait for the rest) run once a warp; "
          "exit groups: once by each group of lanes that leaves it at the same trip, as independent thread "
          "scheduling may run it (deals a second from the first)")
    print(f"{'shape':24} {'steps':>5} {'tricks':>6}  {'kernel':10} {'warp-instr/deal':>15} {'exit groups':>12} "
          f"{'play':>6} {'take':>5} {'deal':>5} {'barrier':>7} {'threads/instr':>13} {'SIMT':>5}  "
          "deals/s at " + " / ".join(str(r) for r in ISSUE_RATES))
    for name, deck, split in SHAPES:
        deck = Deck.parse(deck)
        between = steps_between(deck, split)
        played = Games(deck, split, games)
        for label, costs in compiled:
            issued = threads_issued = grouped = 0
            parts = collections.Counter()
            for first in range(0, games, per_block):
                issue = replay(played, first, min(first + per_block, games), costs, threads, between, deck,
                               split == "random")
                issued += issue.instructions
                grouped += issue.exit_groups
                threads_issued += issue.threads_issued
                parts += issue.parts
            each = issued / games
            groups = [sum(parts[p] for p in group) / games for group in GROUPS.values()]
            speeds = " / ".join(f"{r * rate / each / 1e9:.2f}" for r in ISSUE_RATES)
            print(f"{name:24} {between:5} {played.mean_tricks():6.1f}  {label:10} {each:15,.0f} "
                  f"{(issued + grouped) / games:12,.0f} "
                  + " ".join(f"{g:{w},.0f}" for g, w in zip(groups, (6, 5, 5, 7)))
                  + f" {threads_issued / issued:13.1f} {threads_issued / issued / LANES:5.2f}  "
                  f"{speeds} * 10^9")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=32768, help="deals a shape in the issue model (32,768)")
    parser.add_argument("--games-per-block", type=int, default=16384,
                        help="deals a block plays in the issue model (16,384; a launch of 2^24 deals on an "
                             "H200 gives each of its blocks about 25,000)")
    parser.add_argument("--against", metavar="REV", help="also model the kernel of this git revision")
    parser.add_argument("--arch", default="sm_80,sm_89,sm_90",
                        help="architectures of the compiled figures (sm_80,sm_89,sm_90); the issue model "
                             "takes the last")
    parser.add_argument("--issue", action="store_true", help="the issue model alone")
    args = parser.parse_args()
    arches = args.arch.split(",")
    unknown = [arch for arch in arches if arch not in LIMITS]
    if unknown or args.games_per_block < 1 or args.games < 1:
        parser.error(f"--arch takes {', '.join(LIMITS)}; --games and --games-per-block at least 1")
    ring = ring_of(STANDARD)
    try:
        if not args.issue:
            compiled_figures(arches, ring, cuda.cards_of(STANDARD.total))
            print()
        builds = [(args.against, kernel_sources(args.against))] if args.against else []
        issue_model(args.games, args.games_per_block, [*builds, ("this", kernel_sources())], arches[-1])
    except cuda.GpuFault as error:
        print(f"compiled figures: none ({error})")


if __name__ == "__main__":
    main()
