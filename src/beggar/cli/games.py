"""beggar play, verify and replay: one deal, the published records, a saved game."""

import collections
from dataclasses import replace
import itertools
import json

from .. import engine, installed
from ..cards import written
from ..engine import ENGINES
from ..savefile import load, mismatches, parse
from . import plot
from .format import describe, sizes_by_trick, table, trick_lines, variant_line
from .options import EXIT_MISMATCH, PLOT_INSTALL, UsageError, add_deck_option, add_game_options, game_from_args


def run_play(args):
    game = game_from_args(args)
    engine.check_usable(args.engine)
    outcome = engine.play(game.deal, game.rules.max_cards, game.rules.max_tricks, engine=args.engine,
                          detect_loops=game.rules.detect_loops, variant=game.variant.trick)
    if args.json:
        table = {"deck": game.deal.deck_written(), "players": game.deal.players, "split": len(game.deal.hands[0])}
        # winner counts hands from 0, as Outcome.winner does; winner_hand from 1, as the text says "hand 2".
        hand = None if outcome.winner is None else outcome.winner + 1
        print(json.dumps({"deal": str(game.deal), **table, "rules": game.rules.as_dict(),
                          "played_under": str(game.variant), **outcome.as_dict(), "winner_hand": hand}))
    else:
        print(_named(args, game) + describe(game.deal, outcome))
    return 0


def _named(args, game):
    """The lines naming a game picked by --game out of a file of several, and
    the variant it is played under (its deal written as played), or ''."""
    named = f"game     {game.name}\n" if args.game is not None and game.name else ""
    return named + variant_line(game.variant)


def run_verify(args):
    if not args.files:
        games = installed.read("published-deals.json", lambda text, where: parse(text, where, deck="standard"))
    else:
        games = []
        for path in args.files:
            found = load(path, args.deck)
            missing = [i for i, game in enumerate(found, 1) if game.expected is None]
            if missing:
                raise UsageError(f"{path}: game {missing[0]} has no expected figures to verify")
            # With several files, a game is named by its file (and its place in it).
            games.extend(game if len(args.files) == 1 else
                         replace(game, name=path if len(found) == 1 else f"{path}: game {number}")
                         for number, game in enumerate(found, 1))
    engines = ENGINES if args.engine is None else (args.engine,)
    years = [year_of(game) for game in games]
    # A year column only where some game has one: users' own files seldom do.
    dated = any(years)
    rows = [("deal", *(("year",) if dated else ()), "status", "expected", *engines)]
    failures = 0
    for number, (game, year) in enumerate(zip(games, years), 1):
        want = game.expected
        row = [game.name or f"game {number}", *((year,) if dated else ()), want["status"],
               f"{want['cards']}/{want['tricks']}"]
        for name in engines:
            outcome = engine.play(game.deal, game.rules.max_cards, game.rules.max_tricks, engine=name,
                                  detect_loops=game.rules.detect_loops, variant=game.variant.trick)
            wrong = mismatches(want, outcome)
            failures += bool(wrong)
            row.append(f"{outcome.cards}/{outcome.tricks} {'MISMATCH' if wrong else 'OK'}")
        rows.append(row)
    print(table(rows))
    verdict = f"{failures} MISMATCH" if failures else "all OK"
    print(f"{len(games)} deal{'' if len(games) == 1 else 's'}, {len(engines)} engine{'s' if len(engines) > 1 else ''}: {verdict}")
    return EXIT_MISMATCH if failures else 0


def year_of(game):
    """The year a saved game was published or found: its own, else its
    provenance's (a find's found_at), else ''."""
    if game.year:
        return str(game.year)
    found = (game.provenance or {}).get("found_at") if isinstance(game.provenance, dict) else None
    return found[:4] if isinstance(found, str) and found[:4].isdigit() else ""


def run_replay(args):
    if args.plot is not None:
        plot.prepare(args.plot)     # before any work: a missing matplotlib is a usage error
    game = game_from_args(args)
    engine.check_usable(args.engine)
    outcome = engine.play(game.deal, game.rules.max_cards, game.rules.max_tricks, engine=args.engine,
                          detect_loops=game.rules.detect_loops, variant=game.variant.trick)
    print(_named(args, game) + describe(game.deal, outcome))
    status = 0
    if game.expected is not None:
        wrong = mismatches(game.expected, outcome)
        print("expected " + ("MISMATCH: " + "; ".join(wrong) if wrong else "OK, as saved"))
        status = EXIT_MISMATCH if wrong else 0
    # The tricks are replayed as they are printed, never kept: a game may be
    # millions of tricks long.
    if args.trace:
        print()
        played = engine.tricks(game.deal, game.variant.trick)
        for line in trick_lines(itertools.islice(played, outcome.tricks), 0, game.deal):
            print(line)
    elif outcome.status == "loop":
        entry, period = outcome.loop_entry[0], outcome.loop_period[0]
        played = engine.tricks(game.deal, game.variant.trick)
        last = collections.deque(itertools.islice(played, entry), maxlen=1)
        hands = last[0].hands if last else game.deal.hands
        leader = last[0].taker if last else 0
        print(f"\nthe state entering the loop, after trick {entry} (hand {leader + 1} leads):")
        for h, hand in enumerate(hands, 1):
            print(f"  hand {h}  {written(hand)}  ({len(hand)} cards)")
        print(f"\none period, tricks {entry + 1} to {outcome.tricks}:")
        for line in trick_lines(itertools.islice(played, period), entry, game.deal):
            print(line)
    if args.plot is not None:
        _plot(args.plot, game.deal, outcome, game.variant.trick)
        print(f"\nplot written to {args.plot}")
    return status


#: The most points a plot draws of each hand: a longer game is drawn every so many tricks.
PLOT_POINTS = 100_000


def _plot(path, deal, outcome, variant):
    numbers, sizes = zip(*sizes_by_trick(deal, outcome, PLOT_POINTS, variant))
    figure, axes = plot.pyplot().subplots(figsize=(10, 4))
    for h in range(deal.players):
        axes.plot(numbers, [row[h] for row in sizes], label=f"hand {h + 1}", linewidth=1)
    if outcome.status == "loop":
        entry, period = outcome.loop_entry[0], outcome.loop_period[0]
        axes.axvspan(entry, entry + period, color="orange", alpha=0.2,
                     label=f"loop: {period} tricks / {outcome.loop_period[1]} cards")
    axes.set(xlabel="trick", ylabel="cards in hand",
             title=f"{outcome.status}: {outcome.cards} cards, {outcome.tricks} tricks")
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    plot.save(figure, path)


def add(commands):
    play = commands.add_parser(
        "play", help="play one deal and print how it ends",
        description="Play one deal and print its outcome: status, winner, cards, tricks, "
                    "hand sizes, and for a loop its entry and period.",
        epilog="DEAL is the record notation (hands split by '/', top card first, - for a plain "
               "card), a saved-game file (text or JSON), or - for standard input. Example: "
               "beggar play 'K-KK----K-A-----JAA--Q--J-/---Q---Q-J-----J------AQ--'")
    add_game_options(play)
    play.add_argument("--json", action="store_true", help="print the outcome as one JSON object")
    play.set_defaults(run=run_play)

    verify = commands.add_parser(
        "verify", help="replay published records (or your own file) on both engines",
        description="Replay every published record deal shipped with beggar, or the games of "
                    "each FILE, on both engines, and compare with the expected figures. Exit status "
                    "1 on any mismatch.",
        epilog="FILE is JSON: a list of games, each {\"deal\": ..., \"expected\": {\"status\": ..., "
               "\"cards\": ..., \"tricks\": ...}} (see beggar.savefile), or the published-deals "
               "form with p1, p2, status, cards, tricks.")
    verify.add_argument("files", nargs="*", metavar="FILE")
    verify.add_argument("--engine", choices=ENGINES, help="check one engine only (default: both)")
    add_deck_option(verify)
    verify.set_defaults(run=run_verify)

    replay = commands.add_parser(
        "replay", help="reproduce a saved game, trick by trick if asked",
        description="Reproduce a saved game and print its outcome, checked against the expected "
                    "figures the file carries; for a loop, the state where the loop is entered "
                    "and one full period, trick by trick. Exit status 1 if the outcome differs "
                    "from the expected one.",
        epilog="FILE is a saved game: one hand per line (top card first, # comments), the "
               "one-line record notation, or the JSON form; - reads standard input. Of a file of "
               "several games (beggar verify's, results/*.json), --game N or --game NAME takes one. "
               "Traces come from the reference engine.")
    add_game_options(replay, source="FILE")
    replay.add_argument("--trace", action="store_true",
                        help="print every trick: who led, who took the pile, hand sizes, cards laid")
    replay.add_argument("--plot", metavar="PNG",
                        help="draw the hand sizes over the tricks, the loop's period shaded "
                             f"(needs matplotlib: {PLOT_INSTALL})")
    replay.set_defaults(run=run_replay)
