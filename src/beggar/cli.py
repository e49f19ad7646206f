"""The `beggar` command: play a deal, verify published records, replay saved games.

Errors a user can cause (a bad deal, a missing file, a malformed saved game)
are one line on standard error, naming the file and place, with exit status 2.
"""

import argparse
import itertools
import json
import os
import sys
from importlib import resources

from . import __version__, engine
from .archive import DEFAULT_PATH, Archive, ArchiveError
from .backward import MAX_SECONDS, MAX_STATES, BackwardError, basin, family
from .deal import DECKS, Deal, DealError
from .engine import ENGINES, EngineError
from .outcome import Outcome
from .rules import Rules
from .savefile import SavedGame, SaveFileError, load, mismatches, parse, to_json, to_text
from .search import job as jobs
from .search.cluster import Cluster, ClusterError
from .search.runner import SearchError, new_job_id
from .search.runner import run as run_job

EXIT_MISMATCH, EXIT_BAD_INPUT, EXIT_FAILED = 1, 2, 3

# Characters of the record notation: an argument made of these alone is a
# deal, anything else a file name.
_NOTATION = set("-/0123456789TXJQKAtxjqka ,") | set("SHDCshdc\u2660\u2665\u2666\u2663\u2664\u2661\u2662\u2667")


class UsageError(ValueError):
    """A command line that asks for something that cannot be done."""


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    # Deals often begin with '-', which argparse would take for an option:
    # a word of record notation holding a '/' is the DEAL, wherever it stands.
    deals = [word for word in argv[1:] if word.startswith("-") and "/" in word and set(word) <= _NOTATION]
    args = _parser().parse_args([word for word in argv if word not in deals])
    try:
        if deals:
            if not hasattr(args, "source") or args.source is not None or len(deals) > 1:
                raise UsageError(f"unexpected deal {deals[-1]!r}: {args.command} takes "
                                 + ("one DEAL" if hasattr(args, "source") else "no deal"))
            args.source = deals[0]
        return args.run(args)
    except (DealError, SaveFileError, EngineError, UsageError, ArchiveError, jobs.JobError,
            BackwardError, ClusterError) as error:
        print(f"beggar {args.command}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except SearchError as error:
        print(f"beggar {args.command}: {error}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (| head): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


# ---------------------------------------------------------------- play

def run_play(args):
    game = _game_from_args(args)
    outcome = engine.play(game.deal, game.rules.max_cards, game.rules.max_tricks,
                          engine=args.engine, detect_loops=game.rules.detect_loops)
    if args.json:
        print(json.dumps({"deal": str(game.deal), "rules": game.rules.as_dict(), **outcome.as_dict()}))
    else:
        print(_describe(game.deal, outcome))
    return 0


def _game_from_args(args):
    """The one game that play or replay is asked for, with the command line's limits."""
    if args.players is not None or args.seed is not None or args.index is not None:
        if args.source is not None:
            raise UsageError(f"give a {args.source_name} or --players/--seed, not both")
        if args.seed is None:
            raise UsageError("--players and --index need --seed: the seed decides the shuffle")
        game = SavedGame(Deal.shuffled(args.players or 2, args.seed, args.index or 0))
    else:
        if args.source is None:
            raise UsageError(f"give a {args.source_name} (record notation, a saved-game file, "
                             "or - for standard input), or --players/--seed")
        games = _read_games(args.source, args.deck)
        if len(games) != 1:
            raise UsageError(f"{args.source}: holds {len(games)} games; this takes one "
                             "(beggar verify checks many)")
        game = games[0]
    limits = game.rules.as_dict()
    for name in ("max_cards", "max_tricks"):
        if getattr(args, name) is not None:
            limits[name] = getattr(args, name)
    return SavedGame(game.deal, Rules(**limits), game.expected, game.name)


def _read_games(source, deck):
    """The games a DEAL argument stands for: notation, a file, or '-'. A word
    that names no file and is mostly notation is read as a deal, so that a
    mistyped card is reported as such rather than as a missing file."""
    if source != "-" and not os.path.exists(source):
        notation = sum(ch in _NOTATION for ch in source)
        if notation == len(source) or ("/" in source and notation >= 0.8 * len(source)):
            return [SavedGame(Deal.parse(source, deck))]
    return load(source, deck)


def _describe(deal, outcome):
    """The outcome as a few aligned lines for people."""
    lines = [f"deal     {deal}"]
    if outcome.status == "finished":
        lines.append(f"status   finished: hand {outcome.winner + 1} wins")
    elif outcome.status == "loop":
        lines.append("status   loop: the game never ends")
    else:
        verdict = "a draw" if outcome.winner is None else f"hand {outcome.winner + 1} holds the most cards"
        lines.append(f"status   stopped at the limit: {verdict}")
    note = " (counted when the repeated state is first seen)" if outcome.status == "loop" else ""
    lines.append(f"cards    {outcome.cards}{note}")
    lines.append(f"tricks   {outcome.tricks}")
    lines.append(f"hands    {' / '.join(str(c) for c in outcome.counts)} cards")
    if outcome.status == "loop":
        (entry_tricks, entry_cards), (period_tricks, period_cards) = outcome.loop_entry, outcome.loop_period
        lines.append(f"entry    after {entry_tricks} tricks / {entry_cards} cards")
        lines.append(f"period   {period_tricks} tricks / {period_cards} cards")
    lines.append(f"engine   {outcome.engine}")
    return "\n".join(lines)


# ---------------------------------------------------------------- verify

def run_verify(args):
    if args.file is None:
        text = resources.files(__package__).joinpath("data", "published-deals.json").read_text()
        games = parse(text, "published-deals.json", deck="standard")
    else:
        games = load(args.file, args.deck)
    missing = [i for i, game in enumerate(games, 1) if game.expected is None]
    if missing:
        raise UsageError(f"{args.file}: game {missing[0]} has no expected figures to verify")
    engines = ENGINES if args.engine is None else (args.engine,)
    rows = [("deal", "year", "expected", *engines)]
    failures = 0
    for number, game in enumerate(games, 1):
        want = game.expected
        row = [game.name or f"game {number}", str(game.year or ""), _figures(want["cards"], want["tricks"])]
        for name in engines:
            outcome = engine.play(game.deal, game.rules.max_cards, game.rules.max_tricks, engine=name,
                                  detect_loops=game.rules.detect_loops)
            wrong = mismatches(want, outcome)
            failures += bool(wrong)
            row.append(f"{_figures(outcome.cards, outcome.tricks)} {'MISMATCH' if wrong else 'OK'}")
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    verdict = f"{failures} MISMATCH" if failures else "all OK"
    print(f"{len(games)} deals, {len(engines)} engine{'s' if len(engines) > 1 else ''}: {verdict}")
    return EXIT_MISMATCH if failures else 0


def _figures(cards, tricks):
    return f"{cards}/{tricks}"


# ---------------------------------------------------------------- replay

def run_replay(args):
    if args.plot:
        _pyplot()       # before any work: a missing matplotlib is a usage error
    game = _game_from_args(args)
    outcome = engine.play(game.deal, game.rules.max_cards, game.rules.max_tricks,
                          engine=args.engine, detect_loops=game.rules.detect_loops)
    print(_describe(game.deal, outcome))
    status = 0
    if game.expected is not None:
        wrong = mismatches(game.expected, outcome)
        print("expected " + ("MISMATCH: " + "; ".join(wrong) if wrong else "OK, as saved"))
        status = EXIT_MISMATCH if wrong else 0
    tricks = list(itertools.islice(engine.tricks(game.deal), outcome.tricks))
    if args.trace:
        print()
        print(_trick_table(tricks, 0, game.deal))
    elif outcome.status == "loop":
        entry = outcome.loop_entry[0]
        hands = game.deal.hands if entry == 0 else tricks[entry - 1].hands
        leader = 0 if entry == 0 else tricks[entry - 1].taker
        print(f"\nthe state entering the loop, after trick {entry} (hand {leader + 1} leads):")
        for h, hand in enumerate(hands, 1):
            print(f"  hand {h}  {Deal.from_codes([hand])}  ({len(hand)} cards)")
        print(f"\none period, tricks {entry + 1} to {outcome.tricks}:")
        print(_trick_table(tricks, entry, game.deal))
    if args.plot:
        _plot(args.plot, game.deal, outcome, tricks)
        print(f"\nplot written to {args.plot}")
    return status


def _trick_table(tricks, first, deal):
    """Tricks first+1 .. len(tricks) as a table: leader, the cards laid, taker, hand sizes."""
    lines = [f"{'trick':>6}  {'led':>3}  {'took':>4}  {'hands':>{6 * deal.players - 1}}  cards laid"]
    for number, trick in enumerate(tricks[first:], first + 1):
        sizes = " ".join(f"{len(hand):>5}" for hand in trick.hands)
        laid = "".join("-JQKA"[card] for card in trick.pile)
        lines.append(f"{number:>6}  {trick.leader + 1:>3}  {trick.taker + 1:>4}  {sizes}  {laid}")
    return "\n".join(lines)


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'beggar[plot]'") from None
    return matplotlib.pyplot


def _plot(path, deal, outcome, tricks):
    plt = _pyplot()
    sizes = [[len(hand) for hand in deal.hands]] + [[len(hand) for hand in t.hands] for t in tricks]
    figure, axes = plt.subplots(figsize=(10, 4))
    for h in range(deal.players):
        axes.plot(range(len(sizes)), [row[h] for row in sizes], label=f"hand {h + 1}", linewidth=1)
    if outcome.status == "loop":
        entry, period = outcome.loop_entry[0], outcome.loop_period[0]
        axes.axvspan(entry, entry + period, color="orange", alpha=0.2,
                     label=f"loop: {period} tricks / {outcome.loop_period[1]} cards")
    axes.set_xlabel("trick")
    axes.set_ylabel("cards in hand")
    axes.set_title(f"{outcome.status}: {outcome.cards} cards, {outcome.tricks} tricks")
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    figure.tight_layout()
    try:
        figure.savefig(path)
    except (OSError, ValueError) as error:
        raise UsageError(f"--plot {path}: {error}") from None
    finally:
        plt.close(figure)


# ---------------------------------------------------------------- backward play

def _bound_note(stopped_by, args):
    if stopped_by is None:
        return "complete"
    bound = f"--max-states {args.max_states}" if stopped_by == "states" else f"--max-seconds {args.max_seconds:g}"
    return f"STOPPED by {bound}: there may be more"


def _game_to_its_end(args):
    game = _game_from_args(args)
    if game.rules != Rules():
        raise UsageError(f"{args.command} follows games to their end: limits do not apply")
    return game


def run_family(args):
    game = _game_to_its_end(args)
    found = family(game.deal, args.max_states, args.max_seconds, args.engine)
    hands, leader = found.final
    print(f"deal     {game.deal}")
    print(f"ending   hand {leader + 1} takes the last pile and holds all {len(hands[leader])} cards")
    print(f"family   {found.states:,} states ({_bound_note(found.stopped_by, args)}), "
          f"{found.balanced:,} balanced deals")
    if found.longest is None:
        print("longest  no balanced deal in the family")
        return 0
    deal, cards, tricks = found.longest
    mark = " (the deal given)" if deal == game.deal else ""
    print(f"longest  {deal}  {cards} cards, {tricks} tricks{mark}")
    if args.export:
        outcome = engine.play(deal, engine="reference")
        text = to_json(SavedGame(deal, name=f"longest balanced member of the family of {game.deal}"), outcome)
        try:
            with open(args.export, "w", encoding="utf-8") as file:
                file.write(text)
        except OSError as error:
            raise UsageError(f"{args.export}: cannot write ({error.strerror})") from None
        print(f"written  {args.export}")
    return 0


def run_basin(args):
    game = _game_to_its_end(args)
    found = basin(game.deal, args.max_states, args.max_seconds, args.engine)
    print(f"deal     {game.deal}")
    print(f"loop     {len(found.loop)} states, entered after trick {found.entry[0]} of this deal")
    for number, (hands, leader) in enumerate(found.loop, 1):
        sizes = "/".join(str(len(hand)) for hand in hands)
        print(f"  {number:>4}  hand {leader + 1} leads  {sizes:>5}  {Deal.from_codes(hands)}")
    print(f"basin    {found.states:,} states ({_bound_note(found.stopped_by, args)}), "
          f"{len(found.deals)} balanced deals, each replayed by the reference engine:")
    for deal, outcome in found.deals:
        entry, period = outcome.loop_entry or (None, None), outcome.loop_period or (None, None)
        print(f"  {deal}  {outcome.status}: entry {entry[0]} tricks / {entry[1]} cards, "
              f"period {period[0]} tricks / {period[1]} cards")
    return 0


# ---------------------------------------------------------------- search

def run_search(args):
    if args.cluster is not None and args.workers is not None:
        raise UsageError("--workers is for this machine; a cluster has the workers it has")
    cluster = Cluster(args.cluster) if args.cluster is not None else None
    try:
        return _search(args, cluster)
    finally:
        if cluster is not None:
            cluster.close()


def _search(args, cluster):
    with Archive(args.archive) as archive:
        if args.resume is not None:
            if args.job is not None:
                raise UsageError("give a JOB file or --resume, not both: a resumed job keeps its spec")
            job_id = args.resume
            job = archive.job(job_id)
            if job["state"] == "done":
                print(f"job {job_id} is done: {job['deals']:,} deals, {job['hits']} hits")
                return 0
        else:
            data = jobs.read(args.job) if args.job is not None else {}
            for key in ("seed", "deals", "min_cards"):
                if getattr(args, key) is not None:
                    data[key] = getattr(args, key)
            spec = jobs.check(data, args.job or "job")
            job_id = new_job_id(spec)
            archive.add_job(job_id, spec)
        print(f"job {job_id}: {archive.job(job_id)['spec']['driver']}, archive {args.archive}",
              file=sys.stderr)
        try:
            summary = run_job(archive, job_id, args.time, args.workers, progress=not args.quiet,
                              cluster=cluster)
        except SearchError as error:
            _print_summary(error.summary, args.archive, args.cluster)
            raise
    _print_summary(summary, args.archive, args.cluster)
    return 130 if summary.reason.startswith("stopped at once") else 0


def _print_summary(summary, archive_path, cluster=None):
    rate = summary.deals / summary.seconds if summary.seconds else 0
    lines = [f"job      {summary.job}: {summary.state} ({summary.reason})",
             f"deals    {summary.deals:,} in {summary.seconds:.1f} s: {rate:,.0f} deals/s "
             f"on {summary.workers} worker{'s' if summary.workers != 1 else ''}"
             + (f" of the cluster {cluster}" if cluster else "")]
    if summary.best is not None:
        deal, outcome = summary.best
        lines.append(f"best     {outcome.cards} cards, {outcome.tricks} tricks: {deal}")
    lines.append(f"hits     {summary.kept} kept in {archive_path}"
                 + (f" ({summary.extended} by family extension)" if summary.extended else "")
                 + (f", {summary.known} already there" if summary.known else "")
                 + f"; {summary.loops} loop{'s' if summary.loops != 1 else ''}")
    if summary.state != "done":
        lines.append(f"resume   beggar search --resume {summary.job}"
                     + (f" --archive {archive_path}" if archive_path != DEFAULT_PATH else "")
                     + (f" --cluster {cluster}" if cluster else ""))
    print("\n".join(lines))


# ---------------------------------------------------------------- archive

def run_archive_list(args):
    with Archive(args.archive) as archive:
        games = archive.games(loops=args.loops, records=args.records, min_cards=args.min_cards,
                              disputed=args.disputed, job=args.job, limit=args.limit)
    if not games:
        print("no games")
        return 0
    rows = [("id", "status", "cards", "tricks", "loop", "found by", "deal")]
    for game in games:
        loop = f"{game['entry_tricks']}+{game['period_tricks']}" if game["status"] == "loop" else ""
        status = game["status"] + (" DISPUTED" if game["disputed"] else "")
        rows.append((str(game["id"]), status, str(game["cards"]), str(game["tricks"]), loop,
                     f"{game['driver'] or ''} {game['job'] or ''}".strip(), game["deal"]))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    return 0


def _archived(game):
    """A kept game as (SavedGame, Outcome of the compiled engine)."""
    figures = dict(game["compiled"])
    for key in ("loop_entry", "loop_period"):
        if figures[key] is not None:
            figures[key] = (figures[key]["tricks"], figures[key]["cards"])
    figures["counts"] = tuple(figures["counts"])
    outcome = Outcome(**figures)
    saved = SavedGame(Deal.parse(game["deal"]), Rules(**game["rules"]), name=f"archive game {game['id']}")
    return saved, outcome


def run_archive_show(args):
    with Archive(args.archive) as archive:
        game = archive.game(args.id)
    saved, outcome = _archived(game)
    print(_describe(saved.deal, outcome))
    print(f"rules    {json.dumps(game['rules'])}")
    print("checked  reference engine: "
          + ("DISPUTED, it gives " + json.dumps(game["reference"]) if game["disputed"] else "agrees"))
    print(f"found    {game['found_at']} by job {game['job']} ({game['driver']}, seed {game['seed']}, "
          f"chunk {game['walk']})")
    if game["parent"] is not None:
        print(f"parent   game {game['parent']}")
    return 0


def run_archive_export(args):
    with Archive(args.archive) as archive:
        game = archive.game(args.id)
    saved, outcome = _archived(game)
    text = to_text(saved, outcome) if args.text else to_json(saved, outcome)
    if args.file is None or args.file == "-":
        sys.stdout.write(text)
        return 0
    try:
        with open(args.file, "w", encoding="utf-8") as file:
            file.write(text)
    except OSError as error:
        raise UsageError(f"{args.file}: cannot write ({error.strerror})") from None
    print(f"game {args.id} written to {args.file}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------- arguments

def _at_least(low, what):
    """An argparse type: a whole number of at least `low`."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"must be {what}, not {text!r}")
        return value
    return parse


_limit = _at_least(1, "a whole number of at least 1")
_whole = _at_least(0, "a whole number")


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        value = -1
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, not {text!r}")
    return value


def _players(text):
    if text not in ("2", "3", "4"):
        raise argparse.ArgumentTypeError(f"must be 2, 3 or 4, not {text!r}")
    return int(text)


def _add_game_options(parser):
    deal = parser.add_argument_group("a shuffled deal instead")
    deal.add_argument("--players", type=_players, metavar="N", help="players, 2 to 4 (default 2)")
    deal.add_argument("--seed", type=_whole, metavar="S", help="seed of the shuffle")
    deal.add_argument("--index", type=_whole, metavar="I",
                      help="deal number I of the seed, as beggar.sample numbers them (default 0)")
    rules = parser.add_argument_group("rules")
    rules.add_argument("--max-cards", type=_limit, metavar="N",
                       help="stop once the trick that lays the N-th card is resolved")
    rules.add_argument("--max-tricks", type=_limit, metavar="N", help="stop after N tricks")
    parser.add_argument("--deck", choices=DECKS, default="any",
                        help="'standard' also demands exactly the 52-card deck (default any)")
    parser.add_argument("--engine", choices=ENGINES,
                        help="default: $BEGGAR_ENGINE, else compiled")


def _parser():
    parser = argparse.ArgumentParser(
        prog="beggar", description="Play, verify and replay deals of Beggar-My-Neighbour.")
    parser.add_argument("--version", action="version", version=f"beggar {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = commands.add_parser(
        "play", help="play one deal and print how it ends",
        description="Play one deal and print its outcome: status, winner, cards, tricks, "
                    "hand sizes, and for a loop its entry and period.",
        epilog="DEAL is the record notation (hands split by '/', top card first, - for a plain "
               "card), a saved-game file (text or JSON), or - for standard input. Example: "
               "beggar play 'K-KK----K-A-----JAA--Q--J-/---Q---Q-J-----J------AQ--'")
    play.add_argument("source", nargs="?", metavar="DEAL")
    play.set_defaults(source_name="DEAL")
    _add_game_options(play)
    play.add_argument("--json", action="store_true", help="print the outcome as one JSON object")
    play.set_defaults(run=run_play)

    verify = commands.add_parser(
        "verify", help="replay published records (or your own file) on both engines",
        description="Replay every published record deal shipped with beggar, or the games of "
                    "FILE, on both engines, and compare with the expected figures. Exit status "
                    "1 on any mismatch.",
        epilog="FILE is JSON: a list of games, each {\"deal\": ..., \"expected\": {\"status\": ..., "
               "\"cards\": ..., \"tricks\": ...}} (see beggar.savefile), or the published-deals "
               "form with p1, p2, status, cards, tricks.")
    verify.add_argument("file", nargs="?", metavar="FILE")
    verify.add_argument("--engine", choices=ENGINES, help="check one engine only (default: both)")
    verify.add_argument("--deck", choices=DECKS, default="any",
                        help="'standard' also demands exactly the 52-card deck (default any)")
    verify.set_defaults(run=run_verify)

    replay = commands.add_parser(
        "replay", help="reproduce a saved game, trick by trick if asked",
        description="Reproduce a saved game and print its outcome, checked against the expected "
                    "figures the file carries; for a loop, the state where the loop is entered "
                    "and one full period, trick by trick. Exit status 1 if the outcome differs "
                    "from the expected one.",
        epilog="FILE is a saved game: one hand per line (top card first, # comments), the "
               "one-line record notation, or the JSON form; - reads standard input. Traces "
               "come from the reference engine.")
    replay.add_argument("source", nargs="?", metavar="FILE")
    replay.set_defaults(source_name="FILE")
    _add_game_options(replay)
    replay.add_argument("--trace", action="store_true",
                        help="print every trick: who led, who took the pile, hand sizes, cards laid")
    replay.add_argument("--plot", metavar="PNG",
                        help="draw the hand sizes over the tricks, the loop's period shaded "
                             "(needs matplotlib: pip install 'beggar[plot]')")
    replay.set_defaults(run=run_replay)

    for name, run, text in (
            ("family", run_family,
             "Find the family of a finished game: every state whose game ends the same way, "
             "by backward play from its final state. Prints how many balanced deals it holds "
             "and the longest of them."),
            ("basin", run_basin,
             "Find the basin of the loop a deal falls into: the loop's states and every "
             "balanced deal that enters it, each replayed by the reference engine.")):
        sub = commands.add_parser(name, help=text.split(":")[0].split(",")[0].lower(), description=text)
        sub.add_argument("source", nargs="?", metavar="DEAL")
        sub.set_defaults(source_name="DEAL", run=run)
        _add_game_options(sub)
        sub.add_argument("--max-states", type=_limit, default=MAX_STATES, metavar="N",
                         help=f"stop after N states (default {MAX_STATES:,})")
        sub.add_argument("--max-seconds", type=_seconds, default=MAX_SECONDS, metavar="S",
                         help=f"stop after S seconds of processor time (default {MAX_SECONDS:g})")
        if name == "family":
            sub.add_argument("--export", metavar="FILE",
                             help="write the longest balanced member as a saved game (JSON)")

    search = commands.add_parser(
        "search", help="hunt long games and loops, keeping them in the archive",
        description="Run a search job until its budget is spent, --time passes, or Ctrl-C / "
                    "SIGTERM (a second one stops at once). Every hit is replayed by the "
                    "reference engine and kept in the archive as it comes; a stopped job "
                    "goes on with --resume. With no JOB, a default job: random 26/26 deals, "
                    "games of 4000 cards and more kept, on every core.",
        epilog="JOB is a TOML file (see the search/ folder): name, driver (sample or climb), "
               "seed, workers, min_cards, deals, chunk, and a [climb] table.")
    search.add_argument("job", nargs="?", metavar="JOB")
    search.add_argument("--resume", metavar="ID", help="go on with job ID of the archive")
    search.add_argument("--time", type=_seconds, metavar="SECONDS", help="stop after this long")
    search.add_argument("--workers", type=_limit, metavar="N", help="worker processes (default: the job's, "
                        "else one per core)")
    search.add_argument("--seed", type=_whole, metavar="S", help="the job's seed")
    search.add_argument("--deals", type=_whole, metavar="N", help="budget in deals (0: until stopped)")
    search.add_argument("--min-cards", type=_whole, metavar="N", help="keep games at least this long")
    search.add_argument("--archive", default=DEFAULT_PATH, metavar="PATH",
                        help=f"the archive (default {DEFAULT_PATH})")
    search.add_argument("--cluster", metavar="ADDRESS",
                        help="play the chunks on a Dask cluster: tcp://HOST:8786 for a running "
                             "scheduler, local:N to start N worker processes here "
                             "(needs pip install 'beggar[cluster]')")
    search.add_argument("--quiet", action="store_true", help="no progress bar")
    search.set_defaults(run=run_search)

    archive = commands.add_parser(
        "archive", help="list, show and export the games searches kept",
        description="Look into the results archive.")
    archive_commands = archive.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = archive_commands.add_parser("list", help="kept games, best first (loops, then longest)",
                                          description="List kept games, best first: loops, then the "
                                                      "longest games.")
    listing.add_argument("--loops", action="store_true", help="loops only")
    listing.add_argument("--records", action="store_true",
                         help="finished games as long as a published record (4791 cards and more)")
    listing.add_argument("--min-cards", type=_whole, metavar="N", help="games of N cards and more")
    listing.add_argument("--disputed", action="store_true", help="games the engines disagree on")
    listing.add_argument("--job", metavar="ID", help="games found by job ID")
    listing.add_argument("--limit", type=_limit, default=50, metavar="N", help="at most N games (default 50)")
    listing.set_defaults(run=run_archive_list)
    show = archive_commands.add_parser("show", help="one kept game in full",
                                       description="Show one kept game: outcome, rules, check, finder.")
    show.add_argument("id", type=_whole, metavar="ID")
    show.set_defaults(run=run_archive_show)
    export = archive_commands.add_parser(
        "export", help="write a kept game as a saved game for beggar replay",
        description="Write a kept game in the saved-game form that beggar replay reads "
                    "(JSON, with its rules and outcome; --text for one hand per line).")
    export.add_argument("id", type=_whole, metavar="ID")
    export.add_argument("file", nargs="?", metavar="FILE", help="default: standard output")
    export.add_argument("--text", action="store_true", help="one hand per line instead of JSON")
    export.set_defaults(run=run_archive_export)
    for sub in (listing, show, export):
        sub.add_argument("--archive", default=DEFAULT_PATH, metavar="PATH",
                         help=f"the archive (default {DEFAULT_PATH})")
    return parser


if __name__ == "__main__":
    sys.exit(main())
