"""beggar search: run or resume a search job, and its summary."""

import os
import shlex
import sys

from ..archive import DEFAULT_PATH, Archive, archive_option
from ..engine import ALL_ENGINES, Choice, EngineError, argument
from ..gpu import ON_DEVICE
from ..loops import of_deal
from ..search import SearchError, drivers
from ..search import job as jobs
from ..variant import Variant
from .options import UsageError, add_variant_option, count, devices, players, seconds, seed, split, workers


#: The options that make a job's spec (the rest, --time and --workers, only say how to run it).
SPEC_OPTIONS = ("seed", "deals", "min_cards", "extend_cards", "deck", "variant", "players", "split")


def run_search(args):
    """Run a new job, or go on with job --resume; returns (exit status, job id)."""
    given = {key: getattr(args, key) for key in SPEC_OPTIONS if getattr(args, key) is not None}
    if args.resume is None:
        # The job file is read and checked before the archive is opened: a
        # bad one leaves no archive behind.
        data = jobs.read(args.job) if args.job is not None else {}
        return run(args, {**data, **given}, args.job or "job")
    if args.job is not None:
        raise UsageError("give a JOB file or --resume, not both: a resumed job keeps its spec")
    if given:
        raise UsageError(f"--resume goes on with job {args.resume} as it was started; "
                         f"{', '.join('--' + key.replace('_', '-') for key in given)} would change it "
                         "(start a new job instead; --time and --workers apply to a resumed job)")
    return run(args, resume=args.resume)


def run(args, data=None, where="job", resume=None):
    """Run a new job of `data` (a job's keys; `where` names them in errors),
    or go on with job `resume`, then print its summary; returns (exit status, job id)."""
    from ..search.cluster import Cluster
    if args.cluster is not None and args.workers is not None:
        raise UsageError("--workers is for this machine; a cluster has the workers it has")
    if args.cluster is not None and resume is None:
        # Before the cluster is reached: a GPU engine's climb (its engine as
        # the job will have it).
        named = (ON_DEVICE[0] if args.gpu else None) or args.engine or data.get("engine") or \
            os.environ.get("BEGGAR_ENGINE")
        try:
            engine = Choice(named)
        except EngineError:
            engine = None       # the job's check says so, in its words
        if engine is not None and engine.gpu:
            _climbs_off_cluster({"driver": data.get("driver"), "engine": engine})
    cluster = Cluster(args.cluster) if args.cluster is not None else None
    try:
        return _run(args, cluster, data, where, resume)
    finally:
        if cluster is not None:
            cluster.close()


def _run(args, cluster, data, where, resume):
    from ..search import pace
    from ..search.drivers.base import plural
    from ..search.progress import plain_seconds
    from ..search.runner import run as run_job
    from ..search.spec import CHUNK_SECONDS, PART_SECONDS
    plain_seconds()         # a bad BEGGAR_PROGRESS_SECONDS stops the job before it is stored
    new = None
    engine_name = engine_option(args, cluster)
    if args.devices is not None and engine_name is not None and not engine_name.gpu:
        raise UsageError(f"--devices names a GPU job's devices; --engine {engine_name} plays on the CPU")
    if resume is None:
        if engine_name is not None:
            data["engine"] = engine_name
        if args.devices is not None:
            data["devices"] = "all" if args.devices == "all" else list(args.devices)
        new = jobs.prepare(data, where, here=cluster is None)
        if cluster is not None and new.spec["engine"].gpu:
            _climbs_off_cluster(new.spec)
            cluster.for_gpu(new.spec["engine"])     # before the job is stored
    # The archive plays no game: an old one whose loop games must be linked to
    # their loops as it is brought to this format is handed what plays them.
    # A resume creates no archive: one that is not there is the one line every command gives.
    with Archive(args.archive, link_loop=of_deal, create=resume is None) as archive:
        if resume is not None:
            job_id = resume
            if job_id == "last":
                job_id = archive.last_job()
                if job_id is None:
                    raise UsageError(f"{args.archive}: no job to resume: the archive holds none")
                print(f"resuming job {job_id}, the last one run (beggar archive jobs lists them all)",
                      file=sys.stderr)
            job = archive.job(job_id)
            spec = jobs.stored(job["spec"], f"{args.archive}: job {job_id}")
            if job["state"] == "done":
                games, loops = archive.kept_by(job_id)
                driver = drivers.of(spec)
                # A job that plays no deals to their end has no best length to tell.
                best = f"best {job['best_cards']} cards, " if driver.plays.deals else ""
                print(f"job {job_id} is done: {job['deals']:,} {driver.budget.unit}, "
                      f"{best}{plural(games, 'game')} and {plural(loops, 'loop')} kept")
                return 0, job_id
        else:
            try:
                job_id = jobs.create(archive, new)
            except BaseException:
                archive.discard()       # a job refused before it is stored leaves no archive behind
                raise

        def started(spec):
            driver = drivers.of(spec)
            seed = "" if driver.plays.seed is None else f"seed {spec['seed']}" + (
                f" (fresh: --seed {spec['seed']} plays these {driver.plays.seed} again)"
                if new is not None and new.fresh else "") + ", "
            chunk = ""
            if new is not None and spec["chunk_seconds"]:
                # A chunk is as many parts as take chunk_seconds as the job runs (units.py).
                chunk = (f", chunks of about {spec['chunk_seconds']:g} s as it runs, in parts of {spec['chunk']:,} "
                         f"{driver.budget.unit}" + (f" (about {PART_SECONDS:g} s of a core here, measured)"
                                             if new.timed else ""))
            elif new is not None and new.timed:
                chunk = (f", chunks of {spec['chunk']:,} {driver.budget.unit} (about {CHUNK_SECONDS:g} s of a core here, "
                         "measured)")
            engine = "" if spec["engine"] == "compiled" else f" on the {spec['engine']} engine"
            if spec["devices"] is not None:
                engine += (" of every device" if spec["devices"] == "all" else
                           f" of device{'s' if len(spec['devices']) > 1 else ''} "
                           f"{', '.join(map(str, spec['devices']))}")
            print(f"job {job_id}: {spec['driver']}{engine}, {seed}{driver.describe(spec)}{chunk}, "
                  f"archive {located(args.archive)}", file=sys.stderr)
            flood = pace.warning(spec, new.pace if new is not None else pace.measure(spec))
            if flood is not None:
                print(flood, file=sys.stderr)

        if resume is not None:
            engine_then = engine_name or spec["engine"]
            problem = jobs.lay_on_problem(Variant.parse(spec["variant"]), drivers.of(spec), engine_then)
            if problem is not None:     # before the job's line: the job as it was stored stays as it was
                raise UsageError(f"job {job_id}: " + problem.replace('engine = "compiled"', "--engine compiled"))
            if cluster is None:
                jobs.check_device(engine_then, args.devices if args.devices is not None else spec["devices"])
            elif engine_then.gpu:
                _climbs_off_cluster({**spec, "engine": engine_then})
                cluster.for_gpu(engine_then)
        # A resumed job that had played before: its summary tells this run's
        # figures from the whole job's.
        before = job if resume is not None and job["chunks"] else None
        try:
            summary = run_job(archive, job_id, args.time, args.workers, progress=not args.quiet,
                              cluster=cluster, started=started, engine_name=engine_name, devices=args.devices)
        except SearchError as error:
            print_summary(error.summary, args.archive, args.cluster, _whole_job(archive, job_id, before))
            raise
        whole = _whole_job(archive, job_id, before)
    print_summary(summary, args.archive, args.cluster, whole)
    return exit_status(summary), job_id


def located(path):
    """A path as the user gave it, and where a relative one lies."""
    return str(path) if os.path.isabs(path) else f"{path} (in {os.getcwd()})"


def exit_status(summary):
    """What a run exits with: 130 for Ctrl-C, 143 for SIGTERM, as a shell
    reports a command those signals end; else 0."""
    if summary.reason.startswith(("Ctrl-C", "stopped at once")):
        return 130
    return 143 if summary.reason.startswith("SIGTERM") else 0


def _whole_job(archive, job_id, before):
    """What the job as a whole has done, for the summary of a run that went on with it, or None."""
    if before is None:
        return None
    try:
        job = archive.job(job_id)
        job["games"], job["loops"] = archive.kept_by(job_id)
        job["budget"] = jobs.stored(job["spec"], f"job {job_id}")["deals"]
    except Exception:       # the archive is what failed: the run's own figures stand alone
        return None
    return job


def _climbs_off_cluster(spec):
    """A driver whose GPU engine plays chunks in groups (a climb: the walks
    after the one asked for too) plays off a cluster, where every GPU
    worker handed one chunk of a group would play the whole group. One
    line, before anything is stored."""
    if spec.get("driver") in drivers.NAMES and not drivers.get(spec["driver"]).devices.cluster_gpus:
        raise UsageError(f"a {spec['driver']} job on the {spec['engine']} engine climbs its walks in groups on one "
                         "machine's devices, not on a cluster: run it without --cluster, or on the compiled engine")


def engine_option(args, cluster=None):
    """The engine --gpu or --engine names (None: neither): --gpu is "cuda" where
    an NVIDIA GPU can be used here, else "opencl" where OpenCL has a GPU
    (gpu.pick); on a cluster, whose GPU workers have the devices, "cuda"
    (--engine opencl says otherwise)."""
    if not args.gpu:
        return args.engine
    if args.engine is not None and not args.engine.on_device:
        raise UsageError(f"--gpu plays on a GPU (--engine {' or '.join(ON_DEVICE)}): give one of them, "
                         f"not --engine {args.engine} too")
    if args.engine is not None or cluster is not None:
        return args.engine or Choice(ON_DEVICE[0])
    from .. import gpu
    return Choice(gpu.pick())


def print_summary(summary, archive_path, cluster=None, whole=None):
    """The summary of a run, in its driver's lines (drivers.Driver.summary)."""
    lines = drivers.get(summary.driver).summary(summary, archive_path, cluster, whole)
    if summary.note:
        lines.append(f"note     {summary.note}")
    if summary.state != "done":
        lines.append(f"resume   {resume_command(summary.job, archive_path, cluster)}")
    print("\n".join(lines))


def resume_command(job_id, archive_path, cluster=None):
    return (f"beggar search --resume {job_id}" + archive_option(archive_path)
            + (f" --cluster {shlex.quote(cluster)}" if cluster else ""))


def _either(words):
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def add(commands):
    # Every driver and its table of options, from the registry: a driver
    # added there is named here too.
    names = _either(list(drivers.NAMES))
    shipped = ", ".join(jobs.shipped()) or "none found"
    tables = _either([f"[{driver.options}]" for driver in drivers.ALL if driver.options])
    search = commands.add_parser(
        "search", help="hunt long games and loops, keeping them in the archive",
        description="Run a search job until its budget is spent, --time passes, or Ctrl-C / "
                    "SIGTERM (a second one stops at once). Every hit is replayed by the "
                    "reference engine and kept in the archive as it comes; a stopped job "
                    "goes on with --resume. With no JOB, a default job: random 26/26 deals, "
                    "games of 2800 cards and more kept, each with a family search, on every core.",
        epilog=f"JOB is a TOML job file, or the name of one shipped with beggar ({shipped}: the "
               "search/ folder of its source, runnable from any folder). Its keys: name, driver "
               f"({names}), seed (none: a fresh one, printed and stored), workers, min_cards, extend_cards, "
               "deals, chunk, chunk_seconds, deck, players, split, basin_states, basin_seconds, and a "
               f"{tables} table. Progress is a bar on a terminal, else a plain line a minute, "
               "the first after 15 s (BEGGAR_PROGRESS_SECONDS).")
    search.add_argument("job", nargs="?", metavar="JOB")
    search.add_argument("--resume", metavar="ID", help="go on with job ID of the archive ('last': the job "
                        "run last; beggar archive jobs lists them)")
    add_run_options(search, "default: the job's, else one per core")
    search.add_argument("--seed", type=seed, metavar="S", help="the job's seed")
    search.add_argument("--deals", type=count, metavar="N",
                        help="budget in deals, in tries for grow and perturb, perturbations for hunt "
                             "(0: until stopped)")
    search.add_argument("--min-cards", type=count, metavar="N", help="keep games at least this long")
    search.add_argument("--extend-cards", type=count, metavar="N",
                        help="give a kept game this long a family search (0: none)")
    search.add_argument("--deck", metavar="DECK",
                        help="the deck dealt: standard, camicia, half, half-camicia, or counts such as "
                             "'18 2J 2Q 2K 2A' (default standard)")
    add_variant_option(search)
    search.add_argument("--players", type=players, metavar="N", help="players, 2 to 4 (default 2)")
    search.add_argument("--split", type=split, metavar="K",
                        help="two players: cards in the first hand, 'even' (default) or 'random'")
    search.set_defaults(run=lambda args: run_search(args)[0])


def add_run_options(parser, workers_default):
    parser.add_argument("--time", type=seconds, metavar="TIME",
                        help="stop after this long: seconds, or 90m, 8h, 2d (the bar shows the time left)")
    parser.add_argument("--workers", type=workers, metavar="N",
                        help=f"worker processes, at most 4 per core ({workers_default})")
    parser.add_argument("--archive", default=DEFAULT_PATH, metavar="PATH",
                        help=f"the archive (default {DEFAULT_PATH})")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="play the chunks on a Dask cluster: tcp://HOST:8786 for a running "
                             "scheduler, local:N to start N worker processes here; a GPU job plays on the "
                             "workers with the resource GPU (dask worker ADDRESS --resources GPU=1 --nthreads 1, "
                             "one per device) and checks on any worker, and local:N starts one such GPU worker "
                             "beside the N (needs the cluster extra: pip install '.[cluster]')")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--engine", type=argument, choices=ALL_ENGINES,
                        help="the engine that plays the deals (default: the job's, else $BEGGAR_ENGINE, "
                             "else compiled); a resumed job may go on on another")
    parser.add_argument("--gpu", action="store_true",
                        help="play on the GPU: --engine cuda where an NVIDIA GPU can be used, else --engine "
                             "opencl on an OpenCL GPU (two-player sample, census and perturb jobs; needs the gpu or "
                             "opencl extra: pip install '.[gpu]' or '.[opencl]')")
    parser.add_argument("--devices", type=devices, metavar="LIST",
                        help="a GPU job's devices: 'all', or numbers such as '0,2' as beggar gpu lists them "
                             "(default: the job's, else one)")
