"""Throughput of a search job on one worker process and on two, in one run.

    python3 benchmarks/search_scaling.py [--deals N] [--min-cards C]

Runs the same random-sampling job through the real job runner (worker
processes, reference replays, a real archive in a temporary folder) with one
worker and with two, and prints deals/s of each and their ratio. The time
counted is the runner's whole run, worker start-up included.
"""

import argparse
import os
import tempfile

from beggar.archive import Archive
from beggar.search import job as jobs
from beggar.search.runner import new_job_id, run


def rate(workers, deals, min_cards, folder):
    spec = jobs.check({"name": f"w{workers}", "deals": deals, "min_cards": min_cards, "workers": workers})
    with Archive(os.path.join(folder, f"w{workers}.sqlite")) as archive:
        job_id = new_job_id(spec)
        archive.add_job(job_id, spec)
        summary = run(archive, job_id, progress=False)
    return summary.deals / summary.seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=40_000_000)
    parser.add_argument("--min-cards", type=int, default=4000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        one = rate(1, args.deals, args.min_cards, folder)
        two = rate(2, args.deals, args.min_cards, folder)
    print(f"search job, {args.deals:,} random deals, games of {args.min_cards}+ cards kept "
          f"({os.cpu_count()} cores seen)")
    print(f"  one worker  {one:12,.0f} deals/s")
    print(f"  two workers {two:12,.0f} deals/s   ratio {two / one:.2f}x")


if __name__ == "__main__":
    main()
