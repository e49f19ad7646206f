"""An independent count of what bg_sample's warps run: its machine code walked lane by lane.

    python3 benchmarks/gpu_sass_walk.py [--games N] [--games-per-block N]

gpu_sass_walk.sass is bg_sample's SASS of one version (VERSION), checked
in: no NVRTC or nvdisasm is needed to walk it. Real standard 26/26 deals
(seed 2026, deal i of the launch) are played by the engine, and each lane
of a block of 128 threads walks the SASS's basic blocks (the CFG of
gpu_kernel_model.basic_blocks) as the flat loop of kernel.cu hands it
games: at each conditional branch on a sample's path, BRANCHES says, for
this version's code read by hand, what the branch tests and so where the
lane goes (a trick's penalty exchanges, a take's place pairs, a game's
end, the queue, the refill, the deal's draws and hands). A warp runs its
lanes' blocks as a SIMT machine with a stack would: the group of its lanes at the
lowest address first, each block once for the lanes there, so that lanes
that left a loop wait for the rest where its code ends (a loop's exit run
once a warp). Out comes the warp-instructions a deal, to hold
benchmarks/gpu_kernel_model.py's issue model against (tests/test_kernel_model.py):
the model charges the same blocks by the parts of the code its replay
counts; this walk follows each lane through the code itself.

Left out, by both: the launch's start and end (once a block), and what
ordinary games never run: a draw's rejection (about 1 in 2^26 draws) and a
game kept for the host are taken not to happen; a game that would meet a
snapshot (1,024 tricks) or a length past 3,000 cards stops the walk. A
new version of bg_sample moves its addresses: the walk is then of the
version checked in, until its SASS and BRANCHES are read again.
"""
import argparse
import collections
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gpu_kernel_model import Games, basic_blocks, read_sass  # noqa: E402

#: The version walked: its commit, compiler and target, and its deck's sizes.
COMMIT = "1a2d45c"
VERSION = f"kernel.cu and game.h of {COMMIT}, NVRTC 12.9, sm_90, ring 32, 64 cards"
SASS = HERE / "gpu_sass_walk.sass"
THREADS, STEPS, GRAB, LANES = 128, 16, 8, 32
BRENT_START, SHARED_BINS, EXACT_LENGTHS = 1024, 1024, 3000
COURTS = 16                         # the standard deck's court cards
ROUND, DONE = 0x1310, 0x4a30        # the flat loop's head; the code after it

#: What each conditional branch of a sample's path tests, by its address:
#: whether a lane takes it (its source in kernel.cu and game.h).
BRANCHES = {
    0x1320: lambda lane: False,                             # step < steps: steps >= 1
    0x1380: lambda lane: lane.start_step(),                 # if (!playing): taken when playing
    0x1470: lambda lane: lane.now is None,                  # slot >= limit: the queue is empty
    0x1540: lambda lane: lane.start(0),                     # bg_take: no place pairs
    0x1680: lambda lane: lane.trip() < lane.now[0],         # ... another pair
    0x18b0: lambda lane: lane.trick[0],                     # bg_trick: !court, the first player out
    # The exchanges, tested before the loop and at the end of each pass:
    0x19a0: lambda lane: lane.start(lane.trick[1] == 0),    # none
    0x1b20: lambda lane: lane.trip() < lane.trick[1],       # another
    0x1d50: lambda lane: lane.trick[2],                     # bg_step: the game finished
    0x1d70: lambda lane: True,                              # no snapshot to compare with
    0x20c0: lambda lane: True,                              # tricks != due: no snapshot to take
    0x23e0: lambda lane: not lane.trick[2],                 # status < 0: the game goes on
    0x2420: lambda lane: False,                             # bg_record: the game finished
    0x2460: lambda lane: lane.trick[3] < EXACT_LENGTHS,     # bg_length_bin: an exact length
    0x2600: lambda lane: lane.trick[3] < SHARED_BINS,       # a bin in shared memory
    0x2790: lambda lane: True,                              # bg_sample_keeps: not kept
    0x2a40: lambda lane: lane.next_step(),                  # step < steps
    0x2a70: lambda lane: not lane.round.playing,            # if (playing) (the live count)
    0x2ad0: lambda lane: lane.thread != 0,                  # if (t == 0): the leader
    0x2cf0: lambda lane: lane.round.done,                   # if (m->done)
    0x2d70: lambda lane: lane.round.deal is None,           # a refill, and this thread deals
    0x2db0: lambda lane: not lane.round.deal[0],            # run == run_end: a new run
    0x2f50: lambda lane: not lane.round.deal[1],            # run >= count: dry
    # bg_deal_random: its free places set by stores of constants (no loop), each
    # court card's draw, its code a byte a place.
    0x33f0: lambda lane: lane.start(0),                     # n_courts >= 1
    0x35f0: lambda lane: True,                              # bg_below: low >= n, no rejection
    0x3aa0: lambda lane: lane.trip() < COURTS,              # the next court card
    0x3ad0: lambda lane: True,                              # split >= 0: no random first hand
    0x4200: lambda lane: lane.start(lane.round.deal[2][0] == 0),   # bg_put_hand 0: while (bits)
    0x4460: lambda lane: lane.trip() < lane.round.deal[2][0],
    0x45c0: lambda lane: lane.start(lane.round.deal[2][1] == 0),   # bg_put_hand 1
    0x4820: lambda lane: lane.trip() < lane.round.deal[2][1],
}

#: A lane's round: its steps ([(place pairs of a take or None, trick)], a
#: trick (first player out, exchanges, game finished, the game's cards);
#: fewer than STEPS where it found the queue empty), whether it plays on
#: after the round, whether the block is done, and its deal at the refill
#: (None, or (a new run, dry, (court cards of each hand))).
Round = collections.namedtuple("Round", "steps playing done deal")


class Lane:
    """A thread's state as it walks one round's blocks."""

    def __init__(self, thread, round_):
        self.thread, self.round, self.step, self.trips = thread, round_, -1, 0
        self.now = self.trick = None

    def start_step(self):
        self.step += 1
        self.now = self.round.steps[self.step] if self.step < len(self.round.steps) else None
        self.trick = self.now[1] if self.now else None
        return self.now is not None and self.now[0] is None

    def next_step(self):
        return self.step + 1 < STEPS

    def start(self, taken):
        self.trips = 0
        return taken

    def trip(self):
        self.trips += 1
        return self.trips


def schedule(games, first, last, threads=THREADS, steps=STEPS, grab=GRAB):
    """The rounds of one block playing deals first .. last - 1, [[Round] a thread], as
    kernel.cu's flat loop hands them out: each step, in thread order, a lane
    without a game takes the queue's next or stops to the barrier; at the
    barrier, a refill when half the queue is free, threads 0 .. free - 1
    each dealing its run's next deal (`grab` deals a run)."""
    queue, playing = collections.deque(), [None] * threads
    run, run_end, dry, next_run = [0] * threads, [0] * threads, [False] * threads, first
    rounds = []
    while True:
        taken = [[] for _ in range(threads)]
        stopped = [False] * threads
        for _ in range(steps):
            for t in range(threads):
                if stopped[t]:
                    continue
                take = None
                if playing[t] is None:
                    if not queue:
                        stopped[t] = True
                        continue
                    game = queue.popleft()
                    playing[t] = [game, 0]
                    pieces = [count + 1 for count in games.courts[game]]
                    take = max((n + 1) // 2 for n in pieces)
                game, at = playing[t]
                tricks = games.tricks[game]
                playing[t][1] += 1
                finished = at + 1 == len(tricks)
                taken[t].append((take, (*tricks[at], finished, games.cards[game])))
                if finished:
                    playing[t] = None
        done = all(p is None for p in playing) and not queue and all(dry)
        deal = [None] * threads
        free = threads - len(queue)
        if not done and free >= (threads + 1) // 2:
            for t in range(min(free, threads)):
                if dry[t]:
                    continue
                new = run[t] == run_end[t]
                if new:
                    run[t], next_run = next_run, next_run + grab
                    if run[t] >= last:
                        dry[t] = True
                        deal[t] = (True, True, None)
                        continue
                    run_end[t] = min(run[t] + grab, last)
                queue.append(run[t])
                deal[t] = (new, False, tuple(games.courts[run[t]]))
                run[t] += 1
        rounds.append([Round(taken[t], playing[t] is not None, done, deal[t])
                       for t in range(threads)])
        if done:
            return rounds


def walk_warp(blocks, lanes):
    """(warp-instructions, thread-instructions) of a warp's lanes walking
    one round from the flat loop's head to its end or back to its head."""
    index = {block.address: n for n, block in enumerate(blocks)}
    at = {lane: index[ROUND] for lane in lanes}
    issued = threads = 0
    while at:
        here = min(at.values())
        block = blocks[here]
        group = [lane for lane, n in at.items() if n == here]
        issued += block.size
        threads += block.size * len(group)
        for lane in group:
            if block.branch is None:
                going = block.target if block.target is not None and not block.falls else None
            elif block.branch not in BRANCHES:
                raise KeyError(f"gpu_sass_walk: a lane met the branch at {block.branch:#x}, which BRANCHES "
                               f"does not read ({block.text})")
            else:
                going = block.target if BRANCHES[block.branch](lane) else None
            address = going if going is not None else blocks[here + 1].address
            if address in (ROUND, DONE):
                del at[lane]
            else:
                at[lane] = index[address]
    return issued, threads


#: A basic block as the walk needs it: its first address, its size, the
#: address of its conditional branch (None if it has none), where a branch
#: goes, whether it may fall through, its last instruction.
Walked = collections.namedtuple("Walked", "address size branch target falls text")


def walked_blocks(sass):
    instructions, labels = read_sass(sass)["bg_sample"]
    blocks = []
    for block in basic_blocks(instructions, labels):
        last = instructions[block.last]
        conditional = block.targets and re.match(r"@!?P\d", last.text)
        blocks.append(Walked(instructions[block.first].address, block.last - block.first + 1,
                             last.address if conditional else None,
                             block.targets[0] if block.targets else None, block.falls, last.text))
    return blocks


class Played(Games):
    """Games' deals with each trick as the walk reads it: (first player out,
    penalty exchanges), and each game's cards."""

    def __init__(self, count):
        from beggar import engine
        from beggar.deal import Deal
        from beggar.decks import STANDARD
        super().__init__(STANDARD, None, count)
        self.tricks = [list(zip(self.runout[a:b].tolist(), self.exchanges[a:b].tolist()))
                       for a, b in zip(self.starts[:-1], self.starts[1:])]
        self.cards = [engine.play(Deal.shuffled(seed=2026, index=i, deck=STANDARD)).cards for i in range(count)]
        longest = max(map(len, self.tricks))
        if longest >= BRENT_START or max(self.cards) >= EXACT_LENGTHS:
            raise ValueError(f"gpu_sass_walk: a game of {longest} tricks or {max(self.cards)} cards, past what "
                             "the walk reads (a snapshot, a long game's bin)")


def walk(deals, per_block=None):
    """(warp-instructions a deal, threads active an instruction) of blocks of
    THREADS playing standard 26/26 deals 0 .. deals - 1, `per_block` a block
    (all in one by default)."""
    blocks = walked_blocks(SASS.read_text())
    games = Played(deals)
    issued = threads = 0
    for first in range(0, deals, per_block or deals):
        for round_ in schedule(games, first, min(first + (per_block or deals), deals)):
            for warp in range(THREADS // LANES):
                lanes = [Lane(t, round_[t]) for t in range(warp * LANES, (warp + 1) * LANES)]
                counted = walk_warp(blocks, lanes)
                issued += counted[0]
                threads += counted[1]
    return issued / deals, threads / issued


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=32768,
                        help="standard 26/26 deals walked (32,768, as the issue model's table)")
    parser.add_argument("--games-per-block", type=int, default=16384, help="deals a block plays (16,384)")
    args = parser.parse_args()
    if args.games < 1 or args.games_per_block < 1:
        parser.error("--games and --games-per-block take at least 1")
    each, active = walk(args.games, args.games_per_block)
    print(f"bg_sample walked lane by lane ({VERSION}): {args.games:,} standard 26/26 deals (seed 2026), "
          f"blocks of {THREADS} threads playing {args.games_per_block:,} each; a count of the version "
          "checked in, not a measurement")
    print(f"warp-instructions a deal {each:,.1f}   threads an instruction {active:.1f}   SIMT {active / LANES:.2f}")


if __name__ == "__main__":
    main()
