"""Throughput of a search job on one worker process, on two, and on a Dask
cluster of two local workers, in one run.

    python3 benchmarks/search_scaling.py [--deals N] [--min-cards C] [--no-cluster]

Runs the same random-sampling job through the real job runner (reference
replays, a real archive in a temporary folder) with one worker process, with
two, and (if Dask is installed) on a local Dask cluster of two single-threaded
worker processes, and prints deals/s of each and the ratios. The time counted
is the runner's whole run, worker start-up included (the Dask cluster is
started before).
"""

import argparse
import os
import tempfile

from beggar.archive import Archive
from beggar.search import job as jobs
from beggar.search.cluster import Cluster, ClusterError
from beggar.search.runner import run


def rate(workers, deals, min_cards, folder, cluster=None):
    name = f"w{workers}" + ("-dask" if cluster else "")
    spec = jobs.check({"name": name, "deals": deals, "min_cards": min_cards, "workers": workers})
    with Archive(os.path.join(folder, f"{name}.sqlite")) as archive:
        job_id = jobs.new_job_id(spec)
        archive.add_job(job_id, spec)
        summary = run(archive, job_id, progress=False, cluster=cluster)
    return summary.deals / summary.seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=40_000_000)
    parser.add_argument("--min-cards", type=int, default=4000)
    parser.add_argument("--no-cluster", action="store_true", help="leave out the Dask cluster")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        one = rate(1, args.deals, args.min_cards, folder)
        two = rate(2, args.deals, args.min_cards, folder)
        dask = None
        if not args.no_cluster:
            try:
                cluster = Cluster("local:2")
            except ClusterError as error:
                print(f"(no Dask run: {error})")
            else:
                try:
                    dask = rate(2, args.deals, args.min_cards, folder, cluster)
                finally:
                    cluster.close()
    print(f"search job, {args.deals:,} random deals, games of {args.min_cards}+ cards kept "
          f"({os.cpu_count()} cores seen)")
    print(f"  one worker process   {one:12,.0f} deals/s")
    print(f"  two worker processes {two:12,.0f} deals/s   ratio to one {two / one:.2f}x")
    if dask is not None:
        print(f"  Dask, local:2        {dask:12,.0f} deals/s   ratio to one {dask / one:.2f}x, "
              f"to two processes {dask / two:.2f}x")


if __name__ == "__main__":
    main()
