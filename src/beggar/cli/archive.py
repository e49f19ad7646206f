"""beggar archive list, show and export: what the searches kept."""

import argparse
import itertools
import json
import os
import shlex
import sys
from pathlib import Path

from .. import engine, family, loops
from ..archive import DEFAULT_PATH, Archive, archive_option
from ..cycle import key_hands
from ..deal import Deal
from ..published import RECORD_CARDS
from ..rules import Rules
from ..savefile import SavedGame, to_json, to_text
from ..search import drivers
from ..search.drivers import hunt
from ..search.drivers.base import plural
from .format import JOB_COLUMNS, describe, job_best, job_cells, job_played, loop_basin, table, trick_lines, when
from .options import PLOT_INSTALL, UsageError, count, game_id, limit, players, write_output


def run_archive_list(args):
    # An archive that is not there is refused by the open (store.no_such_archive):
    # a mistyped --archive must not read as 'no games'.
    if args.loops:
        return _list_loops(args)
    disputed = args.disputed or args.status == "disputed"
    status = args.status if args.status in ("finished", "loop", "stopped") else None
    filters = dict(record_cards=RECORD_CARDS if args.records else None, min_cards=args.min_cards,
                   disputed=disputed, job=args.job, deck=args.deck, players=args.players, status=status)
    with Archive(args.archive, readonly=True) as archive:
        games = archive.games(limit=args.limit, loops_first=False, **filters)
        total = archive.count_games(**filters)
        for game in games:
            archive.parent(game)    # one it names that is not there is a damaged row: exit 3
    listed = [{_LISTED_AS.get(key, key): game[key] for key in _LISTED} for game in games]
    if _json_or_none(args, "games", listed, total):
        return 0
    rows = [("id", "status", "cards", "tricks", "loop", "deck", "hands", "found by", "deal")]
    for game in games:
        loop = f"{game['entry_tricks']}+{game['period_tricks']}" if game["status"] == "loop" else ""
        status = game["status"] + (" DISPUTED" if game["disputed"] else "")
        rows.append((str(game["id"]), status, str(game["cards"]), str(game["tricks"]), loop, game["deck"],
                     "/".join(str(len(hand)) for hand in game["deal"].split("/")),
                     f"{game['driver'] or ''} {game['job'] or ''}".strip(), game["deal"]))
    print(table(rows))
    print(f"{len(games):,} of {total:,} game{'s' if total != 1 else ''} shown, longest first"
          + (" (--limit N shows more)" if len(games) < total else "")
          + ("; loop: entry+period in tricks (--loops lists the loops)" if any(row[4] for row in rows[1:]) else ""))
    return 0


def _json_or_none(args, what, rows, total):
    """Print `archive list`'s rows as --json asks, or "no games" ("no loops")
    for none: whether that was all."""
    if args.json:
        print(json.dumps({"shown": len(rows), "total": total, what: rows}, indent=1))
    elif not rows:
        print(f"no {what}")
    return args.json or not rows


#: The fields of a kept game that `archive list --json` prints.
_LISTED = ("id", "status", "cards", "tricks", "winner", "entry_tricks", "entry_cards", "period_tricks",
           "period_cards", "deck", "players", "split", "deal", "rules", "disputed", "job", "driver", "seed",
           "chunk", "parent", "found_at", "rank", "loop")
#: ... under the names it has always given them: the column `chunk` was
#: named `walk` before archive format 5, and scripts read this output.
_LISTED_AS = {"chunk": "walk"}


def job_rows(archive, archive_path):
    """Every job of an open archive as `archive jobs` shows it, oldest first."""
    from ..search import job as jobs
    from .search import resume_command
    rows = []
    for job in archive.job_figures():
        spec = jobs.stored(job["spec"], f"{archive.path}: job {job['id']}")
        state = job["state"]
        if state == "running" and archive.running(job["id"]) is False:
            state = "stopped"       # its process ended without saying so (killed)
        best = job["best_game"]
        driver = drivers.of(spec)
        rows.append({
            "id": job["id"], "driver": spec["driver"], "deck": spec["deck"], "players": spec["players"],
            "split": spec["split"], "table": driver.describe(spec), "state": state,
            "unit": driver.budget.unit, "played": job["deals"], "budget": spec["deals"] or None,
            # An eliminate job's "budget" is a bound its searches may stop short of.
            "bound": driver.bound(spec) is not None,
            "chunks": job["chunks"], "chunk": spec["chunk"], "seed": spec["seed"],
            # A job that plays no deals to their end (a hunt, the loop factory's walks) has no
            # longest game: its chunks' best_cards is its walks' largest looping state, not a length.
            "best": ({"cards": best["cards"], "tricks": best["tricks"], "game": best["id"], "deal": best["deal"],
                      "driver": best["driver"]} if best is not None
                     else {"cards": (job["best_cards"] or None) if driver.plays.deals else None, "tricks": None,
                           "game": None, "deal": None, "driver": None}),
            "games": job["games"], "loops": job["loops"], "started": job["created"], "last_ran": job["updated"],
            "resume": None if state in ("done", "running") else resume_command(job["id"], archive_path),
            **(driver.job_figures(archive, job["id"], spec) or {})})
    return rows


def run_archive_jobs(args):
    with Archive(args.archive, readonly=True) as archive:
        rows = job_rows(archive, args.archive)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    if not rows:
        print("no jobs")
        return 0
    if args.wide:
        print(table([JOB_COLUMNS, *map(job_cells, rows)]))
    else:
        # A few short lines a job, so that an 80-column terminal shows them
        # unwrapped; the resume command on a line of its own, whole, to copy.
        for row in rows:
            print(f"{row['id']}  {row['state']}")
            print(f"  {row['driver']}: {row['table']}")
            print(f"  played {job_played(row)}; best {job_best(row)}")
            print(f"  {plural(row['games'], 'game')} and {plural(row['loops'], 'loop')} kept")
            for line in drivers.get(row["driver"]).job_lines(row):
                print(f"  {line}")
            print(f"  started {when(row['started'])}, last ran {when(row['last_ran'])} (UTC)")
            if row["resume"]:
                print(f"  resume  {row['resume']}")
    print(f"{len(rows)} job{'s' if len(rows) != 1 else ''}; best: the longest finished game kept "
          "(beggar archive show GAME);\nloops: those it found first" + ("" if args.wide else "; --wide: one line a job"))
    return 0


def _list_loops(args):
    if args.records or args.min_cards is not None or args.disputed or args.players not in (None, 2):
        raise UsageError("--loops lists loops: --deck, --job and --limit narrow them "
                         "(--records, --min-cards, --disputed and --players are for games)")
    with Archive(args.archive, readonly=True) as archive:
        rows = archive.loops(deck=args.deck, job=args.job, limit=args.limit)
        total = archive.count_loops(deck=args.deck, job=args.job)
    # Under --json, the loops as the archive holds them (archive.readback.read_loop), as games are.
    if _json_or_none(args, "loops", rows, total):
        return 0
    lines = [("loop", "deck", "players", "period", "states", "balanced state on it", "balanced deals", "games",
              "basin", "found by")]
    for row in rows:
        # Its key's hands: an archive of format 5 or older, read as it stands, counts its table's seats.
        playing = sum(1 for hand in key_hands(row["key"]) if hand)
        basin = ("-" if playing > 2 else "not searched" if row["basin_states"] is None
                 else f"{row['basin_states']:,} states" + ("" if row["basin_stopped_by"] is None
                                                           else f", stopped by {row['basin_stopped_by']}"))
        finder = f"{row['driver'] or ''} {row['job'] or ''}".strip() + (
            f" chunk {row['chunk']}" if row["chunk"] is not None else "")
        lines.append((str(row["id"]), row["deck"], str(playing), f"{row['period_tricks']}/{row['period_cards']}",
                      f"{row['states']:,}", "yes" if row["balanced"] else "no",
                      "?" if row["basin_deals"] is None else f"{row['basin_deals']:,}", f"{row['games']:,}",
                      basin, finder))
    print(table(lines))
    print("players: those still in on its cycle; period: tricks/cards; states: on its cycle; balanced state on "
          "it: whether one of them is a balanced deal; balanced deals: those its basin search found that fall into "
          "it (of a loop of two players); games: kept games that fall into it, "
          f"at any table (the first in full: beggar archive show --loop {rows[0]['id']}{archive_option(args.archive)})")
    print(f"{len(rows):,} of {total:,} loop{'s' if total != 1 else ''} shown, those with balanced deals first"
          + (f" (--limit {total} shows every one)" if len(rows) < total else ""))
    return 0


def _show_loop(args):
    with Archive(args.archive, readonly=True) as archive:
        row = archive.loop(args.loop)
        seats = sorted(hunt.seats(archive, row["deck"], loop=row["key"]), key=lambda seat: seat["job"])
    deal, _ = loops.kept_state(row, args.archive)
    print(f"loop     {row['id']}: {row['deck']} deck, {deal.players} players, period {row['period_tricks']} "
          f"tricks / {row['period_cards']} cards, {row['states']} states on its cycle")
    print(f"state    {deal}  (its canonical state: the least on the cycle, leader's hand first)")
    print("balanced " + ("a balanced state lies on the cycle" if row["balanced"]
                         else "no state on the cycle is balanced"))
    named = family.of_loop(loops.of_deal(deal))
    print(f"family   {named.name}: a turn of {named.tricks} tricks that win {named.cards} cards (family.py: loops of "
          "the same tricks in any order)")
    print(f"found    {when(row['found_at'])} UTC by job {row['job']} ({row['driver']}"
          + ("" if row["chunk"] is None else f", chunk {row['chunk']}") + ")")
    basin, command = loop_basin(row, deal)
    print(f"basin    {basin}" + ("" if command is None else f": {command}"))
    # Its searches at the tables of more players: what hunts' seats found there, or the command that searches.
    for players in range(max(3, deal.players + (deal.players > 2)), 5):
        at = [seat for seat in seats if seat["players"] == players]
        for seat in at:
            bound = "complete" if seat["stopped_by"] is None else f"STOPPED by its {seat['stopped_by']} bound"
            best = "" if seat["best"] is None else f"; best {seat['smallest']} ({seat['best']})"
            print(f"at {players}     {seat['states']:,} states ({bound}), {seat['deals']:,} balanced deals{best}; "
                  f"by job {seat['job']}")
        if not at:
            print(f"at {players}     not searched: beggar basin {shlex.quote(str(deal))} --players {players}")
    for game in row["deals"]:
        print(f"  game {game['id']:<6} {game['deal']}  entry {game['entry_tricks']} tricks / "
              f"{game['entry_cards']} cards ({game['driver']})")
    print("\none period, played from its canonical state:")
    for line in trick_lines(itertools.islice(engine.tricks(deal), row["period_tricks"]), 0, deal):
        print(line)
    return 0


def run_archive_show(args):
    from ..finds import outcome_of
    if (args.id is None) == (args.loop is None):
        raise UsageError("give a game ID or --loop N, not both" if args.loop is not None
                         else "give the ID of a game, or --loop N for a loop")
    if args.loop is not None:
        return _show_loop(args)
    with Archive(args.archive, readonly=True) as archive:
        game = archive.game(args.id)
        archive.parent(game)        # one it names that is not there is a damaged row: exit 3
        loop_id = archive.loop_id(game["deck"], game["loop"]) if game["loop"] else None
        if game["loop"] and loop_id is None:
            archive.check_loop_games()      # names the game and its key: exit 3
    print(describe(Deal.parse(game["deal"]), outcome_of(game["compiled"])))
    if loop_id is not None:
        print(f"loop     {loop_id} of the archive (beggar archive show --loop {loop_id}{archive_option(args.archive)})")
    print(f"rules    {json.dumps(game['rules'])}")
    print("checked  reference engine: "
          + ("DISPUTED, it gives " + json.dumps(game["reference"]) if game["disputed"] else "agrees"))
    # A deal a seat or a basin search found was found by no chunk: no "chunk None".
    print(f"found    {when(game['found_at'])} UTC by job {game['job']} ({game['driver']}, seed {game['seed']}"
          + ("" if game["chunk"] is None else f", chunk {game['chunk']}") + ")")
    if game["parent"] is not None:
        print(f"parent   game {game['parent']}")
    return 0


def run_archive_export(args):
    if args.loop is not None:
        return _export_loop(args)
    if args.id is None:
        raise UsageError("give the ID of a game, or --loop N for a loop")
    try:
        args.id = game_id(args.id)
    except argparse.ArgumentTypeError as error:
        raise UsageError(f"argument ID: {error}") from None
    from ..finds import saved_game
    with Archive(args.archive, readonly=True) as archive:
        saved, outcome = saved_game(archive, archive.game(args.id), args.name)
    return _write(saved, outcome, args, f"game {args.id}")


def _write(saved, outcome, args, what):
    text = to_text(saved, outcome) if args.text else to_json(saved, outcome)
    if args.file is None or args.file == "-":
        sys.stdout.write(text)
        return 0
    write_output(args.file, text)
    print(f"{what} written to {args.file}", file=sys.stderr)
    return 0


def _export_loop(args):
    if args.file is not None:
        raise UsageError("give a game ID or --loop N, not both")
    args.file = args.id         # with --loop, the one word given is the FILE
    from ..finds import job_spec, provenance_of_loop, saved_game
    with Archive(args.archive, readonly=True) as archive:
        row = archive.loop(args.loop)
        spec = job_spec(archive, row["job"])
        if row["deals"]:
            saved, outcome = saved_game(archive, row["deals"][0], args.name)
    if not row["deals"]:
        deal, outcome = loops.kept_state(row, args.archive)
        saved = SavedGame(deal, Rules(), name=args.name or (
            f"a state of the {row['deck']} deck that never ends (period {row['period_tricks']} tricks / "
            f"{row['period_cards']} cards, the canonical state of its loop), found by {row['driver']} job "
            f"{row['job']} on {row['found_at'][:10]}"), provenance=provenance_of_loop(row, args.archive, spec))
    return _write(saved, outcome, args, f"loop {args.loop}")


def run_archive_report(args):
    from .page import page
    with Archive(args.archive, readonly=True) as archive:
        if args.job is not None:
            archive.job(args.job)       # no such job: one line
        text = page(archive, job_rows(archive, archive.path), args.job)
    write_output(args.file, text)       # a full disk is a fault, as for every file written
    # Where it lies, as a browser opens it: a relative name alone says nothing of the folder.
    print(f"report written to {args.file} ({len(text.encode()) // 1024 + 1} KiB, one page: open "
          f"{Path(os.path.abspath(args.file)).as_uri()} in a browser)")
    return 0


def run_archive_census(args):
    from ..reports import tally
    if args.plot is not None:
        from . import plot
        pyplot = plot.prepare(args.plot)    # before any work, as every --plot
    with Archive(args.archive, readonly=True) as archive:
        result = tally.tally(archive, args.job)
    print("\n".join(tally.report(result, loops_shown=args.loops)))
    if args.plot is not None:
        plot.save(tally.figure(result, pyplot), args.plot)
        print(f"plot written to {args.plot}")
    return 0


def add(commands):
    archive = commands.add_parser(
        "archive", help="list, show and export the games searches kept",
        description="Look into the results archive.")
    archive_commands = archive.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = archive_commands.add_parser("list", help="kept games, longest first",
                                          description="List kept games, longest first, with their deck and "
                                                      "hands, and how many of the archive's games are shown.")
    listing.add_argument("--status", choices=("finished", "loop", "stopped", "disputed"),
                         help="only games of this status (disputed: those the engines disagree on)")
    listing.add_argument("--json", action="store_true", help="print the games as one JSON object")
    listing.add_argument("--loops", action="store_true",
                         help="the loops instead of games: period, states, balanced deals found, finder")
    listing.add_argument("--records", action="store_true",
                         help=f"finished games as long as a published record ({RECORD_CARDS} cards and more)")
    listing.add_argument("--min-cards", type=count, metavar="N", help="games of N cards and more")
    listing.add_argument("--disputed", action="store_true", help="games the engines disagree on")
    listing.add_argument("--deck", metavar="DECK", help="games of this deck (a name or counts)")
    listing.add_argument("--players", type=players, metavar="N", help="games of N players")
    listing.add_argument("--job", metavar="ID", help="games found by job ID")
    listing.add_argument("--limit", type=limit, default=50, metavar="N",
                         help="at most N games, or loops with --loops (default 50)")
    listing.set_defaults(run=run_archive_list)
    jobs = archive_commands.add_parser(
        "jobs", help="the jobs of the archive: state, progress, best game, how to resume",
        description="List the archive's jobs, oldest first: driver, what they deal, state (done, "
                    "stopped, running, failed), what they played of their budget, their longest game "
                    "kept, the games and loops they kept, when they started and last ran, and the "
                    "command that resumes them.")
    jobs.add_argument("--json", action="store_true", help="print the jobs as a JSON list")
    jobs.add_argument("--wide", action="store_true",
                      help="one line a job, every field in a column (some 200 columns wide)")
    jobs.set_defaults(run=run_archive_jobs)
    show = archive_commands.add_parser("show", help="one kept game (or loop) in full",
                                       description="Show one kept game: outcome, rules, check, finder; "
                                                   "or with --loop N one kept loop and its cycle.")
    show.add_argument("id", type=game_id, metavar="ID", nargs="?")
    show.add_argument("--loop", type=game_id, metavar="N", help="loop N (beggar archive list --loops)")
    show.set_defaults(run=run_archive_show)
    export = archive_commands.add_parser(
        "export", help="write a kept game as a saved game for beggar replay",
        description="Write a kept game in the saved-game form that beggar replay reads "
                    "(JSON, with its rules and outcome; --text for one hand per line).")
    export.add_argument("id", metavar="ID", nargs="?")
    export.add_argument("file", nargs="?", metavar="FILE", help="default: standard output")
    export.add_argument("--loop", type=game_id, metavar="N",
                        help="loop N: its first balanced deal kept, else its canonical state")
    export.add_argument("--text", action="store_true", help="one hand per line instead of JSON")
    export.add_argument("--name", metavar="TEXT",
                        help="the saved game's name (default: what it is, who found it and when)")
    export.set_defaults(run=run_archive_export)
    report = archive_commands.add_parser(
        "report", help="one self-contained HTML page of the archive (or of one job) to share",
        description="Write one HTML page that stands alone (no server, no network; charts inline as SVG): "
                    "the jobs, the balanced deals that never end at each table with the command that finds "
                    "them, the longest games of each table with their hand sizes drawn, the loops with "
                    "one period traced, the survival curve and the odds, and for each game the command "
                    "that replays it.")
    report.add_argument("file", metavar="FILE.html")
    report.add_argument("--job", metavar="ID", help="only this job's finds")
    report.set_defaults(run=run_archive_report)
    census = archive_commands.add_parser(
        "census", help="a census job's result table, again",
        description="Print the result table of a census job (beggar census), from its chunks "
                    "in the archive; --plot draws the distribution of game lengths.")
    census.add_argument("job", metavar="JOB", help="the census job's id")
    census.add_argument("--loops", type=count, default=10, metavar="N",
                        help="loops listed, most loop deals first (default 10)")
    census.add_argument("--plot", metavar="PNG", help="draw the lengths on a log scale "
                        f"(needs matplotlib: {PLOT_INSTALL})")
    census.set_defaults(run=run_archive_census)
    for sub in (listing, jobs, show, export, report, census):
        sub.add_argument("--archive", default=DEFAULT_PATH, metavar="PATH",
                         help=f"the archive (default {DEFAULT_PATH})")
