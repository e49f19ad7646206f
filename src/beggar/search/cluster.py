"""Running a job's chunks on a Dask cluster (the optional extra 'cluster';
docs/searching.md, On a Dask cluster): `drivers.work` goes out as a task, a
GPU job's play to the workers with the resource GPU (gpu_pool.GpuPool).
"""

import logging

from ..checks import cut, is_digits
from ..contract import EngineFault
from ..errors import BadInput, Fault
from .spec import WORKERS_PER_CORE, max_workers

CONNECT_SECONDS = 5

#: The Dask worker resource of a worker that plays a GPU job's chunks, one
#: at a time: a worker per device, each with GPU=1.
GPU = "GPU"

#: How long a local cluster's GPU worker may take to start (imports, a busy machine).
START_SECONDS = 120


class ClusterError(BadInput):
    """A cluster that cannot be used; the message says which and why."""


class ClusterFault(Fault):
    """A local cluster whose GPU worker did not start; the message says so."""


class Cluster:
    """A connection to a Dask cluster: "tcp://HOST:PORT" for a running
    scheduler, or "local:N" for a cluster of N worker processes started here
    (and one GPU worker for a GPU job: for_gpu)."""

    def __init__(self, address):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ClusterError("--cluster needs Dask: pip install '.[cluster]' in beggar's source folder") from None
        self.address, self.local = address, None
        if address.startswith("local:"):
            count = address[len("local:"):]
            if not is_digits(count) or int(count) < 1:
                raise ClusterError(f"--cluster {cut(address)}: 'local:N' needs a number of workers N >= 1, "
                                   "in digits 0-9")
            if int(count) > max_workers():
                raise ClusterError(f"--cluster {cut(address)}: this machine runs at most {max_workers()} "
                                   f"workers ({WORKERS_PER_CORE} per core)")
            self.local = LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True,
                                      dashboard_address=":0", silence_logs=logging.ERROR)
            self.client = Client(self.local)
        else:
            try:
                self.client = Client(address, timeout=f"{CONNECT_SECONDS}s")
            except (OSError, TimeoutError, ValueError) as error:
                raise ClusterError(f"--cluster {address}: no Dask scheduler answers there ({error})") from None
        self.executor = self.client.get_executor(pure=False)
        # A GPU job's chunks, played on the workers with the resource GPU.
        self.gpu_executor = self.client.get_executor(pure=False, resources={GPU: 1})

    def _workers(self):
        """{address: the scheduler's description} of every worker alive."""
        return self.client.scheduler_info(n_workers=-1).get("workers", {})

    def workers(self):
        """Threads alive across the cluster's workers: the chunks it can play at once."""
        return sum(worker.get("nthreads", 1) for worker in self._workers().values())

    def gpu_counts(self):
        """(GPU workers, checking threads) alive: a GPU worker's chunks take one
        of its threads; with no other, any thread checks."""
        info = self._workers().values()
        gpus = sum(1 for worker in info if _has_gpu(worker))
        return gpus, max(1, sum(worker.get("nthreads", 1) for worker in info) - gpus)

    def for_gpu(self, engine_name):
        """Make the cluster ready for a job on the GPU engine `engine_name`,
        before the job is stored or goes on: a local cluster gets its GPU
        worker; ClusterError unless a worker has the resource GPU, EngineFault
        where a GPU worker cannot play the engine."""
        from .job import check_device
        if self.local is not None and "gpu" not in self.local.worker_spec:
            like = next(iter(self.local.worker_spec.values()))
            self.local.worker_spec["gpu"] = {"cls": like["cls"], "options": {**like["options"], "resources": {GPU: 1}}}
            self.local.scale(len(self.local.worker_spec))
            try:
                self.client.wait_for_workers(len(self.local.worker_spec), timeout=START_SECONDS)
            except TimeoutError:
                raise ClusterFault(f"--cluster {self.address}: its GPU worker did not start within "
                                   f"{START_SECONDS} s") from None
        gpus = sorted(address for address, worker in self._workers().items() if _has_gpu(worker))
        if not gpus:
            raise ClusterError(f"--cluster {self.address}: no worker there has the resource {GPU} to play this "
                               f"{engine_name} job's chunks; start one per device: "
                               f"dask worker {self.address} --resources {GPU}=1 --nthreads 1")
        checked = self.client.run(check_device, engine_name, workers=gpus, on_error="return")
        for address in gpus:
            if isinstance(checked.get(address), Exception):
                raise EngineFault(f"--cluster {self.address}: the GPU worker {address} cannot play the "
                                  f"{engine_name} engine: {checked[address]}")

    def close(self):
        self.client.close()
        if self.local is not None:
            self.local.close()


def _has_gpu(worker):
    """Whether a worker (as the scheduler describes it) has the resource GPU."""
    return worker.get("resources", {}).get(GPU, 0) > 0
