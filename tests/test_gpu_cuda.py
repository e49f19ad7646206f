"""The CUDA path (gpu/cuda.py): the kernel compiled by NVRTC without a GPU
(every architecture named, each ring within its block's shared memory, the
cache of cubins and a damaged or refused one); what `beggar gpu` and the GPU
options say where no GPU, or no bindings, can be used; and, where a GPU is
(-m gpu), the device itself held to the compiled engine, the OpenCL engine on
an OpenCL GPU too."""

import re
import sys
import threading

import pytest

from beggar import _engine, census, engine
from beggar.decks import Deck
from beggar.engine import EngineFault
from beggar.gpu.engine import RangeEngine

from helpers import beggar, one_line
from test_readme import ROOT
from shapes import TWO_PLAYER_TABLES


# ---------------------------------------------------------------- the compile, without a GPU

def _bindings():
    try:
        from beggar.gpu import cuda
        cuda.nvrtc_version()
    except Exception as error:          # bindings or NVRTC missing: GpuFault, named in the reason
        pytest.skip(f"NVRTC is not installed ({error}); pip install '.[gpu]' or '.[test]' installs it")
    return cuda


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["sm_80", "sm_89", "sm_90"])
def test_the_kernel_compiles_for_every_named_architecture_without_a_gpu(arch):
    cuda = _bindings()
    for ring in (8, 32, 256):
        cubin = cuda.compile_kernel(arch, ring)
        assert cubin.startswith(b"\x7fELF") and b"bg_sample" in cubin and b"bg_census" in cubin


@pytest.mark.slow
def test_every_ring_fits_its_blocks_shared_memory_and_the_standard_decks_game_stays_off_the_stack():
    # ptxas's own figures: a block's static shared memory within what
    # cuda.block_threads sized it for, at every ring; at the standard
    # deck's, a stack frame of at most 400 bytes (Brent's snapshot and the
    # dealing's arrays) and no spills.
    cuda = _bindings()
    for ring in (2, 4, 8, 16, 32, 64, 128, 256):
        cards = cuda.cards_of(52 if ring == 32 else ring)
        log = cuda.compile_program("sm_90", ring, ["--ptxas-options=-v"], cards)[1]
        shared = [int(n) for n in re.findall(r"(\d+) bytes smem", log)]
        stacks = [int(n) for n in re.findall(r"(\d+) bytes stack frame", log)]
        spills = [int(n) for n in re.findall(r"(\d+) bytes spill (?:stores|loads)", log)]
        assert len(shared) == len(stacks) == len(cuda.KERNELS) and max(shared) <= cuda.SHARED, (ring, log)
        assert max(shared) > cuda.SHARED / 2 or cuda.block_threads(ring) == cuda.THREADS, (ring, shared)
        if ring == 32:
            assert max(stacks) <= 400 and not any(spills), log


def test_the_cache_key_holds_every_compile_option_and_every_source_file(monkeypatch):
    cuda = _bindings()
    key = cuda.cache_key("12.9", ["-a", "-b"], ["kernel", "header"])
    assert len({key, cuda.cache_key("12.8", ["-a", "-b"], ["kernel", "header"]),
                cuda.cache_key("12.9", ["-a", "-c"], ["kernel", "header"]),
                cuda.cache_key("12.9", ["-a"], ["kernel", "header"]),
                cuda.cache_key("12.9", ["-a", "-bkernel"], ["", "header"]),
                cuda.cache_key("12.9", ["-a", "-b"], ["kernel!", "header"]),
                cuda.cache_key("12.9", ["-a", "-b"], ["kernel", "header!"]),
                cuda.cache_key("12.9", ["-a", "-b"], ["kernel", "header", "vendor"])}) == 8
    # A change of BG_TOTAL alone is another cubin (its structs differ).
    path = cuda.cache_path("sm_90", 32)
    from beggar.gpu import launch
    monkeypatch.setattr(launch, "TOTAL", 128)
    assert "-DBG_TOTAL=128" in cuda.options("sm_90", 32) and cuda.cache_path("sm_90", 32) != path


@pytest.mark.slow
def test_a_damaged_cached_cubin_is_compiled_again(tmp_path, monkeypatch):
    cuda = _bindings()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cubin, seconds = cuda.cached_kernel("sm_80", 8)
    path = cuda.cache_path("sm_80", 8)
    assert seconds > 0 and path.parent == tmp_path / "beggar" / "gpu" and cubin == cuda.compile_kernel("sm_80", 8)
    assert cuda.cached_kernel("sm_80", 8) == (cubin, 0.0)
    stored = path.read_bytes()
    for damaged in (stored[:-100], stored[:-1] + bytes([stored[-1] ^ 1]), b"", stored[:20]):
        path.write_bytes(damaged)
        again, seconds = cuda.cached_kernel("sm_80", 8)
        assert again == cubin and seconds > 0
        assert path.read_bytes() == stored
    # A cubin the driver refused is compiled again on request, the cache replaced.
    assert cuda.cached_kernel("sm_80", 8, fresh=True)[1] > 0
    assert cuda.cached_kernel("sm_80", 8) == (cubin, 0.0)


@pytest.mark.slow
def test_a_cached_cubin_the_driver_refuses_is_compiled_again_and_a_fresh_one_it_refuses_is_the_fault(
        tmp_path, monkeypatch):
    # The driver's load stands in here (no GPU): the real compile and cache.
    cuda = _bindings()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cubin = cuda.cached_kernel("sm_80", 8)[0]
    given = []

    def refuses_the_first(image):
        given.append(image)
        if len(given) == 1:
            raise cuda.GpuFault("CUDA cuModuleLoadData failed on GPU 0: CUDA_ERROR_INVALID_IMAGE")
        return "loaded"
    assert cuda.loaded(refuses_the_first, "sm_80", 8) == "loaded" and given == [cubin, cubin]
    cuda.cache_path("sm_80", 8).unlink()
    given.clear()

    def refuses(image):
        given.append(image)
        raise cuda.GpuFault("CUDA cuModuleLoadData failed on GPU 0: CUDA_ERROR_INVALID_IMAGE")
    with pytest.raises(cuda.GpuFault, match="INVALID_IMAGE"):
        cuda.loaded(refuses, "sm_80", 8)
    assert given == [cubin]         # compiled once, refused once: not compiled again


@pytest.mark.gpu
def test_a_reset_after_a_fault_leaves_the_other_devices_of_the_gpu_playing():
    _device_engine()
    from beggar.gpu import cuda
    one, other = cuda.Device(0), cuda.Device(0)
    args = (10 ** 5, 3, 1800, 0, Deck.parse("standard"), 2, None)
    expected = _engine.sample_best(*args)
    assert RangeEngine("cuda", lambda: one).sample_best(*args) == expected
    other.close()           # as after a failed launch: the primary context reset
    assert RangeEngine("cuda", lambda: one).sample_best(*args) == expected
    one.close()


@pytest.mark.slow
def test_beggar_gpu_compiles_for_an_architecture_without_a_device():
    _bindings()
    result = beggar("gpu", "--arch", "sm_90")
    assert result.returncode == 0, result
    assert "kernel: compiles for sm_90" in result.stdout and "no device was used" in result.stdout


@pytest.mark.slow
def test_without_a_gpu_the_gpu_options_are_one_line(tmp_path):
    cuda = _bindings()
    try:
        cuda.Device()
    except cuda.GpuFault as error:
        listed = beggar("gpu")
        assert "CUDA: cuda-bindings" in listed.stdout and f"  {error}" in listed.stdout, listed
        archive = tmp_path / "a.sqlite"
        for command in (["search", "--gpu", "--deals", "1000"], ["census", "half", "--gpu"]):
            line = one_line(beggar(*command, "--archive", archive), 3, f"beggar {command[0]}: no GPU can be used here")
            assert f"CUDA: {error}" in line and "OpenCL: " in line
        assert not archive.exists()
    else:
        result = beggar("gpu")
        assert result.returncode == 0 and "gpu can run here" in result.stdout


def test_play_and_replay_on_the_gpu_engine_without_a_gpu_are_one_line(monkeypatch):
    """They played on the compiled engine without a word, exit 0."""
    from beggar import gpu
    from beggar.gpu.launch import GpuFault
    try:
        gpu.check("cuda")
    except GpuFault as error:
        reason = str(error)
    else:
        pytest.skip("a GPU can be used here: play --engine cuda plays on it")
    from helpers import CASELLA, in_process
    for args, env in ((["play", CASELLA, "--engine", "cuda"], None), (["play", CASELLA, "--engine", "gpu"], None),
                      (["replay", "casella.txt", "--engine", "cuda"], None), (["play", CASELLA], "cuda")):
        if env is None:
            monkeypatch.delenv("BEGGAR_ENGINE", raising=False)
        else:
            monkeypatch.setenv("BEGGAR_ENGINE", env)
        result = in_process(*args, cwd=ROOT)
        assert result.stdout == "", args
        one_line(result, 3, f"beggar {args[0]}: {reason}")


def test_without_the_bindings_the_gpu_engines_name_their_extras(tmp_path, monkeypatch, capsys):
    # The bindings made unimportable in this process (a package's own .pth
    # file keeps a stand-in out of a subprocess); the command's main runs here.
    from beggar.cli import main
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)
    cuda = "NVIDIA's CUDA bindings (import of cuda.bindings halted; None in sys.modules): pip install '.[gpu]'"
    for command in (["gpu", "--arch", "sm_90"], ["search", "--gpu", "--archive", str(tmp_path / "a.sqlite")]):
        assert main(command) == 3
        error = capsys.readouterr().err.strip()
        assert len(error.splitlines()) == 1 and cuda in error, error
    monkeypatch.setitem(sys.modules, "pyopencl", None)
    assert main(["gpu"]) == 3
    listed = capsys.readouterr()
    assert "CUDA:\n  the GPU engine needs " + cuda in listed.out
    assert "OpenCL:\n  the opencl engine needs pyopencl" in listed.out
    error = listed.err.strip()
    assert len(error.splitlines()) == 1 and error.startswith("beggar gpu: no GPU engine can run here (cuda: "), error
    assert "pip install '.[opencl]' in beggar's source folder" in error
    assert not (tmp_path / "a.sqlite").exists()


def test_a_wrong_architecture_is_one_line():
    _bindings()
    one_line(beggar("gpu", "--arch", "sm_99"), 3, "cannot compile the kernel for sm_99")
    one_line(beggar("gpu", "--arch", "ninety"), 2, "--arch", "sm_90")


# ---------------------------------------------------------------- the device itself

def _device_engine():
    # engine.get("cuda") is lazy: it touches the driver only inside the call
    # under test. Ask the driver, so that a machine without a GPU skips; no
    # Device is opened here (the engine's would share its primary context).
    cuda = _bindings()
    try:
        cuda.count()
    except cuda.GpuFault as error:
        pytest.skip(f"no GPU here ({error})")
    return engine.get("cuda")


@pytest.mark.gpu
@pytest.mark.parametrize("deck, split", TWO_PLAYER_TABLES)
def test_ten_million_random_deals_on_the_gpu_as_the_compiled_engine_plays_them(deck, split):
    gpu = _device_engine()
    args = (10 ** 7, 2026, 1800, 3 * 10 ** 9, Deck.parse(deck), 2, split)
    assert gpu.sample_best(*args) == _engine.sample_best(*args)


@pytest.mark.gpu
@pytest.mark.parametrize("deck, split, first, deals", [
    ("12 2J 2Q 2K", None, 0, None), ("10 2J 2Q", 7, 0, None), ("half", None, 10 ** 9, 10 ** 7),
    ("camicia", None, 10 ** 13, 10 ** 7)])
def test_census_blocks_on_the_gpu_as_the_compiled_engine_counts_them(deck, split, first, deals):
    gpu = _device_engine()
    deck = Deck.parse(deck)
    deals = deals or census.count(deck)
    assert gpu.census(first, deals, deck, 2, split, 10) == _engine.census(first, deals, deck, 2, split, 10)


@pytest.mark.gpu
def test_the_gpu_plays_in_any_thread_and_blocks_while_it_waits():
    gpu = _device_engine()
    args = (10 ** 6, 7, 1800, 0, Deck.parse("standard"), 2, None)
    expected = _engine.sample_best(*args)
    assert gpu.sample_best(*args) == expected
    results = []
    thread = threading.Thread(target=lambda: results.append(gpu.sample_best(*args)))
    thread.start()
    thread.join()
    assert results == [expected]
    device = gpu.backend
    device._current()
    flags = device._check(device.driver.cuCtxGetFlags(), "cuCtxGetFlags")
    assert int(flags) & int(device.driver.CUctx_flags.CU_CTX_SCHED_BLOCKING_SYNC)


@pytest.mark.gpu
def test_loops_on_the_gpu_as_the_compiled_engine_finds_them():
    gpu = _device_engine()
    args = (10 ** 6, 5, 40, 0, Deck.parse("10 2J 2Q"), 2, "random")
    assert gpu.sample_best(*args) == _engine.sample_best(*args)


@pytest.mark.gpu
def test_every_gpu_at_once_as_the_compiled_engine_plays():
    _device_engine()
    from beggar import gpu as engines
    every = engines.get("cuda", "all")
    args = (10 ** 7, 2027, 1800, 0, Deck.parse("standard"), 2, None)
    assert every.sample_best(*args) == _engine.sample_best(*args)
    deck = Deck.parse("half")
    assert every.census(10 ** 9, 10 ** 7, deck, 2, None, 10) == _engine.census(10 ** 9, 10 ** 7, deck, 2, None, 10)


@pytest.mark.gpu
def test_the_opencl_engine_on_an_opencl_gpu_as_the_compiled_engine_plays():
    from beggar.gpu import opencl
    try:
        found = [number for number, (_, device) in enumerate(opencl.devices()) if opencl.is_gpu(device)]
    except EngineFault as error:
        pytest.skip(f"no OpenCL here ({error})")
    if not found:
        pytest.skip("OpenCL lists no GPU here")
    from beggar import gpu as engines
    on_gpu = engines.get("opencl", (found[0],))
    for deck, split in TWO_PLAYER_TABLES:
        args = (10 ** 7, 2026, 1800, 3 * 10 ** 9, Deck.parse(deck), 2, split)
        assert on_gpu.sample_best(*args) == _engine.sample_best(*args)
