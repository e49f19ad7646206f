"""The engine "opencl" on a real OpenCL runtime (gpu/opencl.py): PoCL's CPU
device (the test extra installs it) runs the kernels' work-groups in parallel
on this machine's cores, at the local size a GPU's block has, with real
barriers and atomics, and the engine is held to the compiled engine with hit
buffers that overflow, on several devices at once, and in a job killed and
resumed. Random deals of every shape and census blocks of every kind are
the contract's tests, on every engine present (tests/engines.py: opencl
among them wherever OpenCL lists a device)."""

import signal
import time

import numpy as np
import pytest

from beggar import _engine, engine
from beggar.decks import Deck
from beggar.gpu import opencl
from beggar.gpu.engine import RangeEngine
from beggar.gpu.launch import THREADS, GpuFault, block_threads
from beggar.gpu.several import Several

from engines import climb_walks
from helpers import beggar, job_file, kept, one_line, start, wait_for_chunks
from shapes import casella_state

pytest.importorskip("pyopencl", reason="the opencl extra: pip install '.[opencl]'")


@pytest.fixture(scope="module")
def device():
    """The OpenCL device the engine plays on here (PoCL's CPU device where
    nothing else is installed); a skip, with the reason, where there is none."""
    try:
        return opencl.OpenClDevice()
    except GpuFault as error:
        pytest.skip(f"no OpenCL device here ({error}); the test extra installs PoCL on Linux x86-64")


def test_the_launches_are_work_groups_of_a_gpus_block_size(device):
    # Several work-groups, each of the threads a CUDA block of the deck has.
    for ring in (8, 32, 64):
        for function, groups, threads in device.kernels(ring, 64).values():
            assert threads == block_threads(ring) and groups >= 2
    assert block_threads(32) == THREADS


def test_a_hit_buffer_that_overflows_and_loops_on_decks_that_often_loop(device):
    small = RangeEngine("opencl", lambda: opencl.OpenClDevice(capacity=64, launch=1 << 14))
    for deck, split, min_cards in (("standard", None, 300), ("16 2J", "random", 40)):
        args = (16_000, 3, min_cards, 0, Deck.parse(deck), 2, split)
        played = small.sample_best(*args)
        assert played == _engine.sample_best(*args) and len(played[0]) > 300
    block = small.census(10 ** 6, 20_000, Deck.parse("half"), 2, None, 10)
    assert block == _engine.census(10 ** 6, 20_000, Deck.parse("half"), 2, None, 10)
    assert any(outcome.status == "loop" for _, outcome in played[0])
    # After an overflow the launches of that kernel and deck are smaller.
    assert small.sizes.size(("sample", Deck.parse("standard"), None)) < 1 << 14


def test_several_devices_play_as_one(device):
    # Two contexts on the device, as two GPUs of a machine: each launch is
    # cut between them, and the games are one device's, bit for bit.
    pair = RangeEngine("opencl", lambda: Several([opencl.OpenClDevice(), opencl.OpenClDevice(capacity=64)]))
    args = (60_000, 9, 500, 10 ** 12, Deck.parse("camicia"), 2, "random")
    assert pair.sample_best(*args) == _engine.sample_best(*args)
    assert pair.census(5 * 10 ** 7, 50_000, Deck.parse("half"), 2, None, 10) == \
        _engine.census(5 * 10 ** 7, 50_000, Deck.parse("half"), 2, None, 10)


def test_perturbation_walks_and_given_deals_as_the_compiled_engine_plays_them(device):
    from beggar import _loops
    assert engine.perturb(casella_state(), "standard", 6, 0, 150_000, engine="opencl") == \
        engine.perturb(casella_state(), "standard", 6, 0, 150_000)
    start = _loops.grow("18 3J", 1, 0, 100_000, start_courts=0).loops
    small = RangeEngine("opencl", lambda: opencl.OpenClDevice(capacity=4, launch=5_000))
    assert small.perturb(start, "18 3J", 3, 1, 200_000) == _loops.perturb(start, "18 3J", 3, 1, 200_000)
    rng = np.random.default_rng(7)
    rows = np.array([rng.permutation([0] * 16 + [1, 1]) for _ in range(5000)], np.uint8)
    splits = rng.integers(1, 18, 5000)
    assert (engine.get("opencl").play_batch(rows, splits) == _engine.play_batch(rows, splits)).all()


def test_hill_climbing_on_the_opencl_device_takes_the_compiled_engines_walks(device):
    from beggar.climbing import ClimbRules
    climber = RangeEngine("opencl", lambda: opencl.OpenClDevice(capacity=16, launch=4096, climb_walks=6))
    for deck, split, min_cards in (("standard", None, 500), ("16 2J", "random", 30)):
        on_kernels, compiled = climb_walks(climber, ClimbRules(accept="late", patience=40), deck, split, min_cards,
                                           walks=6)
        assert on_kernels == compiled


def test_a_device_without_64_bit_atomics_is_named_with_what_it_lacks():
    class Lacking:          # what a device of OpenCL 1.2 without the 64-bit extensions lists
        extensions = "cl_khr_global_int32_base_atomics cl_khr_int64_base_atomics cl_khr_byte_addressable_store"
    assert opencl.lacks(Lacking()) == "cl_khr_int64_extended_atomics (64-bit atomic maxima)"


def test_a_build_that_fails_is_one_line_saying_the_call_once_and_the_first_error(device, monkeypatch):
    # A source the device's compiler refuses (the kernels as shipped, a word
    # added at the end): what the device says, in one line, the call and its
    # code once and not a path of the compiler's temporary files.
    monkeypatch.setattr(opencl.source, "inlined", lambda: "__kernel void bg_sample(__global int* x) { x[0] = y; }")
    with pytest.raises(GpuFault) as raised:
        opencl.OpenClDevice(device.number).kernels(4, 16)
    said = str(raised.value)
    assert "\n" not in said and said.count("clBuildProgram failed") == 1, said
    assert said.startswith(f"OpenCL device {device.number} ({device.name}) cannot build the kernels: "
                           "clBuildProgram failed: BUILD_PROGRAM_FAILURE: ")
    assert "undeclared identifier 'y'" in said and "tempfile" not in said and ".cl:" not in said


def test_beggar_gpu_lists_the_opencl_device_and_says_the_kernels_run_there(device):
    result = beggar("gpu")
    assert result.returncode == 0, result
    assert f"device 0: {device.platform.name.strip()}: {device.name}" in result.stdout
    assert "the kernels build and run here, 20,000 deals as the compiled engine plays them" in result.stdout
    assert "opencl can run here (beggar search --engine opencl" in result.stdout


def test_a_device_number_that_is_not_there_is_one_line(device, tmp_path):
    one_line(beggar("search", "--engine", "opencl", "--devices", "7", "--archive", tmp_path / "a.sqlite"), 3,
             "beggar search: no OpenCL device number 7: there is 1")
    assert not (tmp_path / "a.sqlite").exists()


@pytest.mark.slow
def test_a_job_killed_and_resumed_on_opencl_keeps_what_a_job_never_stopped_keeps(device, tmp_path):
    path = job_file(tmp_path, deals=3_000_000, chunk=100_000, min_cards=1500, extra='extend_cards = 0\n')
    archive = tmp_path / "a.sqlite"
    job = start("search", path, "--engine", "opencl", "--archive", archive, "--quiet")
    name = wait_for_chunks(archive, 3, job)
    job.send_signal(signal.SIGKILL)
    job.communicate(timeout=60)
    time.sleep(0.5)         # the killed job's checkers see it gone and end
    resumed = beggar("search", "--resume", name, "--engine", "opencl", "--archive", archive, "--quiet")
    assert resumed.returncode == 0 and "done" in resumed.stdout, resumed
    whole = beggar("search", path, "--archive", tmp_path / "b.sqlite", "--quiet")
    assert whole.returncode == 0, whole
    games = {name: kept(tmp_path / name) for name in ("a.sqlite", "b.sqlite")}
    assert {played["engine"] for played in games["a.sqlite"].values()} == {"opencl"}
    for played in [*games["a.sqlite"].values(), *games["b.sqlite"].values()]:
        played["engine"] = None
    assert games["a.sqlite"] == games["b.sqlite"] and len(games["b.sqlite"]) > 100
