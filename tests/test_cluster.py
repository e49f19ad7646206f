"""Search jobs on a real Dask cluster: a scheduler and worker processes on this machine, GPU
workers (the resource GPU, playing gpu-host) among them for GPU jobs."""

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager

import pytest

from beggar.archive import Archive
from helpers import bad_input, beggar, fault, job_file, job_id, kept, start, wait_for_chunks

pytest.importorskip("distributed", reason="the cluster extra: pip install '.[cluster]'")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def dask_cluster(cpus=2, gpus=0):
    """A Dask scheduler and single-threaded workers (no nanny, so that a
    killed worker stays dead): `cpus` named cpu-0, cpu-1, ..., and `gpus` with
    the resource GPU=1 named gpu-0, ...; (address, {name: worker process})."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    run = [sys.executable, "-m"]
    processes = [subprocess.Popen(run + ["distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                         "--port", str(port), "--dashboard-address", ":0"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    names = [f"cpu-{k}" for k in range(cpus)] + [f"gpu-{k}" for k in range(gpus)]
    workers = {name: subprocess.Popen(run + ["distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny",
                                             "--no-dashboard", "--name", name]
                                      + (["--resources", "GPU=1"] if name.startswith("gpu") else []),
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for name in names}
    processes += workers.values()
    try:
        from distributed import Client
        deadline = time.monotonic() + 60
        while True:         # until the scheduler answers and sees every worker
            try:
                with Client(address, timeout="2s") as client:
                    if len(client.scheduler_info(n_workers=-1)["workers"]) == len(names):
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the Dask cluster did not start"
            time.sleep(0.5)
        yield address, workers
    finally:
        for process in processes:
            process.kill()
            process.wait()


@pytest.fixture
def scheduler():
    """A Dask scheduler and two single-threaded workers: (address, [worker processes])."""
    with dask_cluster() as (address, workers):
        yield address, list(workers.values())


@pytest.mark.slow
def test_a_local_cluster_keeps_the_same_hits_as_the_process_pool(tmp_path):
    spec = job_file(tmp_path, deals=400_000, min_cards=2000)
    on_cluster, on_pool = tmp_path / "cluster.sqlite", tmp_path / "pool.sqlite"
    result = beggar("search", spec, "--cluster", "local:2", "--archive", on_cluster, "--quiet")
    assert result.returncode == 0, result.stderr
    assert "on 2 workers of the cluster local:2" in result.stdout
    assert beggar("search", spec, "--archive", on_pool, "--quiet").returncode == 0
    assert kept(on_cluster) == kept(on_pool) and kept(on_pool)


@pytest.mark.slow
def test_a_killed_worker_loses_and_repeats_nothing(tmp_path, scheduler):
    address, workers = scheduler
    spec = job_file(tmp_path, deals=6_000_000, chunk=100_000, min_cards=2500)
    archive = tmp_path / "archive.sqlite"
    job = start("search", spec, "--cluster", address, "--archive", archive, "--quiet")
    wait_for_chunks(archive, 8, job)
    workers[0].send_signal(signal.SIGKILL)
    out, err = job.communicate(timeout=180)
    assert job.returncode == 0, err
    assert "done (budget spent)" in out and "on 1 worker of the cluster" in out
    name = job_id(out)
    with Archive(archive) as opened:
        assert opened.job(name)["chunks"] == 60 and opened.job(name)["deals"] == 6_000_000
        assert opened.db.execute("SELECT count(*) FROM chunks WHERE job = ?", (name,)).fetchone() == (60,)
    alone = tmp_path / "alone.sqlite"
    assert beggar("search", spec, "--archive", alone, "--quiet").returncode == 0
    assert kept(archive) == kept(alone) and kept(alone)


@pytest.mark.slow
def test_an_address_that_does_not_answer(tmp_path):
    started = time.monotonic()
    line = bad_input(beggar("search", "--cluster", f"tcp://127.0.0.1:{free_port()}",
                            "--archive", tmp_path / "a.sqlite"), "no Dask scheduler answers there")
    assert time.monotonic() - started < 30, line
    bad_input(beggar("search", "--cluster", "local:0", "--archive", tmp_path / "a.sqlite"),
              "'local:N' needs a number of workers N >= 1")
    bad_input(beggar("search", "--cluster", "local:99999999999999999999", "--archive", tmp_path / "a.sqlite"),
              f"this machine runs at most {4 * os.cpu_count()} workers (4 per core)")
    with Archive(tmp_path / "a.sqlite") as archive:
        assert archive.db.execute("SELECT count(*) FROM jobs").fetchone() == (0,)


@pytest.mark.slow
def test_a_census_on_a_cluster_equals_one_on_this_machine(tmp_path):
    deck = "8 2J 1Q 1K"
    tables = []
    for where in ("--workers", "--cluster"):
        archive = tmp_path / f"{where[2:]}.sqlite"
        run = beggar("census", deck, "--chunk", "700", "--archive", archive, "--quiet",
                     *((where, "1") if where == "--workers" else (where, "local:2")))
        assert run.returncode == 0, run.stderr
        tables.append(run.stdout.split("\n\n", 1)[1].split("\n", 1)[1])      # the table, past its job id
    assert tables[0] == tables[1] and "loop deals" in tables[0]


# ---------------------------------------------------------------- GPU jobs: GPU workers play, any worker checks

def no_gpu_worker(address, engine):
    """The line that refuses a GPU job on a cluster with no GPU worker."""
    return (f"--cluster {address}: no worker there has the resource GPU to play this {engine} job's chunks; "
            f"start one per device: dask worker {address} --resources GPU=1 --nthreads 1")


def without_engine(games, engine):
    """Kept games ({deal: outcome}) without the engine that played them, each checked to be `engine`."""
    assert {played.pop("engine") for played in games.values()} <= {engine}
    return games


def test_a_cluster_without_a_gpu_worker_cannot_take_a_gpu_job():
    from distributed import LocalCluster
    from beggar.search.cluster import Cluster, ClusterError
    # A real scheduler and a CPU worker, in this process: started in a tenth of a second.
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=":0", silence_logs=logging.ERROR) as local:
        cluster = Cluster(local.scheduler_address)
        try:
            with pytest.raises(ClusterError) as refused:
                cluster.for_gpu("gpu-host")
            assert str(refused.value) == no_gpu_worker(local.scheduler_address, "gpu-host")
            assert cluster.gpu_counts() == (0, 1)
        finally:
            cluster.close()


@pytest.mark.slow
def test_a_gpu_job_on_a_cluster_without_a_gpu_worker_is_one_line_and_stores_nothing(tmp_path, scheduler):
    address, _ = scheduler
    archive = tmp_path / "a.sqlite"
    # However its engine is named: an option, the environment, its job file, --gpu (this
    # machine needs no GPU for it: the cluster's GPU workers would play).
    for how in ("--engine gpu-host", "BEGGAR_ENGINE=gpu-host", "engine = 'gpu-host'", "--gpu"):
        spec = job_file(tmp_path, extra="engine = 'gpu-host'\n" if how.startswith("engine") else "")
        result = beggar("search", spec, "--cluster", address, "--archive", archive,
                        *(how.split() if how.startswith("--") else ()),
                        env={"BEGGAR_ENGINE": "gpu-host"} if how.startswith("BEGGAR") else None)
        bad_input(result, no_gpu_worker(address, "cuda" if how == "--gpu" else "gpu-host"))
        assert not archive.exists()
    # A GPU job stored here and stopped, resumed there: the same line, nothing played;
    # resumed there on the compiled engine, it goes on.
    spec = job_file(tmp_path, deals=100_000, chunk=10_000, extra="extend_cards = 0\n")
    first = beggar("search", spec, "--engine", "gpu-host", "--archive", archive, "--quiet", "--time", "0.1")
    assert first.returncode == 0 and "stopped" in first.stdout, first
    name = job_id(first.stdout)
    with Archive(archive) as opened:
        chunks = opened.job(name)["chunks"]
    bad_input(beggar("search", "--resume", name, "--cluster", address, "--archive", archive),
              no_gpu_worker(address, "gpu-host"))
    with Archive(archive) as opened:
        assert opened.job(name)["chunks"] == chunks and opened.job(name)["state"] == "stopped"
    resumed = beggar("search", "--resume", "last", "--engine", "compiled", "--cluster", address, "--archive", archive,
                     "--quiet")
    assert resumed.returncode == 0 and "done (budget spent)" in resumed.stdout, resumed


@pytest.mark.slow
def test_a_gpu_job_on_local_n_plays_on_its_gpu_worker_and_keeps_the_games_of_one_machine(tmp_path):
    # Games of 800 cards and more: far more to check than one checking worker follows.
    spec = job_file(tmp_path, deals=200_000, chunk=50_000, min_cards=800, extra="extend_cards = 0\n")
    on_cluster, alone = tmp_path / "cluster.sqlite", tmp_path / "alone.sqlite"
    result = beggar("search", spec, "--engine", "gpu-host", "--cluster", "local:1", "--archive", on_cluster, "--quiet")
    assert result.returncode == 0, result
    assert "on 1 GPU worker of the cluster local:1, 1 worker checking its hits" in result.stdout
    assert "of the GPU workers played the chunks kept" in result.stdout
    assert "the CPU side fell behind: the GPU workers waited for it (nothing was dropped)" in result.stdout
    assert beggar("search", spec, "--archive", alone, "--quiet").returncode == 0
    assert without_engine(kept(on_cluster), "gpu-host") == without_engine(kept(alone), "compiled")
    assert len(kept(alone)) > 1000


@pytest.mark.slow
def test_a_gpu_job_stopped_on_a_cluster_goes_on_with_resume(tmp_path):
    spec = job_file(tmp_path, deals=3_000_000, chunk=100_000, min_cards=2000, extra="extend_cards = 0\n")
    archive, alone = tmp_path / "cluster.sqlite", tmp_path / "alone.sqlite"
    job = start("search", spec, "--engine", "gpu-host", "--cluster", "local:1", "--archive", archive, "--quiet")
    name = wait_for_chunks(archive, 3, job)
    job.send_signal(signal.SIGTERM)
    out, err = job.communicate(timeout=60)
    assert job.returncode == 143 and "stopped (SIGTERM" in out, (out, err)
    assert "cut off" not in out         # a chunk cancelled in either stage is let go at once
    with Archive(archive) as opened:
        assert 3 <= opened.job(name)["chunks"] < 30
    resumed = beggar("search", "--resume", name, "--cluster", "local:1", "--archive", archive, "--quiet")
    assert resumed.returncode == 0 and "done (budget spent)" in resumed.stdout, resumed
    with Archive(archive) as opened:
        assert opened.job(name)["chunks"] == 30 and opened.job(name)["deals"] == 3_000_000
    assert beggar("search", spec, "--archive", alone, "--quiet").returncode == 0
    assert without_engine(kept(archive), "gpu-host") == without_engine(kept(alone), "compiled")
    assert len(kept(alone)) > 5


@pytest.mark.slow
def test_a_gpu_worker_whose_device_cannot_play_is_one_line_naming_it(tmp_path):
    from beggar.gpu import cuda
    try:
        cuda.check()
    except cuda.GpuFault:
        archive = tmp_path / "a.sqlite"
        fault(beggar("search", "--gpu", "--deals", "1000", "--cluster", "local:1", "--archive", archive),
              "--cluster local:1: the GPU worker tcp://", "cannot play the cuda engine")
        assert not archive.exists()
    else:
        pytest.skip("this machine's GPU can play the cuda engine: its GPU worker passes the check")


@pytest.mark.slow
def test_a_gpu_worker_killed_mid_chunk_loses_and_repeats_nothing(tmp_path):
    from distributed import Client, get_task_stream
    spec = job_file(tmp_path, deals=3_000_000, chunk=100_000, min_cards=1500, extra="extend_cards = 0\n")
    archive, killed = tmp_path / "cluster.sqlite", tmp_path / "killed"

    def die_mid_chunk(dask_worker):
        # Run in the worker's event loop, which is what reports a chunk done:
        # one it still holds as executing has not been reported.
        playing = [ts.key for ts in dask_worker.state.executing if str(ts.key).startswith("played-")]
        if playing:
            killed.write_text(str(playing[0]))
            os.kill(os.getpid(), signal.SIGKILL)

    with dask_cluster(cpus=2, gpus=2) as (address, workers), Client(address) as client, \
            get_task_stream(client) as stream:
        named = {worker["name"]: where for where, worker in client.scheduler_info(n_workers=-1)["workers"].items()}
        job = start("search", spec, "--engine", "gpu-host", "--cluster", address, "--archive", archive, "--quiet")
        wait_for_chunks(archive, 2, job)
        while workers["gpu-0"].poll() is None:
            assert job.poll() is None, "the job ended before a GPU worker was killed mid-chunk"
            client.run(die_mid_chunk, workers=[named["gpu-0"]], on_error="return")
        out, err = job.communicate(timeout=300)
    assert job.returncode == 0, err
    assert "done (budget spent)" in out, out
    assert "on 1 GPU worker of the cluster" in out and "2 workers checking its hits" in out, out
    # Every chunk played on a GPU worker and checked on the cluster, never in
    # the job's process; the chunk cut off was played again on the other GPU worker.
    done = {name: [(record["key"], record["worker"]) for record in stream.data
                   if record["key"].startswith(f"{name}-") and record["status"] == "OK"]
            for name in ("played", "checked")}
    assert len({key for key, _ in done["played"]}) == len({key for key, _ in done["checked"]}) == 30
    assert {where for _, where in done["played"]} <= {named["gpu-0"], named["gpu-1"]}
    assert (killed.read_text(), named["gpu-1"]) in done["played"]
    assert (killed.read_text(), named["gpu-0"]) not in done["played"]
    name = job_id(out)
    with Archive(archive) as opened:
        assert opened.job(name)["chunks"] == 30 and opened.job(name)["deals"] == 3_000_000
        assert opened.db.execute("SELECT count(*) FROM chunks WHERE job = ?", (name,)).fetchone() == (30,)
    alone = tmp_path / "alone.sqlite"
    assert beggar("search", spec, "--archive", alone, "--quiet").returncode == 0
    assert without_engine(kept(archive), "gpu-host") == without_engine(kept(alone), "compiled")
    assert len(kept(alone)) > 5
