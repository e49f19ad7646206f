"""What reaches an engine is checked where it is made: a Deal (2-4 hands of
codes 0-4 within MAX_CARDS, the first and one more holding a card, never
changed after), a state (states.check_state: both engines' backward play), a
loop key (cycle.key_hands: its bytes or hex, refused with a StateError that
names it); and a damaged loop key in an archive is one line, never a crash
or a hang, in every command that reads it."""

import pickle
import sqlite3
import subprocess
import sys

import numpy as np
import pytest

import beggar
from beggar import Deal, Rules, census, cycle, engine, lengths, loops
from beggar.archive import Archive
from beggar.cycle import key_deal, key_hands, state_key
from beggar.deal import MAX_CARDS, DealError
from beggar.states import StateError
from helpers import CASELLA, beggar as command

CRASHED_BEFORE = [[], [[1]], [[1], [0], [0], [0], [2]]]     # a segfault, a SIGBUS, a segfault


@pytest.mark.parametrize("hands, told", [
    ([], "0 players: a deal has 2 to 4 hands"),
    ([[1]], "1 player: a deal has 2 to 4 hands"),
    ([[1], [0], [0], [0], [2]], "5 players: a deal has 2 to 4 hands"),
    ([[], [1, 0]], "hand 1 is empty: the first hand leads, so it holds a card"),
    ([[1, 0], [], []], "only hand 1 holds cards: a game needs two hands with cards"),
    ([[1, 5], [0]], "hand 1, card 2: 5 is not a card code (codes are 0-4)"),
    ([[1], [0, -1]], "hand 2, card 2: -1 is not a card code"),
    ([[1], [True]], "hand 2, card 1: True is not a card code"),
    ([[1], [1.0]], "hand 2, card 1: 1.0 is not a card code"),
    ([[1], ["K"]], "hand 2, card 1: 'K' is not a card code"),
    ("K-/Q-", "a deal is a list of hands, each a list of card codes 0-4, not 'K-/Q-'"),
    ([[1] * MAX_CARDS, [0]], f"more than {MAX_CARDS} cards: a deal holds at most {MAX_CARDS}"),
])
def test_a_deal_is_checked_when_it_is_made_from_codes(hands, told):
    with pytest.raises(DealError) as error:
        Deal.from_codes(hands)
    assert told in str(error.value)


def test_what_crashed_the_compiled_engine_is_a_bad_deal_and_a_deal_cannot_be_changed():
    for hands in CRASHED_BEFORE:
        # In a child: before the fix, a crash of the process.
        child = subprocess.run([sys.executable, "-c", f"import beggar; beggar.play(beggar.Deal.from_codes({hands}))"],
                               capture_output=True, text=True, timeout=60)
        assert child.returncode == 1 and "beggar.deal.DealError" in child.stderr, child
    deal = Deal.from_codes([np.array([1, 0], dtype=np.uint8), (0, 0, 2), b"\x00"])
    assert deal.hands == ((1, 0), (0, 0, 2), (0,)) and all(type(c) is int for c in deal.hands[0])
    assert Deal.from_codes([[1, 0], [], [0]]).players == 3          # a player out: an empty hand
    with pytest.raises(AttributeError):
        deal.hands = ((5,),)
    assert pickle.loads(pickle.dumps(deal)) == deal
    # One forged past its checks: the compiled engine refuses it as from_codes would.
    forged = object.__new__(Deal)
    object.__setattr__(forged, "hands", ((1,),))
    with pytest.raises(DealError, match="1 player"):
        engine.play(forged, engine="compiled")


@pytest.mark.parametrize("key, told", [
    ("00", "loop key '00': 1 player: a state has 2 to 4 hands"),
    ("zz", "loop key 'zz': not a state's key (lower-case hex digits, two a byte)"),
    ("080", "loop key '080': not a state's key"),
    ("0801000a", "loop key '0801000a': cut short (hand 1 has 8 cards, 3 follow)"),
    ("", "loop key '': empty, not a state"),
    ("AB01", "loop key 'AB01': not a state's key"),
    ("02010001", "loop key '02010001': cut short (hand 2 has 1 cards, 0 follow)"),
    ("020100", "loop key '020100': 1 player"),
    ("0201000105", "loop key '0201000105': hand 2, card 1: 5 is not a card code"),
    ("0002010000", "loop key '0002010000': the leader's hand is empty"),
    ("02010000", "loop key '02010000': one hand holds every card, so the game is over: no loop"),
    ("0101" * 6, "6 players: a state has 2 to 4 hands"),
    (5, "a loop key is hex text or bytes, not 5"),
])
def test_a_malformed_loop_key_is_a_state_error_naming_it(key, told):
    for read in (key_hands, key_deal):
        with pytest.raises(StateError) as error:
            read(key)
        assert told in str(error.value)


def test_a_key_cut_short_anywhere_is_refused_and_a_whole_one_read_back():
    casella = loops.of_deal(Deal.parse(CASELLA))
    key = casella.hex
    assert key_hands(key) == list(casella.state[0]) == key_hands(bytes.fromhex(key))
    assert key_deal(key, deck="standard", players=2) == casella.deal()
    for end in range(len(key)):
        # Before: a key cut short gave a one-hand "canonical state".
        with pytest.raises(StateError, match="loop key"):
            key_hands(key[:end])
    with pytest.raises(StateError, match="its cards are not those of the camicia deck"):
        key_hands(key, deck="camicia")
    with pytest.raises(StateError, match="a state of 2 players, not 3"):
        key_hands(key, players=3)
    # A key written by the engines reads back as the state it was made of,
    # its players only: a player who is out is no part of it.
    state = ((1, 0, 0), (), (0, 2, 0, 0))
    assert key_hands(state_key(state, 0).hex()) == [(1, 0, 0), (0, 2, 0, 0)]
    assert state_key(state, 2) == state_key(((0, 2, 0, 0), (1, 0, 0)), 0)
    # A key of an archive of format 5 or older, which wrote it, is read as it stands.
    assert key_hands("03010000000400020000") == [(1, 0, 0), (), (0, 2, 0, 0)]


@pytest.mark.parametrize("call, told", [
    (lambda e: e.predecessors([[1], [0]], 5), "the leader is the number of a hand, 0 to 1, not 5"),
    (lambda e: e.predecessors([[1, 0, 0, 9]], 0), "1 player"),
    (lambda e: e.predecessors([[], [1, 0]], 0), "the leader's hand (hand 1) is empty"),
    (lambda e: e.predecessors([[1, 7], [0]], 0), "hand 1, card 2: 7 is not a card code"),
    (lambda e: e.backward([(([1], [0], [0, 0]), 0)], [None], 100, 1.0), "root 0: a state of 3 players, not 2"),
    (lambda e: e.backward([(([1, 0], [0, 0]), 0)], [], 100, 1.0), "a skip (a state or None) for each root"),
    (lambda e: e.backward([(([1, 0], [0, 0]), 0)], [(([1, 0, 0], [0, 0]), 0)], 100, 1.0),
     "skip 0: 5 cards, not the 4 of root 0"),
    (lambda e: e.backward([(([1, 0], [0, 0]), 0), (([1], [0]), 0)], [None, None], 100, 1.0),
     "root 1: 2 cards, not the 4 of root 0"),
    (lambda e: e.backward_to([(([1, 0], [0, 0]), 0)], [None], [1] * 6, "breadth", 100, 1.0),
     "sizes: a table has 2 to 4 seats, not 6"),
    (lambda e: e.backward_to([(([1, 0], [0, 0]), 0)], [None], [2, 1, 1], "breadth", 100, 1.0),
     "root 0: a state of 2 players, not 3"),
])
def test_both_engines_refuse_a_state_that_is_none_alike(call, told):
    for name in ("compiled", "reference"):
        with pytest.raises(StateError) as error:
            call(engine.get(name))
        assert told in str(error.value), name


def test_both_engines_refuse_bounds_and_arrays_alike():
    for name in ("compiled", "reference"):
        chosen = engine.get(name)
        with pytest.raises(ValueError, match="max_states"):
            chosen.backward([(([1, 0], [0, 0]), 0)], [None], -1, 1.0)
        with pytest.raises(ValueError, match="max_seconds"):
            chosen.backward([(([1, 0], [0, 0]), 0)], [None], 10, float("nan"))
        with pytest.raises(ValueError, match="as integers, not float64"):
            chosen.play_batch(np.full((2, 4), 1.5), rules=Rules())
        with pytest.raises(ValueError, match="one whole number a deal"):
            chosen.play_batch(np.ones((3, 4), dtype=np.uint8), [1, 2], Rules())
        with pytest.raises(ValueError, match="start \\+ n_deals"):
            chosen.sample(2 ** 70, 1, 100)
        with pytest.raises(TypeError, match="ClimbRules"):
            chosen.climb(1, 0, 10, 100, {"history": 0})
        with pytest.raises(ValueError, match="players must be 2 to 4, not 2.0"):
            chosen.sample(1, 1, 100, players=2.0)
    # The last deal of all, number 2**64 - 1: the compiled engine played none.
    last = engine.sample_best(3, 5, 10 ** 6, 2 ** 64 - 3, engine="compiled")
    assert last == engine.sample_best(3, 5, 10 ** 6, 2 ** 64 - 3, engine="reference")
    assert sum(last[2].counts) == 3


# ---------------------------------------------------------------- a damaged key in an archive

@pytest.fixture(scope="module")
def looped(tmp_path_factory):
    path = tmp_path_factory.mktemp("loops") / "a.sqlite"
    with Archive(str(path)) as archive, archive.transaction():
        archive.add_loop(loops.of_deal(Deal.parse(CASELLA)), "j1", "grow", 0)
    return path


# The first, in the quick tier; the others, and a key cut short, in the slow one.
DAMAGED_KEYS = ["00"] + [pytest.param(key, marks=pytest.mark.slow) for key in
                         ("zz", "080", "0801000a", "", "1a0000000300020000000000030200040300000104040000000000")]


@pytest.mark.parametrize("key", DAMAGED_KEYS)
def test_a_damaged_loop_key_is_one_line_in_every_command_that_reads_it(looped, tmp_path, key):
    path = tmp_path / "a.sqlite"
    path.write_bytes(looped.read_bytes())
    with sqlite3.connect(path) as db:
        db.execute("UPDATE loops SET key = ? WHERE id = 1", (key,))
    db.close()
    for args in (("archive", "export", "--loop", 1, tmp_path / "x.json"), ("archive", "show", "--loop", 1),
                 ("archive", "report", tmp_path / "r.html")):
        # Before: a segmentation fault, or a core spun at 100 % for ever.
        result = command(*args, "--archive", path)
        assert result.returncode in (2, 3) and "Traceback" not in result.stderr, (args, result)
        line = result.stderr.strip().splitlines()[-1]
        assert "loop key" in line or "loop 1" in line, (args, line)
    assert not (tmp_path / "x.json").exists()


def word():
    """A buffer of one 64-bit word, as the host kernels take it (bytes)."""
    return np.zeros(8, np.uint8)


def bytes_of(n, dtype):
    """A zeroed buffer of n items of `dtype`, as the host kernels take it (bytes)."""
    return np.zeros(n, dtype).view(np.uint8)


def test_the_host_kernels_refuse_a_shape_or_block_they_cannot_play():
    _gpu_host = pytest.importorskip("beggar._gpu_host")
    from beggar.gpu.abi import HIT
    from beggar.gpu.host import launch
    from beggar.gpu.abi import block as block_dtype, shape as shape_dtype
    from beggar.lengths import BINS

    def sample(**fields):
        shape = np.zeros(1, shape_dtype(_gpu_host.TOTAL))
        shape["total"], shape["n_courts"], shape["ring"], shape["steps"] = 52, 16, 32, 16
        shape["courts"][0, :16] = [1, 2, 3, 4] * 4
        for name, value in fields.items():
            shape[name] = value
        hits, n_hits = np.zeros(8, HIT), np.zeros(1, np.uint64)
        launch("bg_sample", shape=shape.view(np.uint8), seed=1, first=0, count=10, min_cards=10 ** 6,
                         cap=1 << 15, next=word(), lengths=bytes_of(BINS, np.uint64), best=word(),
                         hits=hits.view(np.uint8), n_hits=n_hits.view(np.uint8), capacity=8)
        return n_hits[0]

    def census(grab=5, **fields):
        block = np.zeros(1, block_dtype(_gpu_host.TOTAL))
        block["total"], block["first_hand"], block["suffix"], block["ring"], block["steps"] = 6, 3, 6, 4, 4
        block["suffix_counts"][0] = [4, 1, 1, 0, 0]
        block["suffix_arrangements"] = 30       # 6! / 4!
        block["target"][0, :6] = [0, 3, 1, 4, 2, 5]
        for name, value in fields.items():
            block[name] = value
        hits, n_hits = np.zeros(8, HIT), np.zeros(1, np.uint64)
        launch("bg_census", block=block.view(np.uint8), count=5, grab=grab, threshold=2 ** 62,
                         cap=1 << 15, next=word(), cards=bytes_of(_gpu_host.HISTOGRAM, np.uint64),
                         tricks=bytes_of(_gpu_host.HISTOGRAM, np.uint64), hits=hits.view(np.uint8),
                         n_hits=n_hits.view(np.uint8), capacity=8)
        return n_hits[0]

    # As gpu/engine.py makes them: played, not refused. Every deal of this
    # block (4 plain cards, a jack and a queen) ends in a few tricks: no hit.
    assert sample() == 0
    assert census() == 0
    for fields in ({"total": 300}, {"total": 1}, {"n_courts": 0}, {"n_courts": 60}, {"ring": 3},
                   {"ring": 512}, {"ring": 16}, {"split": 52}, {"split": -2}, {"courts": 9}, {"steps": 0}):
        with pytest.raises(ValueError, match="gpu-host sample"):
            sample(**fields)
    for fields in ({"total": 300}, {"first_hand": 6}, {"suffix": 7}, {"suffix": -1}, {"ring": 5},
                   {"target": 200}, {"target": 0}, {"suffix_counts": -1}, {"suffix_counts": 1},
                   {"suffix": 0, "prefix": 7}, {"grab": 0}, {"suffix_arrangements": 0},
                   {"suffix_arrangements": 31}, {"suffix_first": 26}, {"steps": 0}):
        with pytest.raises(ValueError, match="gpu-host census"):
            census(**fields)


def test_the_host_kernels_refuse_a_pool_a_batch_or_a_walk_they_cannot_play():
    _gpu_host = pytest.importorskip("beggar._gpu_host")
    from beggar.gpu.abi import CLIMB_HIT, CLIMB_RULES, HIT
    from beggar.gpu.host import launch
    from beggar.gpu.abi import shape as shape_dtype, walk as walk_dtype
    from beggar.lengths import BINS

    def perturb(pool=None, known=None, **options):
        rows = np.zeros((2, 7), np.uint8) if pool is None else pool
        if pool is None:
            rows[:, 0], rows[:, 1:] = 3, [0, 0, 1, 0, 2, 0]
        arguments = {"n_pool": len(rows), "total": 6, "ring": 4, "changes": 2, "reach": 3, "cap": 1 << 15, **options}
        hits = np.zeros(8, HIT)
        known = np.zeros(0, np.uint64) if known is None else known
        launch("bg_perturb", pool=rows.reshape(-1), walk_seed=1, known=known.view(np.uint8),
                         n_known=len(known), first=0, count=50, next=word(), hits=hits.view(np.uint8), n_hits=word(),
                         capacity=8, cycles=bytes_of(2 * 16, np.uint64), n_slots=16, n_cycles=word(), **arguments)

    def batch(rows=None, splits=None, ring=4):
        rows = np.tile(np.array([0, 0, 1, 0, 2, 0], np.uint8), (3, 1)) if rows is None else rows
        splits = np.full(len(rows), 3, np.int32) if splits is None else splits
        launch("bg_batch", rows=rows.reshape(-1), splits=splits.view(np.uint8), total=rows.shape[1],
                         ring=ring, count=len(splits), cap=1 << 15, next=word(),
                         results=np.zeros(len(splits), HIT).view(np.uint8))

    def climb(rules=None, **fields):
        shape = np.zeros(1, shape_dtype(_gpu_host.TOTAL))
        shape["total"], shape["n_courts"], shape["ring"], shape["steps"] = 6, 2, 4, 4
        shape["courts"][0, :2] = [1, 2]
        given = np.zeros(1, CLIMB_RULES)
        given[0] = (1, 1, 5, 50, 10, 10 ** 6, 20)
        for name, value in (rules or {}).items():
            given[name] = value
        walks = np.zeros(1, walk_dtype(_gpu_host.TOTAL))
        walks["restarts"], walks["best_value"] = -1, -1
        for name, value in fields.items():
            walks[name] = value
        hits, decks = np.zeros(8, CLIMB_HIT), np.zeros(8 * 6, np.uint8)
        launch("bg_climb", shape=shape.view(np.uint8), rules=given.view(np.uint8), n_walks=1, budget=100,
                         cap=1 << 15, walks=walks.view(np.uint8), history=bytes_of(int(given["history"][0]), np.int64),
                         lengths=bytes_of(BINS, np.uint32), hits=hits.view(np.uint8), decks=decks, n_hits=word(),
                         capacity=8, next=word())
        return walks

    # As gpu/engine.py makes them: played, not refused.
    perturb()
    batch()
    assert climb()["played"][0] == 20
    bad = np.zeros((2, 7), np.uint8)
    bad[:, 0] = 3
    for arguments, fields in ((bad, {}), (None, {"changes": 0}), (None, {"ring": 3}), (None, {"total": 300}),
                              (None, {"n_pool": 3})):
        with pytest.raises(ValueError, match="gpu-host perturb"):
            perturb(arguments, **fields)     # a pool without a court card: a move of one would look for ever
    with pytest.raises(ValueError, match="not sorted and distinct"):
        perturb(known=np.array([5, 5], np.uint64))
    for rows, splits, ring in ((np.full((2, 6), 7, np.uint8), None, 4), (None, np.zeros(3, np.int32), 4),
                               (None, None, 2)):
        with pytest.raises(ValueError, match="gpu-host batch"):
            batch(rows, splits, ring)
    for rules, fields in (({"accept": 2}, {}), ({"history": 0}, {}), ({"swap_percent": 101}, {}),
                          ({}, {"restarts": 0, "sizes": [3, 3]}), ({}, {"restarts": 0, "sizes": [6, 0]}),
                          ({}, {"played": 5}), ({}, {"climber": (-1, 0, 0, 0)})):
        with pytest.raises(ValueError, match="gpu-host climb"):
            climb(rules, **fields)
    # The one entry takes a kernel of gpu/abi.py's by name, its arguments
    # exactly those described, each within its C type.
    with pytest.raises(ValueError, match="gpu-host: no kernel 'bg_play'"):
        launch("bg_play")
    with pytest.raises(TypeError, match="gpu-host bg_batch: takes rows, splits, total"):
        launch("bg_batch", rows=np.zeros(6, np.uint8))
    with pytest.raises(OverflowError):
        perturb(n_pool=2 ** 40)


@pytest.mark.parametrize("call, told", [
    (lambda: census.rank([0, 9, 1]), "cards[1] (a card code) must be a whole number from 0 to 4, not 9"),
    (lambda: census.rank([0, -1]), "cards[1] (a card code) must be a whole number from 0 to 4, not -1"),
    (lambda: lengths.bin_of(-5), "cards must be a whole number of at least 0, not -5"),
    (lambda: lengths.Lengths.of([30, -1]), "cards must be a whole number of at least 0, not -1"),
    (lambda: cycle.state_key([[1] * 300, [0]], 0), "301 cards; a state holds at most 255"),
    (lambda: cycle.state_key([[300], [0]], 0), "300 is not a card code"),
    (lambda: cycle.state_key([[1], [0]], 9), "the leader is the number of a hand, 0 to 1, not 9"),
])
def test_out_of_range_arguments_are_the_project_s_errors_naming_them(call, told):
    """census.rank gave a bare IndexError (and counted a code -1 as an ace),
    a negative length was counted in a bin near the top, state_key said
    "byte must be in range(0, 256)" or keyed a leader of no hand as another."""
    with pytest.raises(ValueError) as raised:
        call()
    assert told in str(raised.value) and type(raised.value) is not IndexError
