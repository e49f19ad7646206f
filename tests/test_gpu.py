"""The GPU engine: its kernels' own code on the CPU (gpu-host) held to the
compiled engine, the NVRTC compile without a device, the command's word on
where the machine stands; and, where a GPU is, the device itself (-m gpu)."""

import random
import signal
import sys

import pytest

from beggar import _engine, _gpu_host, census, engine
from beggar.decks import Deck
from beggar.gpu.engine import HIT, GpuRequestError, RangeEngine, block_dtype, shape_dtype
from beggar.gpu.host import HostBackend

from helpers import bad_input, beggar, job_file, kept, one_line, start, wait_for_chunks

HOST = engine.get("gpu-host")

#: Every shape of random two-player deal: (deck, split).
SHAPES = [("standard", None), ("camicia", None), ("half", None), ("standard", "random"),
          ("camicia", "random"), ("standard", 19)]


def both(call, *args):
    """The same call on gpu-host and on the compiled engine."""
    return getattr(HOST, call)(*args), getattr(_engine, call)(*args)


@pytest.mark.parametrize("deck, split, min_cards", [("standard", None, 1500), ("camicia", None, 1200),
                                                    ("half", None, 400), ("standard", "random", 1500)])
def test_a_million_random_deals_of_every_shape_as_the_compiled_engine_plays_them(deck, split, min_cards):
    # Hits, longest game and every game's length, bit for bit.
    gpu, compiled = both("sample_best", 10 ** 6, 2026, min_cards, 7 * 10 ** 9, Deck.parse(deck), 2, split)
    assert gpu == compiled
    assert len(gpu[0]) > 100 and gpu[2].games == 10 ** 6


@pytest.mark.parametrize("deck, split", SHAPES)
def test_every_game_of_a_sample_is_the_compiled_engines_game(deck, split):
    gpu, compiled = both("sample_best", 20_000, 11, 0, 0, Deck.parse(deck), 2, split)
    assert [hit[1] for hit in gpu[0]] == [hit[1] for hit in compiled[0]]
    assert gpu == compiled


@pytest.mark.parametrize("deck", ["16 2J", "8 2J 1Q", "20 3J 1Q", "14 2J 1K"])
@pytest.mark.parametrize("split", [None, "random"])
def test_decks_that_often_loop_give_the_compiled_engines_loops(deck, split):
    # Loops are located by the compiled engine; the kernels only see them repeat.
    gpu, compiled = both("sample_best", 30_000, 5, 40, 0, Deck.parse(deck), 2, split)
    assert gpu == compiled
    assert any(outcome.status == "loop" for _, outcome in gpu[0])


def test_a_hit_buffer_that_overflows_plays_the_launch_again_in_parts():
    small = RangeEngine("gpu-host", lambda: HostBackend(launch=1 << 14, capacity=64))
    gpu = small.sample_best(50_000, 3, 300, 0, Deck.parse("standard"), 2, None)
    assert gpu == _engine.sample_best(50_000, 3, 300, 0, Deck.parse("standard"), 2, None)
    assert len(gpu[0]) > 1000
    block = small.census(10 ** 6, 40_000, Deck.parse("half"), 2, None, 10)
    assert block == _engine.census(10 ** 6, 40_000, Deck.parse("half"), 2, None, 10)


@pytest.mark.parametrize("deck, split, first, deals", [
    ("12 2J 2Q 2K", None, 0, None),           # a whole census, with its 15 loop deals
    ("10 2J 2Q", 7, 0, None),
    ("9 1J 1Q 1K 1A", 5, 0, None),
    ("half", None, 1_234_567_890, 200_000),
    ("camicia", None, 10 ** 13, 100_000),
])
def test_census_blocks_as_the_compiled_engine_counts_them(deck, split, first, deals):
    deck = Deck.parse(deck)
    deals = deals or census.count(deck)
    gpu, compiled = both("census", first, deals, deck, 2, split, 10)
    assert gpu == compiled
    assert gpu.statuses["finished"] + gpu.statuses["loop"] == deals


def test_a_standard_census_block_across_a_change_of_its_64_bit_suffix():
    # The device unranks a suffix of fewer than 2^63 arrangements: a block
    # that runs past the end of one is cut there, the prefix changed.
    deck = Deck.parse("standard")
    cards = census.unrank(random.Random(4).randrange(census.count(deck)), deck)
    cards[-45:] = sorted(cards[-45:], reverse=True)
    first = census.rank(cards) - 500
    gpu, compiled = both("census", first, 1000, deck, 2, None, 5)
    assert gpu == compiled


def test_the_structs_are_laid_out_alike_in_c_and_numpy():
    assert _gpu_host.SIZES == {"shape": shape_dtype(_gpu_host.TOTAL).itemsize,
                               "block": block_dtype(_gpu_host.TOTAL).itemsize, "hit": HIT.itemsize}


def test_the_gpu_engines_keep_the_engine_contract():
    import inspect
    for name in engine.FUNCTIONS:
        stated = list(inspect.signature(getattr(engine.Engine, name)).parameters.values())[1:]
        given = list(inspect.signature(getattr(HOST, name)).parameters.values())
        assert [(p.name, p.default) for p in given] == [(p.name, p.default) for p in stated]


def test_three_players_a_deck_too_large_and_climbing_are_clear_refusals():
    with pytest.raises(GpuRequestError, match="two-player deals; 3 players play on the compiled engine"):
        HOST.sample(10, players=3)
    with pytest.raises(GpuRequestError, match="does not climb"):
        HOST.climb(1, 0, 10, 3000, None)
    with pytest.raises(GpuRequestError, match="3 players"):
        HOST.census(0, 10, Deck.parse("6 1J 1Q 1K"), 3)


def test_outcomes_say_which_engine_played_them():
    hits, best, _ = HOST.sample_best(5000, 1, 900)
    assert {outcome.engine for _, outcome in hits} == {"gpu-host"} and best[1].engine == "gpu-host"


# ---------------------------------------------------------------- jobs

def test_a_job_on_the_gpu_engine_keeps_the_games_of_the_same_job_on_the_cpu(tmp_path):
    path = job_file(tmp_path, deals=400_000, chunk=100_000, min_cards=1800, extra='extend_cards = 0\n')
    runs = {}
    for name in ("gpu-host", "compiled"):
        archive = tmp_path / f"{name}.sqlite"
        result = beggar("search", path, "--engine", name, "--archive", archive, "--quiet")
        assert result.returncode == 0, result
        runs[name] = {deal: played for deal, played in kept(archive).items() if played.pop("engine") == name}
    # The same games, each recorded with the engine that played it.
    assert runs["gpu-host"] == runs["compiled"] and len(runs["compiled"]) > 5


def test_a_job_stopped_on_one_engine_goes_on_on_another(tmp_path):
    path = job_file(tmp_path, deals=1_200_000, chunk=50_000, min_cards=1500, extra='extend_cards = 0\n')
    archive = tmp_path / "a.sqlite"
    job = start("search", path, "--engine", "gpu-host", "--archive", archive, "--quiet")
    wait_for_chunks(archive, 2, job)
    job.send_signal(signal.SIGTERM)
    out, err = job.communicate(timeout=60)
    assert job.returncode == 143 and "SIGTERM" in out, (out, err)
    resumed = beggar("search", "--resume", wait_for_chunks(archive, 1), "--engine", "compiled",
                     "--archive", archive, "--quiet")
    assert resumed.returncode == 0 and "done" in resumed.stdout, resumed
    whole = beggar("search", path, "--archive", tmp_path / "b.sqlite", "--quiet")
    assert whole.returncode == 0, whole
    games = {name: kept(tmp_path / name) for name in ("a.sqlite", "b.sqlite")}
    assert {played["engine"] for played in games["a.sqlite"].values()} == {"gpu-host", "compiled"}
    for played in [*games["a.sqlite"].values(), *games["b.sqlite"].values()]:
        played["engine"] = None
    assert games["a.sqlite"] == games["b.sqlite"]


def test_a_gpu_job_says_when_its_cpu_side_fell_behind(tmp_path):
    # gpu-host runs a GPU job's two stages: one process plays, others check.
    path = job_file(tmp_path, deals=200_000, chunk=50_000, min_cards=800, extra='extend_cards = 0\n')
    result = beggar("search", path, "--engine", "gpu-host", "--workers", "1", "--archive", tmp_path / "a.sqlite",
                    "--quiet")
    assert result.returncode == 0, result
    assert "on the GPU kernels on one core, 1 process checking its hits" in result.stdout
    assert "the CPU side fell behind: the GPU waited for it (nothing was dropped)" in result.stdout
    assert len(kept(tmp_path / "a.sqlite")) > 1000


def test_gpu_jobs_the_gpu_does_not_play_are_one_line(tmp_path):
    for extra in ("--players 3", "--engine gpu-host --players 4"):
        bad_input(beggar("search", "--engine", "gpu-host", *extra.split()[-2:], "--archive",
                         tmp_path / "a.sqlite"), "two-player deals")
    climb = job_file(tmp_path, driver="climb")
    bad_input(beggar("search", climb, "--engine", "gpu-host", "--archive", tmp_path / "a.sqlite"),
              "the climb driver runs on the compiled engine")
    bad_input(beggar("search", "--gpu", "--engine", "compiled", "--archive", tmp_path / "a.sqlite"), "--gpu")
    bad_input(beggar("search", "--gpu", "--cluster", "local:1", "--archive", tmp_path / "a.sqlite"), "cluster")
    assert not (tmp_path / "a.sqlite").exists()


@pytest.mark.parametrize("how", ["--engine gpu-host", "BEGGAR_ENGINE=gpu-host", "engine = 'gpu-host'"])
def test_a_gpu_host_job_is_refused_on_a_cluster_however_its_engine_is_named(tmp_path, how):
    """A gpu-host job ran on a Dask cluster, though GPU jobs refuse them."""
    archive = tmp_path / "a.sqlite"
    spec = job_file(tmp_path, extra="engine = 'gpu-host'\n" if how.startswith("engine") else "")
    args = ["search", spec, "--cluster", "tcp://127.0.0.1:9", "--archive", archive]   # never reached
    if how.startswith("--engine"):
        args += how.split()
    result = beggar(*args, env={"BEGGAR_ENGINE": "gpu-host"} if how.startswith("BEGGAR") else None)
    bad_input(result, "a GPU job (engine gpu-host) plays on this machine, not on a cluster")
    assert not archive.exists()


@pytest.mark.parametrize("stored", ["gpu", "gpu-host"])
def test_a_stored_gpu_job_resumed_on_a_cluster_is_refused_before_the_cluster_is_reached(tmp_path, stored):
    import sqlite3
    from contextlib import closing
    archive = tmp_path / "a.sqlite"
    first = beggar("search", job_file(tmp_path, deals=20_000, chunk=10_000), "--archive", archive, "--quiet",
                   "--time", "0.1")
    assert first.returncode == 0, first.stderr
    with closing(sqlite3.connect(archive)) as db:
        db.execute("UPDATE jobs SET spec = json_set(spec, '$.engine', ?), state = 'stopped'", (stored,))
        db.commit()
        (name,) = db.execute("SELECT id FROM jobs").fetchone()
    for resume in (name, "last"):
        bad_input(beggar("search", "--resume", resume, "--cluster", "tcp://127.0.0.1:9", "--archive", archive),
                  f"a GPU job (engine {stored}) plays on this machine, not on a cluster",
                  "or resume it with --engine compiled")


# ---------------------------------------------------------------- the compile, without a GPU

def _bindings():
    try:
        from beggar.gpu import device
        device.nvrtc_version()
    except Exception as error:          # bindings or NVRTC missing: GpuFault, named in the reason
        pytest.skip(f"NVRTC is not installed ({error}); pip install '.[gpu]' or '.[test]' installs it")
    return device


@pytest.mark.parametrize("arch", ["sm_80", "sm_89", "sm_90"])
def test_the_kernel_compiles_for_every_named_architecture_without_a_gpu(arch):
    device = _bindings()
    for ring in (8, 32, 256):
        cubin = device.compile_kernel(arch, ring)
        assert cubin.startswith(b"\x7fELF") and b"bg_sample" in cubin and b"bg_census" in cubin


def test_beggar_gpu_compiles_for_an_architecture_without_a_device():
    _bindings()
    result = beggar("gpu", "--arch", "sm_90")
    assert result.returncode == 0, result
    assert "kernel: compiles for sm_90" in result.stdout and "no device was used" in result.stdout


def test_beggar_gpu_says_in_one_line_when_there_is_no_gpu(tmp_path):
    device = _bindings()
    try:
        device.Device()
    except device.GpuFault:
        one_line(beggar("gpu"), 3, "beggar gpu:")
        archive = tmp_path / "a.sqlite"
        one_line(beggar("search", "--gpu", "--deals", "1000", "--archive", archive), 3, "beggar search:")
        one_line(beggar("census", "half", "--gpu", "--archive", archive), 3, "beggar census:")
        assert not archive.exists()
    else:
        result = beggar("gpu")
        assert result.returncode == 0 and "the gpu engine can run here" in result.stdout


def test_without_the_bindings_the_gpu_engine_names_the_extra(tmp_path, monkeypatch, capsys):
    # The bindings made unimportable in this process (a package's own .pth
    # file keeps a stand-in out of a subprocess); the command's main runs here.
    from beggar.cli import main
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)
    for command in (["gpu"], ["gpu", "--arch", "sm_90"], ["search", "--gpu", "--archive", str(tmp_path / "a.sqlite")]):
        assert main(command) == 3
        error = capsys.readouterr().err.strip()
        assert len(error.splitlines()) == 1 and "NVIDIA's CUDA bindings" in error, error
        assert "pip install 'beggar[gpu]'" in error
    assert not (tmp_path / "a.sqlite").exists()


def test_a_wrong_architecture_is_one_line():
    _bindings()
    one_line(beggar("gpu", "--arch", "sm_99"), 3, "cannot compile the kernel for sm_99")
    one_line(beggar("gpu", "--arch", "ninety"), 2, "--arch", "sm_90")


# ---------------------------------------------------------------- the device itself

def _device_engine():
    device = _bindings()
    try:
        return engine.get("gpu")
    except device.GpuFault as error:
        pytest.skip(f"no GPU here ({error})")


@pytest.mark.gpu
@pytest.mark.parametrize("deck, split", SHAPES)
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
def test_loops_on_the_gpu_as_the_compiled_engine_finds_them():
    gpu = _device_engine()
    args = (10 ** 6, 5, 40, 0, Deck.parse("10 2J 2Q"), 2, "random")
    assert gpu.sample_best(*args) == _engine.sample_best(*args)
