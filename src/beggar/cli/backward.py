"""beggar family and basin: backward play from the end of a game or from its loop."""

import os

from .. import engine
from ..backward import MAX_SECONDS, MAX_STATES, basin, family
from ..deal import Deal
from ..rules import Rules
from ..savefile import SavedGame, to_json
from ..states import GUIDES
from .format import variant_line
from .options import (UsageError, add_game_options, game_from_args, limit, output_folder, seconds, unused_folder,
                      write_output)


def _bound_note(stopped_by, args):
    if stopped_by is None:
        return "complete"
    bound = f"--max-states {args.max_states}" if stopped_by == "states" else f"--max-seconds {args.max_seconds:g}"
    return f"STOPPED by {bound}: there may be more"


def _game_to_its_end(args):
    game = game_from_args(args)
    if game.rules != Rules():
        raise UsageError(f"{args.command} follows games to their end: limits do not apply")
    if game.variant.lay_on:
        raise UsageError(f"{args.command} plays back by the standard trick; variant {game.variant} lays on")
    return game


def run_family(args):
    game = _game_to_its_end(args)
    found = family(game.deal, args.max_states, args.max_seconds, args.engine)
    hands, leader = found.final
    print(f"{variant_line(game.variant)}deal     {game.deal}")
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
        write_output(args.export, text, "--export")
        print(f"written  {args.export}")
    return 0


def run_basin(args):
    table = None
    if args.source is not None and args.players is not None and args.seed is None:
        # With a DEAL, --players is the table to search at, not a shuffle's.
        table, args.players = args.players, None
    game = _game_to_its_end(args)
    if table is not None and table != 2:
        return _run_table_basin(args, game.deal, table)
    if args.guide is not None or args.export_dir is not None:
        raise UsageError("--guide and --export-dir are for a table of 3 or 4 players (--players 3|4)")
    found = basin(game.deal, args.max_states, args.max_seconds, args.engine)
    print(f"{variant_line(game.variant)}deal     {game.deal}")
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


def _run_table_basin(args, deal, players):
    from ..elimination import search
    guide = args.guide or "smallest"
    created = output_folder(args.export_dir, "--export-dir") if args.export_dir is not None else None
    try:
        found = search(deal, players, guide, args.max_states, args.max_seconds, args.engine)
    except BaseException:
        unused_folder(args.export_dir, created)
        raise
    print(f"deal     {deal}")
    print(f"loop     {len(found.loop)} states of {len(found.loop[0][0])} players, seated "
          f"{found.roots // len(found.loop)} ways at a table of {players}")
    print(f"search   {found.states:,} states, guide {guide} ({_bound_note(found.stopped_by, args)})")
    if found.best is None:
        print("best     no state with every player in")
    else:
        sizes = "/".join(str(len(hand)) for hand in found.best.hands)
        print(f"best     {sizes}  {found.best}  (the largest smallest hand, the leader first)")
    print(f"deals    {len(found.deals)} balanced deals, each replayed by both engines:")
    for deal_found, outcome, _ in found.deals:
        entry, period = outcome.loop_entry, outcome.loop_period
        print(f"  {deal_found}  loop: entry {entry[0]} tricks / {entry[1]} cards, "
              f"period {period[0]} tricks / {period[1]} cards")
    if not found.deals:
        unused_folder(args.export_dir, created)
    if args.export_dir is not None and found.deals:
        for number, (deal_found, outcome, _) in enumerate(found.deals, 1):
            # Numbered in the order found: two deals may loop after as many cards.
            path = os.path.join(args.export_dir, f"loop-{players}-players-{number}.json")
            text = to_json(SavedGame(deal_found, name=f"a {players}-player deal that never ends, found by "
                                                      f"backward play from the loop of {deal}"), outcome)
            write_output(path, text)
            print(f"written  {path}")
    return 0


def add(commands):
    for name, run, text in (
            ("family", run_family,
             "Find the family of a finished game: every state whose game ends the same way, "
             "by backward play from its final state. Prints how many balanced deals it holds "
             "and the longest of them."),
            ("basin", run_basin,
             "Find the basin of the loop a deal falls into: the loop's states and every "
             "balanced deal that enters it, each replayed by the reference engine. With "
             "--players 3 or 4, search back from the loop through tables of that many players "
             "(players out of cards eliminated on the way) for the deals of that many "
             "players that never end.")):
        sub = commands.add_parser(name, help=text.split(":")[0].split(",")[0].lower(), description=text)
        sub.set_defaults(run=run)
        add_game_options(sub, "players: 2 (a family is found by two-player backward play)" if name == "family"
                         else "with a DEAL: the table to search back at, 2 to 4 (default the deal's); "
                              "with --seed: the players of the shuffle")
        sub.add_argument("--max-states", type=limit, default=MAX_STATES, metavar="N",
                         help=f"stop after N states (default {MAX_STATES:,})")
        sub.add_argument("--max-seconds", type=seconds, default=MAX_SECONDS, metavar="S",
                         help=f"stop after S seconds of processor time (default {MAX_SECONDS:g})")
        if name == "family":
            sub.add_argument("--export", metavar="FILE",
                             help="write the longest balanced member as a saved game (JSON)")
        else:
            sub.add_argument("--guide", choices=GUIDES,
                             help="with --players 3|4: which state to visit next: breadth first, the "
                                  "largest smallest hand (smallest, the default) or the fewest cards "
                                  "from a deal's sizes (balance)")
            sub.add_argument("--export-dir", metavar="DIR",
                             help="with --players 3|4: write every deal found as a saved game into DIR")
