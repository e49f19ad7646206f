"""beggar search: run or resume a search job, and its summary."""

import sys

from ..archive import DEFAULT_PATH, Archive
from ..decks import Deck, hand_sizes
from ..search import SearchError
from ..search import job as jobs
from .options import UsageError, count, players, seconds, seed, split, workers


#: The options that make a job's spec (the rest, --time and --workers, only say how to run it).
SPEC_OPTIONS = ("seed", "deals", "min_cards", "extend_cards", "deck", "players", "split")


def run_search(args, data=None):
    """Run the job of args (or of `data`, a job's keys, when given); returns
    (exit status, job id)."""
    from ..search.cluster import Cluster
    if args.cluster is not None and args.workers is not None:
        raise UsageError("--workers is for this machine; a cluster has the workers it has")
    cluster = Cluster(args.cluster) if args.cluster is not None else None
    try:
        return _search(args, cluster, data)
    finally:
        if cluster is not None:
            cluster.close()


def _search(args, cluster, data):
    from ..search import pace
    from ..search.progress import plain_seconds
    from ..search.runner import new_job_id
    from ..search.runner import run as run_job
    plain_seconds()         # a bad BEGGAR_PROGRESS_SECONDS stops the job before it is stored
    spec, fresh, measured = None, False, None
    if args.resume is None:
        # The job is read and checked before the archive is opened: a bad job
        # file leaves no archive behind.
        if data is None:
            data = jobs.read(args.job) if args.job is not None else {}
        for key in SPEC_OPTIONS:
            if getattr(args, key) is not None:
                data[key] = getattr(args, key)
        fresh = data.get("seed") is None
        spec = jobs.check(data, args.job or "job")
        measured = pace.measure(spec)
        if "chunk" not in data:
            spec["chunk"] = pace.chunk_for(measured, spec["chunk"])
    elif args.job is not None:
        raise UsageError("give a JOB file or --resume, not both: a resumed job keeps its spec")
    else:
        changes = [f"--{key.replace('_', '-')}" for key in SPEC_OPTIONS if getattr(args, key) is not None]
        if changes:
            raise UsageError(f"--resume goes on with job {args.resume} as it was started; "
                             f"{', '.join(changes)} would change it (start a new job instead; "
                             "--time and --workers apply to a resumed job)")
    with Archive(args.archive) as archive:
        if args.resume is not None:
            job_id = args.resume
            job = archive.job(job_id)
            if job["state"] == "done":
                print(f"job {job_id} is done: {job['deals']:,} {jobs.unit(jobs.stored(job['spec']))}, "
                      f"{job['hits']} hits")
                return 0, job_id
        else:
            job_id = new_job_id(spec)
            if spec["driver"] == "perturb":
                _perturb_start(archive, spec)
            archive.add_job(job_id, spec)

        def started(spec):
            seed = "" if spec["driver"] == "census" else f"seed {spec['seed']}" + (
                f" (fresh: --seed {spec['seed']} plays these "
                f"{'walks' if spec['driver'] in jobs.FACTORY else 'deals'} again)" if fresh else "") + ", "
            print(f"job {job_id}: {spec['driver']}, {seed}{describe_deals(spec)}, archive {args.archive}",
                  file=sys.stderr)
            flood = pace.warning(spec, measured if args.resume is None else pace.measure(spec))
            if flood is not None:
                print(flood, file=sys.stderr)

        try:
            summary = run_job(archive, job_id, args.time, args.workers, progress=not args.quiet,
                              cluster=cluster, started=started)
        except SearchError as error:
            print_summary(error.summary, args.archive, args.cluster)
            raise
    print_summary(summary, args.archive, args.cluster)
    return 130 if summary.reason.startswith("stopped at once") else 0, job_id


def _perturb_start(archive, spec):
    """Fix the loops a perturb job starts from in its spec (factory.start_keys)."""
    from ..search.factory import start_keys
    spec["start"] = start_keys(archive, spec["deck"])
    if not spec["start"]:
        raise UsageError(f"no full loop of the {spec['deck']} deck to perturb: the archive holds none "
                         "and none is published (run a grow job first)")


def describe_deals(spec):
    """What a job deals, in a few words: 'standard deck, 2 players, 26/26'."""
    deck = Deck.parse(spec["deck"])
    if spec["driver"] in jobs.FACTORY:
        return f"{deck} deck, 2 players, loops of any split"
    sizes = ("random split" if spec["split"] == "random"
             else "/".join(map(str, hand_sizes(deck.total, spec["players"], jobs.table(spec)["split"]))))
    return f"{deck} deck, {spec['players']} players, {sizes}"


def print_summary(summary, archive_path, cluster=None):
    rate = summary.deals / summary.seconds if summary.seconds else 0
    if summary.driver in jobs.FACTORY:
        return _print_factory_summary(summary, archive_path, cluster, rate)
    lines = [f"job      {summary.job}: {summary.state} ({summary.reason})",
             f"deals    {summary.deals:,} in {summary.seconds:.1f} s: {rate:,.0f} deals/s "
             f"on {summary.workers} worker{'s' if summary.workers != 1 else ''}"
             + (f" of the cluster {cluster}" if cluster else "")]
    if summary.best is not None:
        deal, outcome = summary.best
        lines.append(f"best     {outcome.cards} cards, {outcome.tricks} tricks: {deal}"
                     + (" (by family extension)" if summary.best_extended else ""))
    lines.append(f"hits     {summary.kept} kept in {archive_path}"
                 + (f" ({summary.extended} by family extension)" if summary.extended else "")
                 + (f", {summary.known} already there" if summary.known else "")
                 + f"; {summary.loops} loop{'s' if summary.loops != 1 else ''}")
    for line in summary.announced:
        lines.append(f"NEW      {line}")
    _print_ending(lines, summary, archive_path, cluster)


def _print_factory_summary(summary, archive_path, cluster, rate):
    """The summary of a grow or perturb job: tries, loops, and the prize, a
    balanced deal that never ends, in full."""
    lines = [f"job      {summary.job}: {summary.state} ({summary.reason})",
             f"tries    {summary.deals:,} in {summary.seconds:.1f} s: {rate:,.0f} tries/s "
             f"on {summary.workers} worker{'s' if summary.workers != 1 else ''}"
             + (f" of the cluster {cluster}" if cluster else ""),
             f"largest  {summary.largest} cards in a looping state",
             f"loops    {summary.full_loops} full loop{'s' if summary.full_loops != 1 else ''} reported, "
             f"{len(summary.new_loops)} new to {archive_path}"]
    for loop_id, loop in summary.new_loops[:10]:
        lines.append(f"  loop {loop_id}: period {loop.period[0]} tricks / {loop.period[1]} cards"
                     + (", a balanced state on its cycle" if loop.balanced else "") + f": {loop.deal()}")
    if len(summary.new_loops) > 10:
        lines.append(f"  ... and {len(summary.new_loops) - 10} more "
                     f"(beggar archive list --loops --job {summary.job})")
    lines.extend(f"bound    {note}" for note in summary.bounds)
    if summary.prizes:
        lines.append(f"BALANCED {len(summary.prizes)} balanced deal{'s' if len(summary.prizes) != 1 else ''} "
                     "that never end, replayed by the reference engine and kept:")
        lines.extend(f"  {deal}  (game {game_id}, loop {loop_id})" for game_id, loop_id, deal in summary.prizes)
    else:
        lines.append("balanced no new balanced deal in a basin")
    lines.extend(f"NEW      {line}" for line in summary.announced)
    _print_ending(lines, summary, archive_path, cluster)


def _print_ending(lines, summary, archive_path, cluster):
    if summary.note:
        lines.append(f"note     {summary.note}")
    if summary.state != "done":
        lines.append(f"resume   beggar search --resume {summary.job}"
                     + (f" --archive {archive_path}" if archive_path != DEFAULT_PATH else "")
                     + (f" --cluster {cluster}" if cluster else ""))
    print("\n".join(lines))


def add(commands):
    """Declare these commands on the `beggar` parser's subcommands."""
    search = commands.add_parser(
        "search", help="hunt long games and loops, keeping them in the archive",
        description="Run a search job until its budget is spent, --time passes, or Ctrl-C / "
                    "SIGTERM (a second one stops at once). Every hit is replayed by the "
                    "reference engine and kept in the archive as it comes; a stopped job "
                    "goes on with --resume. With no JOB, a default job: random 26/26 deals, "
                    "games of 2800 cards and more kept, each with a family search, on every core.",
        epilog="JOB is a TOML file (see the search/ folder): name, driver (sample, climb, census, "
               "grow or perturb), seed (none: a fresh one, printed and stored), workers, min_cards, "
               "extend_cards, deals, chunk, deck, players, split, basin_states, basin_seconds, and a "
               "[climb], [grow] or [perturb] table. Progress is a bar on a terminal, else a plain line "
               "a minute (BEGGAR_PROGRESS_SECONDS).")
    search.add_argument("job", nargs="?", metavar="JOB")
    search.add_argument("--resume", metavar="ID", help="go on with job ID of the archive")
    add_run_options(search, "default: the job's, else one per core")
    search.add_argument("--seed", type=seed, metavar="S", help="the job's seed")
    search.add_argument("--deals", type=count, metavar="N",
                        help="budget in deals, in tries for grow and perturb (0: until stopped)")
    search.add_argument("--min-cards", type=count, metavar="N", help="keep games at least this long")
    search.add_argument("--extend-cards", type=count, metavar="N",
                        help="give a kept game this long a family search (0: none)")
    search.add_argument("--deck", metavar="DECK",
                        help="the deck dealt: standard, camicia, half, half-camicia, or counts such as "
                             "'18 2J 2Q 2K 2A' (default standard)")
    search.add_argument("--players", type=players, metavar="N", help="players, 2 to 4 (default 2)")
    search.add_argument("--split", type=split, metavar="K",
                        help="two players: cards in the first hand, 'even' (default) or 'random'")
    search.set_defaults(run=lambda args: run_search(args)[0])


def add_run_options(parser, workers_default):
    """The options of how a job runs, which every command that runs one takes."""
    parser.add_argument("--time", type=seconds, metavar="SECONDS", help="stop after this long")
    parser.add_argument("--workers", type=workers, metavar="N",
                        help=f"worker processes, at most 4 per core ({workers_default})")
    parser.add_argument("--archive", default=DEFAULT_PATH, metavar="PATH",
                        help=f"the archive (default {DEFAULT_PATH})")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="play the chunks on a Dask cluster: tcp://HOST:8786 for a running "
                             "scheduler, local:N to start N worker processes here "
                             "(needs pip install 'beggar[cluster]')")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
