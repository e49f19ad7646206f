"""beggar census: play every deal of a deck (a census job), then print its result table."""

from ..archive import Archive
from ..variant import STANDARD
from ..reports import tally
from .options import add_variant_option, chunk, count, players, rank, split
from .search import add_run_options, run


def run_census(args):
    deck = (args.variant or STANDARD).deck(args.deck)
    name = "census-" + "".join(ch if ch.isalnum() else "-" for ch in str(deck)).strip("-")
    data = {"name": name, "driver": "census", "deck": args.deck, "variant": args.variant or STANDARD,
            "players": args.players, "split": args.split, "first": args.first, "deals": args.count, "top": args.top}
    if args.chunk is not None:
        data["chunk"] = args.chunk
    status, job_id = run(args, data)
    with Archive(args.archive) as archive:
        print()
        print("\n".join(tally.report(tally.tally(archive, job_id))))
    return status


def add(commands):
    census = commands.add_parser(
        "census", help="play every deal of a deck, exactly once",
        description="Play every deal of DECK (every arrangement of its ranks, dealt as any "
                    "deal is) with exact loop detection, as a census job in the archive: on "
                    "every core, resumable (beggar search --resume ID), and then print how many "
                    "deals finish and how many are loop deals, the loops they fall into, the longest game and the "
                    "distribution of lengths. beggar archive census ID prints it again.",
        epilog="DECK is a name (standard, camicia, half, half-camicia) or counts such as "
               "'18 2J 2Q 2K 2A'. Arrangements are numbered in lexicographic order "
               "(plain < J < Q < K < A); --first and --count play any block of them.")
    census.add_argument("deck", metavar="DECK")
    add_variant_option(census)
    census.add_argument("--players", type=players, default=2, metavar="N", help="players, 2 to 4 (default 2)")
    census.add_argument("--split", type=split, default="even", metavar="K",
                        help="two players: cards in the first hand (default even)")
    census.add_argument("--first", type=rank, default=0, metavar="RANK",
                        help="the first arrangement played (default 0)")
    census.add_argument("--count", type=rank, default=0, metavar="N",
                        help="arrangements played (default 0: every one from --first on)")
    census.add_argument("--top", type=count, default=10, metavar="N",
                        help="longest games kept in the archive (default 10)")
    census.add_argument("--chunk", type=chunk, metavar="N",
                        help="deals per unit of work (default: parts of about 0.25 s of a core, measured when "
                             "the job starts, played in chunks of about 3 s as it runs)")
    add_run_options(census, "default one per core")
    census.set_defaults(run=run_census)
