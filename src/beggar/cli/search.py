"""beggar search: run or resume a search job, and its summary."""

import sys

from ..archive import DEFAULT_PATH, Archive
from ..decks import Deck, hand_sizes
from ..engine import ALL_ENGINES
from ..loops import of_deal
from ..search import SearchError
from ..search import job as jobs
from .options import UsageError, count, players, seconds, seed, split, workers


#: The options that make a job's spec (the rest, --time and --workers, only say how to run it).
SPEC_OPTIONS = ("seed", "deals", "min_cards", "extend_cards", "deck", "players", "split")


def run_search(args, data=None):
    """Run the job of args (or of `data`, a job's keys, when given); returns
    (exit status, job id)."""
    from ..search.cluster import Cluster
    if args.cluster is not None and (args.gpu or args.engine == "gpu"):
        raise UsageError("a GPU job plays on this machine's GPU, not on a cluster")
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
    from ..search.drivers import TIMED, timed_chunk
    spec, fresh, timed, measured = None, False, False, None
    if args.gpu and args.engine not in (None, "gpu"):
        raise UsageError(f"--gpu is --engine gpu: give one of them, not --engine {args.engine} too")
    engine_name = "gpu" if args.gpu else args.engine
    if args.resume is None:
        # The job is read and checked before the archive is opened: a bad job
        # file leaves no archive behind.
        if data is None:
            data = jobs.read(args.job) if args.job is not None else {}
        for key in SPEC_OPTIONS:
            if getattr(args, key) is not None:
                data[key] = getattr(args, key)
        if engine_name is not None:
            data["engine"] = engine_name
        fresh = data.get("seed") is None
        spec = jobs.check(data, args.job or "job")
        measured = pace.measure(spec)
        if spec["engine"] == "gpu":
            _check_gpu()        # a GPU job's chunks are the GPU's (jobs.GPU_DEFAULTS)
        elif "chunk" not in data and spec["driver"] in TIMED:
            # Sized by time on this deck and table, then fixed in the spec: a
            # resumed job, or one run again with its seed, plays the same chunks.
            spec["chunk"] = timed_chunk(spec)
            timed = True
        if "chunk" not in data:
            # Smaller still where its hits would take longer to cross-check.
            spec["chunk"] = pace.chunk_for(measured, spec["chunk"])
    elif args.job is not None:
        raise UsageError("give a JOB file or --resume, not both: a resumed job keeps its spec")
    else:
        changes = [f"--{key.replace('_', '-')}" for key in SPEC_OPTIONS if getattr(args, key) is not None]
        if changes:
            raise UsageError(f"--resume goes on with job {args.resume} as it was started; "
                             f"{', '.join(changes)} would change it (start a new job instead; "
                             "--time and --workers apply to a resumed job)")
    # The archive plays no game: an old one whose loop games must be linked to
    # their loops as it is brought to this format is handed what plays them.
    with Archive(args.archive, link_loop=of_deal) as archive:
        if args.resume is not None:
            job_id = args.resume
            if job_id == "last":
                job_id = archive.last_job()
                if job_id is None:
                    raise UsageError(f"{args.archive}: no job to resume: the archive holds none")
                print(f"resuming job {job_id}, the last one run (beggar archive jobs lists them all)",
                      file=sys.stderr)
            job = archive.job(job_id)
            if job["state"] == "done":
                games, loops = archive.kept_by(job_id)
                unit = jobs.unit(jobs.stored(job["spec"], f"{args.archive}: job {job_id}"))
                print(f"job {job_id} is done: {job['deals']:,} {unit}, "
                      f"best {job['best_cards']} cards, {plural(games, 'game')} and {plural(loops, 'loop')} kept")
                return 0, job_id
        else:
            job_id = new_job_id(spec)
            if spec["driver"] == "perturb":
                _perturb_start(archive, spec)
            if spec["driver"] == "eliminate":
                _eliminate_start(archive, spec)
            archive.add_job(job_id, spec)

        def started(spec):
            seed = "" if spec["driver"] == "census" else f"seed {spec['seed']}" + (
                f" (fresh: --seed {spec['seed']} plays these "
                f"{'walks' if spec['driver'] in jobs.FACTORY else 'deals'} again)" if fresh else "") + ", "
            chunk = (f", chunks of {spec['chunk']:,} {jobs.unit(spec)} (about {jobs.CHUNK_SECONDS:g} s "
                     "of a core here, measured)") if timed else ""
            engine = "" if spec["engine"] == "compiled" else f" on the {spec['engine']} engine"
            print(f"job {job_id}: {spec['driver']}{engine}, {seed}{describe_deals(spec)}{chunk}, "
                  f"archive {args.archive}", file=sys.stderr)
            flood = pace.warning(spec, measured if args.resume is None else pace.measure(spec))
            if flood is not None:
                print(flood, file=sys.stderr)

        if args.resume is not None and (engine_name or jobs.stored(job["spec"])["engine"]) == "gpu":
            _check_gpu()
        # A resumed job that had played before: its summary tells this run's
        # figures from the whole job's.
        before = job if args.resume is not None and job["chunks"] else None
        try:
            summary = run_job(archive, job_id, args.time, args.workers, progress=not args.quiet,
                              cluster=cluster, started=started, engine_name=engine_name)
        except SearchError as error:
            print_summary(error.summary, args.archive, args.cluster, _whole_job(archive, job_id, before))
            raise
        whole = _whole_job(archive, job_id, before)
    print_summary(summary, args.archive, args.cluster, whole)
    return exit_status(summary), job_id


def exit_status(summary):
    """What a run exits with: 0 when it ran to its budget or time limit, 130 when
    Ctrl-C stopped it (calmly or at once), 143 when SIGTERM did, as a shell
    reports a command those signals end."""
    if summary.reason.startswith(("Ctrl-C", "stopped at once")):
        return 130
    return 143 if summary.reason.startswith("SIGTERM") else 0


def _whole_job(archive, job_id, before):
    """What the job as a whole has done, for the summary of a run that went
    on with it (None for a job's first run, or where the archive cannot say)."""
    if before is None:
        return None
    try:
        job = archive.job(job_id)
        job["games"], job["loops"] = archive.kept_by(job_id)
    except Exception:       # the archive is what failed: the run's own figures stand alone
        return None
    return job


def _check_gpu():
    """No bindings, driver or GPU: one line, before the job is stored or a chunk played."""
    from ..gpu import device
    device.check()


def _perturb_start(archive, spec):
    """Fix the loops a perturb job starts from in its spec (factory.start_keys)."""
    from ..search.factory import start_keys
    spec["start"] = start_keys(archive, spec["deck"])
    if not spec["start"]:
        raise UsageError(f"no full loop of the {spec['deck']} deck to perturb: the archive holds none "
                         "and none is published (run a grow job first)")


def _eliminate_start(archive, spec):
    """Fix the loops an eliminate job starts from in its spec, one chunk each."""
    from ..search.factory import start_keys     # the loops of the deck, as a perturb job's
    spec["start"] = start_keys(archive, spec["deck"])
    if not spec["start"]:
        raise UsageError(f"no loop of the {spec['deck']} deck to search back from: the archive holds none "
                         "and none is published (run a grow or census job first)")
    spec["deals"] = len(spec["start"]) * spec["chunk"]


def describe_deals(spec):
    """What a job deals, in a few words: 'standard deck, 2 players, 26/26'."""
    deck = Deck.parse(spec["deck"])
    if spec["driver"] in jobs.FACTORY:
        return f"{deck} deck, 2 players, loops of any split"
    sizes = ("random split" if spec["split"] == "random"
             else "/".join(map(str, hand_sizes(deck.total, spec["players"], jobs.table(spec)["split"]))))
    return f"{deck} deck, {spec['players']} players, {sizes}"


def plural(count, word):
    """'1 deal', '2 deals', '1,000 loops'."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _processes(count):
    return f"{count:,} process{'' if count == 1 else 'es'}"


def print_summary(summary, archive_path, cluster=None, whole=None):
    """The summary of a run. `whole`: the job's figures (Archive.job with
    games and loops) when the run went on with a job that had played before;
    then each line says what is this run's and what the whole job's."""
    rate = summary.deals / summary.seconds if summary.seconds else 0
    if summary.driver in jobs.FACTORY:
        return _print_factory_summary(summary, archive_path, cluster, rate, whole)
    run = " in this run" if whole is not None else ""
    unit = "states" if summary.driver == "eliminate" else "deals"
    lines = [f"job      {summary.job}: {summary.state} ({summary.reason})",
             f"{unit:<8} {summary.deals:,}{run} in {summary.seconds:.1f} s: {rate:,.0f} {unit}/s "
             + (f"on the {'GPU' if summary.gpu[4] == 'gpu' else 'GPU kernels on one core'}, "
                f"{_processes(summary.workers)} checking its hits" if summary.gpu else
                f"on {plural(summary.workers, 'worker')}")
             + (f" of the cluster {cluster}" if cluster else "")]
    if summary.gpu:
        played, checked, checkers, behind, engine = summary.gpu
        player = "the GPU" if engine == "gpu" else "the GPU kernels on one core"
        lines.append(f"gpu      {played:.1f} s of {player} played the chunks kept, at "
                     f"{summary.deals / played if played else 0:,.0f} deals/s; checking them took "
                     f"{checked:.1f} s of {_processes(checkers)}"
                     + ("; the CPU side fell behind: the GPU waited for it (nothing was dropped); a higher "
                        "min_cards or extend_cards, or more cores, keeps up" if behind else ""))
    if summary.best is not None:
        deal, outcome = summary.best
        lines.append(f"best     {outcome.cards} cards, {outcome.tricks} tricks{run}: {deal}"
                     + (" (by family extension)" if summary.best_extended else ""))
    lines.append(f"hits     {summary.kept} kept{run} in {archive_path}"
                 + (f" ({summary.extended} by family extension)" if summary.extended else "")
                 + (f", {summary.known} already there" if summary.known else "")
                 + f"; {plural(summary.loops, 'loop')}")
    if whole is not None:
        lines.append(_whole_line(whole, "deals"))
    for line in summary.announced:
        lines.append(f"NEW      {line}")
    _print_ending(lines, summary, archive_path, cluster)


def _whole_line(whole, unit):
    """The whole job's figures, for the summary of a run that went on with it."""
    spec = jobs.stored(whole["spec"], f"job {whole['id']}")
    budget = f" of {spec['deals']:,}" if spec["deals"] else ""
    return (f"job all  {whole['deals']:,}{budget} {unit} in {plural(whole['chunks'], 'chunk')}, best "
            f"{whole['best_cards']} cards, {plural(whole['games'], 'game')} and {plural(whole['loops'], 'loop')} "
            "kept (every run of the job)")


def _print_factory_summary(summary, archive_path, cluster, rate, whole=None):
    """The summary of a grow or perturb job: tries, loops, and the prize, a
    balanced deal that never ends, in full."""
    run = " in this run" if whole is not None else ""
    lines = [f"job      {summary.job}: {summary.state} ({summary.reason})",
             f"tries    {summary.deals:,}{run} in {summary.seconds:.1f} s: {rate:,.0f} tries/s "
             f"on {plural(summary.workers, 'worker')}"
             + (f" of the cluster {cluster}" if cluster else ""),
             f"largest  {summary.largest} cards in a looping state{run}",
             f"loops    {plural(summary.full_loops, 'full loop')} reported{run}, "
             f"{len(summary.new_loops)} new to {archive_path}"]
    if whole is not None:
        lines.append(_whole_line(whole, "tries"))
    from ..finds import known_loops
    for loop_id, loop in summary.new_loops[:10]:
        known = known_loops(loop.deck).get(loop.hex)
        lines.append(f"  loop {loop_id}: period {loop.period[0]} tricks / {loop.period[1]} cards"
                     + (", a balanced state on its cycle" if loop.balanced else "") + f": {loop.deal()}"
                     + (f" (known: {known})" if known else ""))
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


def resume_command(job_id, archive_path, cluster=None):
    return (f"beggar search --resume {job_id}" + (f" --archive {archive_path}" if archive_path != DEFAULT_PATH else "")
            + (f" --cluster {cluster}" if cluster else ""))


def _print_ending(lines, summary, archive_path, cluster):
    if summary.note:
        lines.append(f"note     {summary.note}")
    if summary.state != "done":
        lines.append(f"resume   {resume_command(summary.job, archive_path, cluster)}")
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
    search.add_argument("--resume", metavar="ID", help="go on with job ID of the archive ('last': the job "
                        "run last; beggar archive jobs lists them)")
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
    parser.add_argument("--time", type=seconds, metavar="TIME",
                        help="stop after this long: seconds, or 90m, 8h, 2d (the bar shows the time left)")
    parser.add_argument("--workers", type=workers, metavar="N",
                        help=f"worker processes, at most 4 per core ({workers_default})")
    parser.add_argument("--archive", default=DEFAULT_PATH, metavar="PATH",
                        help=f"the archive (default {DEFAULT_PATH})")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="play the chunks on a Dask cluster: tcp://HOST:8786 for a running "
                             "scheduler, local:N to start N worker processes here "
                             "(needs pip install 'beggar[cluster]')")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--engine", choices=ALL_ENGINES,
                        help="the engine that plays the deals (default: the job's, else $BEGGAR_ENGINE, "
                             "else compiled); a resumed job may go on on another")
    parser.add_argument("--gpu", action="store_true",
                        help="play on the GPU: --engine gpu (two-player sample and census jobs; "
                             "needs pip install 'beggar[gpu]')")
