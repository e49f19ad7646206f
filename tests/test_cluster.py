"""Search jobs on a real Dask cluster: a scheduler and worker processes on this machine."""

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from beggar.archive import Archive
from helpers import bad_input, beggar, job_file, job_id, kept, start, wait_for_chunks

pytest.importorskip("distributed", reason="the cluster extra: pip install '.[cluster]'")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def scheduler():
    """A Dask scheduler and two single-threaded workers (no nanny, so that a
    killed worker stays dead): (address, [worker processes])."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    run = [sys.executable, "-m"]
    processes = [subprocess.Popen(run + ["distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                         "--port", str(port), "--dashboard-address", ":0"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    workers = [subprocess.Popen(run + ["distributed.cli.dask_worker", address, "--nthreads", "1",
                                       "--no-nanny", "--no-dashboard"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(2)]
    processes += workers
    try:
        from distributed import Client
        deadline = time.monotonic() + 60
        while True:         # until the scheduler answers and sees both workers
            try:
                with Client(address, timeout="2s") as client:
                    if len(client.scheduler_info()["workers"]) == 2:
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
