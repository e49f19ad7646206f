"""Fuzzing the compiled modules' entry points with random and adversarial
arguments: deals of 0, 1 or 5 hands, empty and huge hands, codes out of
range, arrays of the wrong dtype and shape, loop keys cut short or not hex,
states and searches that do not fit together.

Every call either returns what the reference engine returns for the same
arguments, or raises the same error (one of the package's, ValueError or
TypeError); a call without a reference twin (the loop factory's `_loops`,
the key reader) returns or raises one of those. None may crash, hang or read
out of bounds: the calls run in a child process, so that a crash is a failed
test naming the signal and the call, not a dead test run (and under the
debug build, BEGGAR_DEBUG=1, an access out of bounds is an IndexError, so a
mismatch).

The default run makes CALLS calls of one seed (a few seconds); `pytest -m
fuzz` makes BEGGAR_FUZZ_CALLS of them (default 200,000), one seed per core.
`python tests/test_fuzz_compiled.py SEED COUNT` runs one child by hand.
"""

import math
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

#: Calls in the default run: a few seconds on one core.
CALLS = 1500

#: Seconds a child may take for CALLS calls before it is taken for hung: far
#: beyond what any call takes (the slowest plays a few hundred small games).
PATIENCE = 300


# ---------------------------------------------------------------- the parent

def run_child(seed, count, timeout):
    """Run `count` calls of `seed` in a child process (at most `timeout`
    seconds; None: no bound): (problems as lines, calls made)."""
    process = subprocess.Popen([sys.executable, __file__, str(seed), str(count)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parent)
    try:
        out, err = process.communicate(timeout=timeout)
        status = process.returncode
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        status = None
    lines = out.splitlines()
    calls = [line[5:] for line in lines if line.startswith("call ")]
    problems = [line for line in lines if line.startswith("MISMATCH")]
    last = calls[-1] if calls else "(none yet)"
    if status is None:
        problems.append(f"seed {seed}: hung (no end in {timeout} s) in call {last}")
    elif status < 0:
        problems.append(f"seed {seed}: killed by signal {-status} ({signal.Signals(-status).name}) in call {last}")
    elif status != 0 or lines[-1:] != ["done"]:
        problems.append(f"seed {seed}: exit {status} after call {last}: {err[-2000:]}")
    return problems, len(calls)


def test_the_compiled_entry_points_survive_adversarial_calls():
    problems, calls = run_child(2026, CALLS, PATIENCE)
    assert not problems, f"{len(problems)} problems, first: {problems[:5]}"
    assert calls >= CALLS       # every case made at least one call


@pytest.mark.fuzz
def test_fuzz_the_compiled_entry_points():
    total = int(os.environ.get("BEGGAR_FUZZ_CALLS", 200_000))
    children = max(1, os.cpu_count() or 1)
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(children) as pool:
        runs = list(pool.map(lambda seed: run_child(seed, -(-total // children), None),
                             range(1, children + 1)))
    problems = [line for found, _ in runs for line in found]
    assert not problems, f"{len(problems)} problems, first: {problems[:5]}"


def test_a_crash_in_the_child_is_a_failure_naming_the_signal_and_the_call():
    # The harness itself: a child that dies by a signal is reported as such.
    problems, calls = run_child(-1, 3, PATIENCE)
    assert calls == 3 and len(problems) == 1, problems
    # Under the sanitizers' build AddressSanitizer reports the fault and exits 1: a failure all the same.
    died = "killed by signal 11 (SIGSEGV) in call " in problems[0] or "AddressSanitizer: SEGV" in problems[0]
    assert died and "crash on purpose" in problems[0], problems[0]


# ---------------------------------------------------------------- the child

def child(seed, count):
    import numpy as np

    from beggar import _engine as compiled
    from beggar import _loops, reference
    from beggar.errors import BadInput

    allowed = (BadInput, ValueError, TypeError)
    engines = {"compiled": compiled, "reference": reference}
    try:
        from beggar import engine as dispatcher
        engines["gpu-host"] = dispatcher.get("gpu-host")
    except Exception:       # no host build of the GPU kernels here
        pass
    _ENGINES_SEEN.update(engines)

    def say(text):
        sys.stdout.write(f"call {text[:300]}\n".replace("\r", "\\r"))
        sys.stdout.flush()

    def same(a, b):
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype \
                and np.array_equal(a, b)
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        return a == b

    def outcome_of(call):
        try:
            return "returned", call()
        except allowed as error:
            return "raised", type(error)

    def twins(name, call, against="reference", of="compiled"):
        """call(engine module) on both engines: the same result or the same error."""
        say(name)
        got, expected = outcome_of(lambda: call(engines[of])), outcome_of(lambda: call(engines[against]))
        if of == "gpu-host" and got[0] == "raised" and (expected[0] == "raised" or got[1].__name__ ==
                                                        "GpuRequestError"):
            return          # errors of its own, and tables it leaves to the compiled engine
        if got[0] != expected[0] or not same(got[1], expected[1]):
            print(f"MISMATCH {name[:300]}: {of} {got[0]} {str(got[1])[:200]}, "
                  f"{against} {expected[0]} {str(expected[1])[:200]}", flush=True)

    def alone(name, call):
        """A call without a twin: it returns, or raises an allowed error."""
        say(name)
        outcome_of(call)

    if seed < 0:        # the harness's own test
        import ctypes
        for i in range(count - 1):
            alone(f"nothing {i}", lambda: None)
        say("crash on purpose")
        ctypes.string_at(0)
        return

    rng = random.Random(seed)
    makers = _makers(rng, np)
    pool = makers["loop states"]()
    for _ in range(count):
        kind = rng.choice(KINDS)
        makers[kind](twins, alone, compiled, _loops, pool)
    print("done", flush=True)


KINDS = ("play", "play", "forged", "batch", "sample", "climb", "census", "predecessors", "predecessors",
         "backward", "backward_to", "key", "key", "of_state", "grow", "perturb")


def _makers(rng, np):
    """The makers of each kind of call, drawing from `rng`."""
    from beggar import Deal, Rules, cycle, loops
    from beggar.census import count as arrangements
    from beggar.climbing import ClimbRules
    from beggar.cycle import state_key
    from beggar.deal import DealError
    from beggar.decks import Deck
    from beggar.states import GUIDES

    BAD_CODES = [-1, 5, 7, 255, 256, 2 ** 64, 1.5, True, None, "K", b"\x01", [1], math.nan]
    SMALL_DECKS = ["4 1J 1Q", "6 2J", "5 1J 1K", "3 1J 1Q 1K 1A", "8 2J 1Q", "2 1A", "1 1J"]

    def code():
        return rng.choice((0, 0, 0, 1, 2, 3, 4))

    def hand(size):
        return [code() for _ in range(size)]

    def good_hands(players=None, most=16):
        players = players or rng.randint(2, 4)
        while True:
            hands = [hand(rng.randint(0, most)) for _ in range(players)]
            if hands[0] and any(hands[1:]):
                return hands

    def bad_hands():
        """Hands a deal may not have, or, now and then, hands it may."""
        pick = rng.randrange(14)
        if pick == 0:
            return [good_hands()[0] for _ in range(rng.choice((0, 1, 5, 6)))]
        if pick == 1:
            hands = good_hands()
            hands[0] = []
            return hands
        if pick == 2:
            return [[] for _ in range(rng.randint(2, 4))]
        if pick == 3:
            hands = good_hands()
            return [hands[0]] + [[] for _ in hands[1:]]
        if pick == 4:
            hands = good_hands()
            h = rng.randrange(len(hands))
            hands[h] = list(hands[h]) + [rng.choice(BAD_CODES)]
            return hands
        if pick == 5:
            return [hand(rng.choice((65536, 70000, 40000))), hand(rng.choice((1, 30000)))]
        if pick == 6:
            return [hand(rng.randint(256, 300)), hand(rng.randint(1, 40))]    # over MAX_DECK, not MAX_CARDS
        if pick == 7:
            return rng.choice(("K-/Q-", b"\x01\x00", 5, None, [5, 6], ["K-", "Q-"], [b"\x01", b"\x00"]))
        if pick == 8:
            return [np.array(h, dtype=rng.choice((np.uint8, np.int64, np.float64, np.int8)))
                    for h in good_hands()]
        if pick == 9:
            return tuple(tuple(h) for h in good_hands())
        return good_hands(most=rng.choice((4, 16, 40)))

    def rules():
        pick = rng.randrange(6)
        if pick == 0:
            return Rules(max_cards=rng.randint(1, 400))
        if pick == 1:
            return Rules(max_tricks=rng.randint(1, 60))
        if pick == 2:
            return Rules(max_tricks=rng.randint(1, 60), detect_loops=False)
        return Rules()

    def deck():
        return rng.choice(SMALL_DECKS + SMALL_DECKS + ["standard", "half", "0", "", "x", "300", "1J", "2J",
                                                       "255 0J 0Q", 52, None, Deck((3, 1, 1, 0, 0))])

    def whole(low, high, huge=True):
        """A whole number from low to high, or at times none; `huge`: or one
        far too large (False for a count of games, which would be played)."""
        if rng.random() < 0.2:
            return rng.choice((-1, 1.5, True, None, "3", -(2 ** 63), math.inf)
                              + ((2 ** 64, 2 ** 70) if huge else ()))
        return rng.randint(low, high)

    def players():
        return rng.choice((2, 2, 3, 4, 1, 5, 0, 2.0, True, np.int64(3), "2"))

    def split():
        return rng.choice((None, None, "random", "even", 1, 2, 3, 0, -1, 255, 2.5, "x", True))

    # ---------------------------------------------------------- the kinds of call

    def play(twins, alone, compiled, _loops, pool):
        hands = bad_hands()
        try:
            deal = Deal.from_codes(hands)
        except (ValueError, TypeError):     # DealError; anything, before deals were checked
            return
        rule = rules()
        if deal.total > 60:
            rule = Rules(max_tricks=rng.randint(1, 200))        # the reference engine plays slowly
        twins(f"play({deal!r:.200}, {rule})", lambda e: e.play(deal, rule))

    def forged(twins, alone, compiled, _loops, pool):
        # A Deal made past its checks: the compiled engine still refuses it
        # as Deal.from_codes would, or plays what from_codes takes.
        hands = bad_hands()
        deal = object.__new__(Deal)
        object.__setattr__(deal, "hands", hands)
        try:
            checked = Deal.from_codes(hands)
        except (ValueError, TypeError):     # DealError; anything, before deals were checked
            checked = None
        if checked is not None and checked.total > 60:
            return
        twins(f"play(forged {hands!r:.200})",
              lambda e: e.play(deal, Rules()) if e is compiled else
              e.play(checked, Rules()) if checked is not None else Deal.from_codes(hands))

    def batch(twins, alone, compiled, _loops, pool):
        n, total = rng.choice((0, 1, 3, 5)), rng.choice((0, 1, 2, 3, 10, 30, 52))
        shape = rng.choice(((n, total), (n, total), (n, total), (total,), (n, total, 2), (0, 0)))
        dtype = rng.choice((np.uint8, np.uint8, np.int64, np.int8, np.float64, np.bool_, object, np.uint16))
        decks = np.array([rng.choice((0, 0, 0, 1, 2, 3, 4)) for _ in range(math.prod(shape))],
                         dtype=dtype).reshape(shape)
        if decks.size and rng.random() < 0.15:
            try:
                decks.flat[rng.randrange(decks.size)] = rng.choice((5, 255, 127, -1, 1, 0))
            except (ValueError, OverflowError):     # no such value in this dtype
                pass
        if rng.random() < 0.05:
            decks = [[0, 1], [0, 1, 2]]         # rows of two lengths
        elif rng.random() < 0.05 and dtype != object:
            decks = decks.astype(str)
        split = rng.choice((None, None, 1, 5, 0, -1, total, total - 1, 2.5, True, [1] * n, [1] * (n + 1),
                            np.ones((n, 1), dtype=np.int64), np.full(n, 2, dtype=np.float64),
                            np.full(n, 3, dtype=np.int32), "x"))
        rule = rules()
        twins(f"play_batch({getattr(decks, 'dtype', '')} {getattr(decks, 'shape', decks)}, "
              f"split {split!r:.60}, {rule})",
              lambda e: e.play_batch(decks, split, rule))

    def sample(twins, alone, compiled, _loops, pool):
        start = rng.choice((0, 7, 2 ** 64 - 5, 2 ** 64 - 1))
        # More deals than there are from `start` on: refused, never played.
        n_deals = rng.choice((whole(0, 12, huge=False), 2 ** 64 - start + 1, 2 ** 70))
        args = (n_deals, whole(0, 2 ** 64 - 1), whole(0, 300), start, deck(), players(), split())
        if args[4] in ("standard", "half") and isinstance(args[0], int) and args[0] > 4:
            return
        name = rng.choice(("sample", "sample_best"))
        twins(f"{name}{args!r}", lambda e: getattr(e, name)(*args))
        if "gpu-host" in _ENGINES_SEEN:
            twins(f"gpu-host {name}{args!r}", lambda e: getattr(e, name)(*args), against="compiled", of="gpu-host")

    def climb(twins, alone, compiled, _loops, pool):
        rule = rng.choice((ClimbRules(), ClimbRules(accept="late", history=3, patience=5),
                           ClimbRules(accept="anneal", patience=4, temperature=2.5),
                           ClimbRules(accept="strict", fitness="tricks", swap_percent=0), None, {}, "late"))
        args = (whole(0, 2 ** 64 - 1), whole(0, 1000), whole(0, 20, huge=False), whole(0, 300), rule, deck(),
                players(), split())
        if args[5] in ("standard", "half"):
            return
        twins(f"climb{args!r}", lambda e: e.climb(*args))

    def census(twins, alone, compiled, _loops, pool):
        chosen = rng.choice(SMALL_DECKS + ["x", "standard"])
        try:
            last = arrangements(chosen) - 1
        except Exception:
            last = 10
        first = rng.choice((0, 1, last, last + 1, -1, rng.randint(0, max(0, last)), 1.5))
        deals = rng.choice((0, 1, 20, 60, last + 2 - (first if isinstance(first, int) else 0), -1, True))
        if chosen == "standard" and deals not in (0, 1, -1, True):
            deals = 3
        args = (first, deals, chosen, players(), rng.choice((None, None, 1, 2, 0, "random")),
                rng.choice((0, 3, 10, -1, 10 ** 6 + 1, 2.0)))
        twins(f"census{args!r}", lambda e: e.census(*args))
        if "gpu-host" in _ENGINES_SEEN:
            twins(f"gpu-host census{args!r}", lambda e: e.census(*args), against="compiled", of="gpu-host")

    def state(players=None, most=8):
        """(hands, leader): mostly states as engines give them, at times not."""
        hands = good_hands(players, most)
        leader = rng.randrange(len(hands))
        if not hands[leader]:
            leader = 0
        if rng.random() < 0.25:
            pick = rng.randrange(5)
            if pick == 0:
                leader = rng.choice((-1, len(hands), 1.5, True, None, "0", 2 ** 64))
            elif pick == 1:
                hands = bad_hands()
            elif pick == 2:
                hands[leader] = []
            elif pick == 3:
                return rng.choice(((hands,), (hands, leader, 1), None, 5, "ab"))
            else:
                hands = [h[:2] for h in hands]
        return hands, leader

    def cards_in(hands):
        try:
            return sum(len(h) for h in hands)
        except TypeError:
            return 0

    def predecessors(twins, alone, compiled, _loops, pool):
        found = state()
        try:
            hands, leader = found
        except (TypeError, ValueError):
            return
        if cards_in(hands) > 40:
            return          # the reference walks every split of a large hand
        twins(f"predecessors({hands!r:.200}, {leader!r})", lambda e: e.predecessors(hands, leader))

    def bounds():
        return (rng.choice((0, 1, 50, 300, 300, -1, 1.5, 2 ** 70, None)),
                rng.choice((60.0, 60, 1e9, 0, -1.0, math.nan, math.inf, 1e30, True, "1")))

    def search_roots(players):
        total = rng.randint(players, 9)
        roots = []
        for _ in range(rng.randint(1, 3)):
            cards = hand(total)
            if not any(cards):
                cards[0] = 1
            cuts = sorted(rng.sample(range(0, total + 1), players - 1))
            hands = [cards[a:b] for a, b in zip([0] + cuts, cuts + [total])]
            leader = next((p for p in range(players) if hands[p]), 0)
            roots.append((hands, leader))
        skips = [None if rng.random() < 0.6 else rng.choice(roots) for _ in roots]
        pick = rng.randrange(8)
        if pick == 0:
            skips = skips[:-1]
        elif pick == 1:
            skips = skips + [None]
        elif pick == 2:
            skips[0] = ([hand(total + 1)] + [[]] * (players - 1), 0)
        elif pick == 3:
            roots.append(state())
            skips.append(None)
        elif pick == 4:
            roots = rng.choice(([], None, "x", [5]))
        return roots, skips

    def backward(twins, alone, compiled, _loops, pool):
        roots, skips = search_roots(2)
        args = (roots, skips, *bounds())
        twins(f"backward{args!r:.300}", lambda e: e.backward(*args))

    def backward_to(twins, alone, compiled, _loops, pool):
        seats = rng.randint(2, 4)
        roots, skips = search_roots(seats)
        sizes = rng.choice(([rng.randint(0, 4) for _ in range(seats)], [2] * seats, [1] * (seats + 1), [1],
                            [-1] * seats, [1.5] * seats, None, "ab", [2 ** 40] * seats))
        guide = rng.choice(GUIDES + ("x", None, 1))
        args = (roots, skips, sizes, guide, *bounds())
        twins(f"backward_to{args!r:.300}", lambda e: e.backward_to(*args))

    def key(pool):
        hands = good_hands(most=rng.choice((6, 30)))
        leader = rng.choice([p for p in range(len(hands)) if hands[p]])
        good = state_key([tuple(h) for h in hands], leader).hex()
        pick = rng.randrange(9)
        if pick == 0:
            return good[:rng.randrange(len(good) + 1)]           # cut short, or odd
        if pick == 1:
            return good + rng.choice(("0", "00", "01", "0105", "ff"))
        if pick == 2:
            return "".join(rng.choice("0123456789abcdef") for _ in range(rng.randint(0, 40)))
        if pick == 3:
            return rng.choice(("", "00", "zz", "080", "0801000a", "0a" * 3, "AB01", " 0100", "0100\n",
                               "\u0660\u0661", "0x0100", b"\x02\x01\x00\x01\x00", 5, None))
        if pick == 4:
            return bytes.fromhex(good)
        if pick == 5:
            return rng.choice(pool["keys"])
        if pick == 6:
            return good.replace(rng.choice("0123456789abcdef"), rng.choice("0123456789abcdef"))
        return good

    def key_call(twins, alone, compiled, _loops, pool):
        text = key(pool)
        deck_of = rng.choice((None, None, "6 2J", "standard", "x"))
        players_of = rng.choice((None, None, 2, 3))
        try:
            hands = cycle.key_hands(text, deck=deck_of, players=players_of)
        except cycle.StateError:
            say_only = True
        else:
            say_only = False
        alone(f"key_hands({text!r:.200}, deck={deck_of!r}, players={players_of!r})",
              lambda: cycle.key_deal(text, deck=deck_of, players=players_of))
        if say_only:
            return
        deal = Deal.from_codes(hands)
        if deal.total > 60:
            return
        twins(f"play(key {text!r:.200})", lambda e: e.play(deal, Rules()))
        alone(f"loops.of_deal(key {text!r:.200})", lambda: loops.of_deal(deal))

    def of_state(twins, alone, compiled, _loops, pool):
        found = state(most=6)
        alone(f"loops.of_state{found!r:.200}", lambda: loops.of_state(*found))

    def grow(twins, alone, compiled, _loops, pool):
        options = {}
        for option, values in (("start_courts", (0, 1, 2, 4, 300, -1)), ("start_plain", (0, 3, 12, 300, -1)),
                               ("patience", (1, 50, 0)), ("stall", (1, 500, 0)),
                               ("lateral_percent", (0, 50, 100, 101)), ("bogus", (1,))):
            if rng.random() < 0.3:
                options[option] = rng.choice(values)
        args = (rng.choice(SMALL_DECKS + ["2J", "x", "standard"]), whole(0, 2 ** 64 - 1), whole(0, 100),
                rng.choice((1, 100, 2000, 0, -1, 2.5)))
        if args[0] == "standard" and args[3] not in (0, -1, 2.5):
            args = args[:3] + (100,)
        alone(f"_loops.grow{args!r} {options}", lambda: _loops.grow(*args, **options))

    def perturb(twins, alone, compiled, _loops, pool):
        states = list(rng.sample(pool["states"], min(len(pool["states"]), rng.randint(1, 4))))
        pick = rng.randrange(8)
        if pick == 0 and states:
            hands, leader = states[0]
            states[0] = (hands, rng.choice((2, -1, 1.0, True, None)))
        elif pick == 1:
            states.append(state(2))
        elif pick == 2:
            states = rng.choice(([], "ab", None, [None], [5]))
        elif pick == 3 and states:
            (first, second), leader = states[0]
            states[0] = ((second + first[:1], first[1:]), leader)      # a card moved: it may not loop
        args = (states, rng.choice(("8 2J", "8 2J", "6 2J", "x")), whole(0, 2 ** 64 - 1), whole(0, 100),
                rng.choice((1, 200, 0, -1)))
        options = {"changes": rng.choice((1, 2, 0, 101))} if rng.random() < 0.3 else {}
        alone(f"_loops.perturb{args!r:.300} {options}", lambda: _loops.perturb(*args, **options))

    def loop_states():
        """Full loops of a small deck, their states and keys, for perturb and the keys."""
        from beggar import _loops
        found = _loops.grow("8 2J", 1, 0, 20000).loops
        keys = [loops.of_state(*s).hex for s in found[:4]]
        return {"states": found or [(((1, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)), 0)], "keys": keys or ["0100"]}

    return {"play": play, "forged": forged, "batch": batch, "sample": sample, "climb": climb, "census": census,
            "predecessors": predecessors, "backward": backward, "backward_to": backward_to, "key": key_call,
            "of_state": of_state, "grow": grow, "perturb": perturb, "loop states": loop_states}


#: The engines the child found (gpu-host where its host build is there).
_ENGINES_SEEN = set()


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    child(int(sys.argv[1]), int(sys.argv[2]))
