"""Running a job's chunks on a Dask cluster (the optional extra 'cluster').

The cluster plays chunks and checks their hits: `drivers.work` goes out
as a task and a chunk's games come back replayed by the reference engine, so
the cross-check runs on the cluster's cores; this process is still the only
writer of the archive. A chunk whose worker dies is run again
by Dask on another worker; its hits are kept once, since the archive keeps a
deal once and a chunk's record once.
"""

import logging

from ..checks import cut, is_digits
from ..errors import BadInput
from .spec import WORKERS_PER_CORE, max_workers

CONNECT_SECONDS = 5


class ClusterError(BadInput):
    """A cluster that cannot be used; the message says which and why."""


class Cluster:
    """A connection to a Dask cluster: "tcp://HOST:PORT" for a running
    scheduler, or "local:N" for a cluster of N worker processes started here."""

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
                                      dashboard_address=None, silence_logs=logging.ERROR)
            self.client = Client(self.local)
        else:
            try:
                self.client = Client(address, timeout=f"{CONNECT_SECONDS}s")
            except (OSError, TimeoutError, ValueError) as error:
                raise ClusterError(f"--cluster {address}: no Dask scheduler answers there ({error})") from None
        self.executor = self.client.get_executor(pure=False)

    def workers(self):
        """Threads alive across the cluster's workers: the chunks it can play at once."""
        info = self.client.scheduler_info().get("workers", {})
        return sum(worker.get("nthreads", 1) for worker in info.values())

    def close(self):
        self.client.close()
        if self.local is not None:
            self.local.close()
