"""Search jobs on the GPU engines, through the real command: a job on the GPU
kernels (gpu-host here) keeps the games, loops and walks the same job keeps on
the compiled engine, on one device or several, stopped on one engine and gone
on on another; what a GPU job refuses in one line before anything is stored;
the engine "gpu", cuda's older name, in a job stored so."""

import shutil
import signal

import pytest

from beggar import engine
from beggar.engine import EngineFault

from helpers import bad_input, beggar, job_file, job_id, kept, one_line, start, wait_for_chunks


def games_on(tmp_path, path, runs):
    """The games job file `path` keeps on each of `runs` ({name: extra
    options}), each run in an archive of its own: {name: {deal: game}}, the
    engine that played a game left out of it (a run whose options name an
    engine must have recorded that engine with every game)."""
    kept_by = {}
    for name, more in runs.items():
        archive = tmp_path / f"{name}.sqlite"
        result = beggar("search", path, *more, "--archive", archive, "--quiet")
        assert result.returncode == 0, result
        games = kept(archive)
        engines = {played.pop("engine") for played in games.values()}
        assert "--engine" not in more or engines <= {more[more.index("--engine") + 1]}, (name, engines)
        kept_by[name] = games
    return kept_by


@pytest.mark.slow
def test_a_job_on_the_gpu_engine_keeps_the_games_of_the_same_job_on_the_cpu(tmp_path):
    path = job_file(tmp_path, deals=400_000, chunk=100_000, min_cards=1800, extra='extend_cards = 0\n')
    runs = games_on(tmp_path, path, {"gpu-host": ["--engine", "gpu-host"], "compiled": ["--engine", "compiled"]})
    # The same games, each recorded with the engine that played it.
    assert runs["gpu-host"] == runs["compiled"] and len(runs["compiled"]) > 5


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_job_on_several_devices_keeps_the_games_of_one(tmp_path):
    path = job_file(tmp_path, deals=400_000, chunk=100_000, min_cards=1800,
                    extra='extend_cards = 0\nengine = "gpu-host"\ndevices = [0, 1]\n')
    runs = games_on(tmp_path, path, {"several": [], "one": ["--devices", "0"], "compiled": ["--engine", "compiled"]})
    assert runs["several"] == runs["one"] == runs["compiled"] and len(runs["one"]) > 5


def test_a_gpu_climb_on_a_cluster_is_one_line_before_the_cluster_is_reached(tmp_path):
    archive = tmp_path / "a.sqlite"
    climb = job_file(tmp_path, driver="climb")
    bad_input(beggar("search", climb, "--engine", "gpu-host", "--cluster", "tcp://127.0.0.1:9", "--archive", archive),
              "a climb job on the gpu-host engine climbs its walks in groups on one machine's devices")
    assert not archive.exists()


def test_devices_are_checked_before_a_job_is_stored(tmp_path):
    archive = tmp_path / "a.sqlite"
    bad_input(beggar("search", "--engine", "gpu-host", "--devices", "0,x", "--archive", archive),
              "--devices", "must be 'all' or device numbers such as '0,2'")
    bad_input(beggar("search", "--engine", "gpu-host", "--devices", "1,1", "--archive", archive), "--devices")
    bad_input(beggar("search", "--engine", "compiled", "--devices", "all", "--archive", archive),
              "--devices names a GPU job's devices; --engine compiled plays on the CPU")
    bad_input(beggar("search", job_file(tmp_path, extra='engine = "gpu-host"\ndevices = [-1]\n'),
                     "--archive", archive), "a device number of 'devices' must be a whole number from 0 to 63")
    assert not archive.exists()


def test_the_engine_gpu_is_cuda_by_its_older_name_and_a_job_stored_so_goes_on(tmp_path, monkeypatch):
    import json
    import sqlite3
    from beggar.search import job as jobs
    # engine.get is lazy: no driver is touched until a call plays.
    assert engine.Choice("gpu") == "cuda" and engine.get("gpu") is engine.get("cuda")
    monkeypatch.setenv("BEGGAR_ENGINE", "gpu")
    assert engine.get() is engine.get("cuda") and engine.get().NAME == "cuda"
    monkeypatch.delenv("BEGGAR_ENGINE")
    # A job an older beggar stored with engine "gpu" (run here on gpu-host, its spec then as that archive holds it).
    archive = tmp_path / "a.sqlite"
    path = job_file(tmp_path, deals=40_000, chunk=20_000, extra='engine = "gpu-host"\nextend_cards = 0\n')
    result = beggar("search", path, "--archive", archive, "--quiet", "--time", "0.001")
    assert result.returncode == 0, result
    with sqlite3.connect(archive) as db:
        (number, text), = db.execute("SELECT id, spec FROM jobs").fetchall()
        spec = {**json.loads(text), "engine": "gpu"}
        db.execute("UPDATE jobs SET spec = ? WHERE id = ?", (json.dumps(spec), number))
    assert jobs.stored(spec)["engine"] == "cuda"
    name = job_id(result.stdout)
    # Where CUDA cannot be used it says why, in one line, as a cuda job would.
    if not _has_cuda():
        one_line(beggar("search", "--resume", name, "--archive", archive), 3, "beggar search: ")
    went_on = beggar("search", "--resume", name, "--engine", "gpu", "--archive", archive, "--quiet") \
        if _has_cuda() else beggar("search", "--resume", name, "--engine", "gpu-host", "--archive", archive, "--quiet")
    assert went_on.returncode == 0, went_on
    said = went_on.stdout + went_on.stderr
    assert ("on the gpu-host engine" if not _has_cuda() else "on the cuda engine") in said, said


def _has_cuda():
    from beggar.gpu import cuda
    try:
        cuda.check()
    except EngineFault:
        return False
    return True


@pytest.mark.slow
def test_a_perturb_job_on_the_gpu_kernels_keeps_the_loops_of_one_on_the_compiled_engine(tmp_path):
    # A grow job finds the loops of a small deck; perturb jobs start from them.
    from beggar.archive import Archive
    extra = 'deck = "18 3J"\nbasin_states = 20000\nbasin_seconds = 30\n'
    grown = tmp_path / "grown.sqlite"
    result = beggar("search", job_file(tmp_path, "g", driver="grow", seed=1, deals=100_000, chunk=100_000,
                                       extra=extra + "[grow]\nstart_courts = 0\n"), "--archive", grown, "--quiet")
    assert result.returncode == 0, result
    path = job_file(tmp_path, driver="perturb", seed=3, deals=400_000, chunk=200_000, extra=extra)
    found = {}
    for name in ("gpu-host", "compiled"):
        archive = tmp_path / f"{name}.sqlite"
        shutil.copy(grown, archive)
        result = beggar("search", path, "--engine", name, "--archive", archive, "--quiet")
        assert result.returncode == 0, result
        with Archive(archive) as opened:
            found[name] = sorted((row["key"], row["basin_states"]) for row in opened.loops())
    with Archive(grown) as opened:
        assert len(found["compiled"]) > len(opened.loops())         # new loops, each with its basin
    assert found["gpu-host"] == found["compiled"]


@pytest.mark.slow
def test_a_climb_job_on_the_gpu_kernels_keeps_the_games_of_one_on_the_compiled_engine(tmp_path):
    path = job_file(tmp_path, driver="climb", deals=90_000, chunk=3_000, min_cards=1200,
                    extra='extend_cards = 0\n[climb]\naccept = "late"\npatience = 50\n')
    runs = games_on(tmp_path, path, {"gpu-host": ["--engine", "gpu-host"], "compiled": ["--engine", "compiled"]})
    assert runs["gpu-host"] == runs["compiled"] and len(runs["compiled"]) > 20


@pytest.mark.slow
def test_a_gpu_job_says_when_its_cpu_side_fell_behind(tmp_path):
    # gpu-host runs a GPU job's two stages: one process plays, others check.
    path = job_file(tmp_path, deals=200_000, chunk=50_000, min_cards=800, extra='extend_cards = 0\n')
    result = beggar("search", path, "--engine", "gpu-host", "--workers", "1", "--archive", tmp_path / "a.sqlite",
                    "--quiet")
    assert result.returncode == 0, result
    assert "on the GPU kernels on one core, 1 process checking its hits" in result.stdout
    assert "the CPU side fell behind: the GPU waited for it (nothing was dropped)" in result.stdout
    assert len(kept(tmp_path / "a.sqlite")) > 1000


@pytest.mark.slow
def test_gpu_jobs_the_gpu_does_not_play_are_one_line(tmp_path):
    for extra in ("--players 3", "--engine gpu-host --players 4"):
        bad_input(beggar("search", "--engine", "gpu-host", *extra.split()[-2:], "--archive",
                         tmp_path / "a.sqlite"), "two-player deals")
    grow = job_file(tmp_path, driver="grow")
    bad_input(beggar("search", grow, "--engine", "gpu-host", "--archive", tmp_path / "a.sqlite"),
              "the grow driver runs on the compiled engine")
    anneal = job_file(tmp_path, "anneal", driver="climb", extra='[climb]\naccept = "anneal"\n')
    bad_input(beggar("search", anneal, "--engine", "gpu-host", "--archive", tmp_path / "a.sqlite"),
              "the gpu-host engine does not climb by anneal")
    bad_input(beggar("search", "--gpu", "--engine", "compiled", "--archive", tmp_path / "a.sqlite"), "--gpu")
    assert not (tmp_path / "a.sqlite").exists()
