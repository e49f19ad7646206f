"""The GPU engines' launches: the kernels' interface (gpu/abi.py) held to the
C field by field and argument by argument; how many deals a launch plays (gpu/sizing.py: by
time, and smaller at once after a hit buffer overflows); a launch whose hits
overflow played again in parts; a backend whose launch failed (gpu/engine.py);
several devices as one (gpu/several.py). On gpu-host backends of the tests'
own sizes."""

import re
import subprocess
from importlib import resources

import pytest

from beggar import _engine, _gpu_host, census
from beggar.decks import Deck
from beggar.engine import EngineFault
from beggar.gpu import abi, source
from beggar.gpu.abi import CLIMB_HIT, HIT
from beggar.gpu.abi import block as block_dtype
from beggar.gpu.abi import shape as shape_dtype
from beggar.gpu.engine import RangeEngine
from beggar.gpu.host import HostBackend
from beggar.gpu.several import Several
from beggar.gpu.sizing import LaunchSizes

from helpers import c_compiler


# ---------------------------------------------------------------- what a launch passes

def _fields(dtype, prefix=""):
    """{field: (offset, size)} of a dtype, a nested struct's fields as
    'outer.inner' (C's offsetof names them so)."""
    found = {}
    for name, (field, offset) in dtype.fields.items():
        if field.names:
            found.update({key: (offset + at, size) for key, (at, size) in _fields(field, f"{name}.").items()})
        else:
            found[prefix + name] = (offset, field.itemsize)
    return found


def test_the_structs_are_laid_out_alike_in_c_and_numpy(tmp_path):
    # Field by field as the C compiler lays out kernel.cu's structs in a host
    # build of gpu-host's sizes, and each struct's size, so that a C field
    # abi.py lacks is caught too. The program printing them is written from
    # abi.py: the fields are named once.
    total = _gpu_host.TOTAL         # the host build's BG_TOTAL, and its BG_CARDS
    structs = {"bg_hit": HIT, "bg_climb_rules": abi.CLIMB_RULES, "bg_climb_hit": CLIMB_HIT,
               "bg_shape": shape_dtype(total), "bg_block": block_dtype(total), "bg_walk": abi.walk(total)}
    wanted = [f"{name} {field} {offset} {size}" for name, dtype in structs.items()
              for field, (offset, size) in _fields(dtype).items()] + \
             [f"{name} {dtype.itemsize}" for name, dtype in structs.items()]
    prints = [f'printf("{name} {field} %zu %zu\\n", offsetof({name}, {field}), sizeof((({name}*)0)->{field}));'
              for name, dtype in structs.items() for field in _fields(dtype)] + \
             [f'printf("{name} %zu\\n", sizeof({name}));' for name in structs]
    (tmp_path / "laid_out.c").write_text('#include <stddef.h>\n#include <stdio.h>\n#include "kernel.cu"\n'
                                         "int main(void) {\n    " + "\n    ".join(prints) + "\n    return 0;\n}\n")
    built = subprocess.run([c_compiler(), *(f"-I{resources.files('beggar') / part}" for part in source.FOLDERS),
                            str(tmp_path / "laid_out.c"), "-o", str(tmp_path / "laid_out")],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    assert subprocess.run([tmp_path / "laid_out"], capture_output=True, text=True, check=True).stdout.split("\n")[:-1] \
        == wanted


#: A kernel's prototype in kernel.cu, and one of its parameters.
_KERNEL = re.compile(r"^BG_KERNEL\w*(?:\(\d+\))? (bg_\w+)\(([^)]*)\)", re.MULTILINE)
_PARAMETER = re.compile(r"(const )?(?:BG_GLOBAL )?(\w+)(\*?) (\w+)")


def test_the_kernels_take_the_arguments_abi_describes():
    # kernel.cu's prototypes, argument by argument: the name, the C type,
    # a buffer or a value, and only a buffer copied in is const.
    found = {name: tuple(_PARAMETER.fullmatch(" ".join(p.split())).groups() for p in text.split(","))
             for name, text in _KERNEL.findall(source.shipped(source.KERNEL))}
    assert found == {name: tuple(("const " if how == abi.IN else None, ctype, "" if how == abi.VALUE else "*", named)
                                 for named, how, ctype in arguments)
                     for name, arguments in abi.KERNELS.items()}


# ---------------------------------------------------------------- launch sizes

@pytest.mark.slow
def test_a_hit_buffer_that_overflows_plays_the_launch_again_in_parts():
    small = RangeEngine("gpu-host", lambda: HostBackend(launch=1 << 14, capacity=64))
    gpu = small.sample_best(50_000, 3, 300, 0, Deck.parse("standard"), 2, None)
    assert gpu == _engine.sample_best(50_000, 3, 300, 0, Deck.parse("standard"), 2, None)
    assert len(gpu[0]) > 1000
    block = small.census(10 ** 6, 40_000, Deck.parse("half"), 2, None, 10)
    assert block == _engine.census(10 ** 6, 40_000, Deck.parse("half"), 2, None, 10)
    # After an overflow the launches of that kernel and deck are smaller, so
    # that the next ones fit; other decks keep theirs.
    assert small.sizes.size(("sample", Deck.parse("standard"), None)) < 1 << 14
    assert small.sizes.size(("sample", Deck.parse("half"), None)) == 1 << 14


def test_a_launch_size_grows_by_time_from_its_second_full_launch():
    sizes = LaunchSizes(start=1024, largest=8192, capacity=1000, seconds=0.5)
    sizes.record("a", 1024, 0.01, 0)           # the first launch: it may hold the compile
    assert sizes.size("a") == 1024
    sizes.record("a", 1024, 0.01, 0)
    assert sizes.size("a") == 2048
    sizes.record("a", 100, 0.001, 0)           # the last of a call: not full, not timed
    assert sizes.size("a") == 2048
    for _ in range(5):
        sizes.record("a", sizes.size("a"), 0.01, 0)
    assert sizes.size("a") == 8192             # no more than the largest
    sizes.record("a", 8192, 3.0, 0)            # over twice the seconds aimed at
    assert sizes.size("a") == 4096
    sizes.record("a", 4096, 0.4, 0)            # within them: kept
    assert sizes.size("a") == 4096
    assert sizes.size("b") == 1024             # every key its own size


def test_a_launch_size_shrinks_at_once_after_an_overflow_and_grows_only_while_its_hits_would_fit():
    sizes = LaunchSizes(start=1 << 20, largest=1 << 30, capacity=1 << 16, seconds=0.5)
    sizes.record("dense", 1 << 20, 0.01, 1 << 19)      # 8 times the buffer: about half of it next time
    assert sizes.size("dense") == 1 << 16
    assert sizes.size("sparse") == 1 << 20
    sizes.record("dense", 1 << 16, 0.001, 1 << 15)     # the first timed launch of the key
    sizes.record("dense", 1 << 16, 0.001, 1 << 15)     # fast, but twice as many hits would overflow
    assert sizes.size("dense") == 1 << 16
    sizes.record("dense", 1 << 16, 0.001, 1 << 13)
    assert sizes.size("dense") == 1 << 17
    sizes.record("dense", 100, 0.0, 10 ** 6)           # even a short launch that overflows
    assert sizes.size("dense") == 2
    untimed = LaunchSizes(start=1 << 14, largest=1 << 14, capacity=64)
    untimed.record("a", 1 << 14, 100.0, 0)
    untimed.record("a", 1 << 14, 100.0, 0)
    assert untimed.size("a") == 1 << 14                # gpu-host: never sized by time
    untimed.record("a", 1 << 14, 0.0, 640)
    assert untimed.size("a") == 512
    untimed.record("a", 512, 100.0, 17)
    assert untimed.size("a") == 512                    # hits that would not fit twice over
    untimed.record("a", 512, 100.0, 2)
    assert untimed.size("a") == 1024                   # sparse again: grown back, whatever the time


# ---------------------------------------------------------------- a launch that failed

class _FailingBackend(HostBackend):
    """gpu-host whose first launch fails as a kernel's fault would on a GPU
    (no device is lent to the suite): the engine must not keep it."""

    made = []

    def __init__(self):
        super().__init__()
        self.made.append(self)
        self.closed = False
        self.failed = len(self.made) == 1

    def sample(self, *arguments):
        if self.failed:
            raise EngineFault("CUDA the kernel bg_sample failed: CUDA_ERROR_ILLEGAL_ADDRESS")
        return super().sample(*arguments)

    def close(self):
        self.closed = True


def test_a_backend_whose_launch_failed_is_closed_and_the_next_call_makes_a_new_one():
    failing = RangeEngine("gpu-host", _FailingBackend)
    with pytest.raises(EngineFault, match="ILLEGAL_ADDRESS"):
        failing.sample_best(1000, 3, 300)
    assert failing._backend is None and _FailingBackend.made[0].closed
    assert failing.sample_best(20_000, 3, 300) == _engine.sample_best(20_000, 3, 300)
    assert len(_FailingBackend.made) == 2 and not _FailingBackend.made[1].closed


# ---------------------------------------------------------------- several devices

def test_several_devices_play_as_one_and_keep_one_devices_games():
    # Three gpu-host backends (each a thread of this machine) as three GPUs:
    # each launch is cut between them by their pace, and put together.
    three = RangeEngine("gpu-host", lambda: Several([HostBackend(capacity=64), HostBackend(), HostBackend()]))
    for deck, split, min_cards in (("standard", None, 700), ("16 2J", "random", 40)):
        args = (30_000, 4, min_cards, 3 * 10 ** 9, Deck.parse(deck), 2, split)
        assert three.sample_best(*args) == _engine.sample_best(*args)
    for deck, split, first, deals in (("10 2J 2Q", 7, 0, None), ("half", None, 10 ** 8, 30_000)):
        deck = Deck.parse(deck)
        deals = deals or census.count(deck)
        assert three.census(first, deals, deck, 2, split, 10) == _engine.census(first, deals, deck, 2, split, 10)


def test_a_launch_cut_by_pace_gives_each_device_its_share():
    several = Several([HostBackend(), HostBackend()])
    assert several._cut(1000) == [(0, 500), (500, 500)]
    several.paces = [3e6, 1e6]
    assert several._cut(1000) == [(0, 750), (750, 250)]
    several.paces = [None, 2e6]          # a device not yet timed takes the others' mean
    assert several._cut(10) == [(0, 5), (5, 5)]
    # Each part long enough to tell its device's pace is timed, and the
    # parts are played at once, each on its own device.
    from beggar.gpu.several import TIMED_DEALS
    fresh = Several([HostBackend(), HostBackend()])
    parts = fresh._each(lambda backend, offset, deals: (backend, offset, deals), 2 * TIMED_DEALS)
    assert parts == [(0, TIMED_DEALS, (fresh.backends[0], 0, TIMED_DEALS)),
                     (TIMED_DEALS, TIMED_DEALS, (fresh.backends[1], TIMED_DEALS, TIMED_DEALS))]
    assert all(fresh.paces)
