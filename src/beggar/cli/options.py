"""What several commands share: the argument types, the options that pick
one game, and reading the game they ask for."""

import argparse
from dataclasses import replace
import errno
import os
import tempfile

from .. import checks
from ..checks import MAX_COUNT, MAX_ID, MAX_SECONDS, MAX_SEED, cut, is_digits, number, shown
from ..deal import ANY, Deal
from ..decks import MAX_PLAYERS, MIN_PLAYERS
from ..engine import ALL_ENGINES, argument
from ..errors import BadInput, Fault
from ..rules import Rules
from ..savefile import SavedGame, load
from ..search.drivers.base import plural
from ..search.spec import MAX_CHUNK, WORKERS_PER_CORE, max_workers
from ..variant import NAMED, STANDARD, Variant, VariantError


EXIT_MISMATCH, EXIT_BAD_INPUT, EXIT_FAILED = 1, 2, 3

#: How to install what --plot needs, from a release and from a clone.
PLOT_INSTALL = "pip install '.[plot]' in beggar's source folder (a clone, or its unpacked release)"


class UsageError(BadInput, ValueError):
    """A command line that asks for something that cannot be done."""


class OutputFault(Fault):
    """A file a command was asked to write that the machine cannot take now
    (a full disk, a read-only filesystem, an I/O error): exit 3, as the
    README promises for faults; a wrong path is a UsageError (exit 2)."""


#: What an OSError says when the fault is the machine's, not the path's.
_FAULTS = {errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EIO, errno.EFBIG}


def _refused(message, error):
    """The error of an output the OSError `error` refused: the machine's fault, or the path's."""
    return (OutputFault if error.errno in _FAULTS else UsageError)(message)


def check_output(path, option):
    if not path:
        raise UsageError(f"{option}: name a file, not ''")


def output_folder(path, option):
    """A folder named by `option` for files written later, created and written
    to once before any work (a search of minutes must not end in a folder it
    cannot write). Returns the outermost folder created here, for unused_folder."""
    if not path:
        raise UsageError(f"{option}: name a folder, not ''")
    if os.path.lexists(path) and not os.path.isdir(path):
        raise UsageError(f"{option} {path}: not a folder (a file of that name is there)")
    created, above = None, os.path.abspath(path)
    while not os.path.lexists(above):
        created, above = above, os.path.dirname(above)
    try:
        os.makedirs(path, exist_ok=True)
        # Only a file written there shows a folder that cannot take files
        # (a read-only filesystem, /proc, no permission).
        probe = tempfile.NamedTemporaryFile(dir=path, prefix=".beggar-probe-")
        probe.close()
    except OSError as error:
        unused_folder(path, created)
        raise _refused(f"{option} {path}: cannot write files there ({error.strerror or error})", error) from None
    return created


def unused_folder(path, created):
    """Remove the folder `path` and those above it up to `created`, as long as nothing went into them."""
    if created is None:
        return
    folder = os.path.abspath(path)
    while True:
        try:
            os.rmdir(folder)
        except OSError:
            return      # something went into it after all, or it is gone
        if folder == created:
            return
        folder = os.path.dirname(folder)


def write_output(path, data, option=None):
    """Write `data` to the file `path` that `option` named, flushed and synced,
    so that a full disk shows here (matplotlib and a plain close may not tell)."""
    check_output(path, option or "the output")
    try:
        with open(path, "wb") as file:
            file.write(data.encode("utf-8") if isinstance(data, str) else data)
            file.flush()
            if os.path.isfile(path):        # /dev/stdout and pipes cannot be synced
                os.fsync(file.fileno())
    except OSError as error:
        where = f"{option} {path}" if option else path
        raise _refused(f"{where}: cannot write ({error.strerror or error})", error) from None


# Characters of the record notation: an argument made of these alone is a
# deal, anything else a file name.
NOTATION = set("-/0123456789TXJQKAtxjqka ,") | set("SHDCshdc\u2660\u2665\u2666\u2663\u2664\u2661\u2662\u2667")


def whole_in(low, high=None):
    """An argparse type: a whole number from `low` to `high` (None: checked later)."""
    def parse(text):
        try:
            return number(text, "", low, high)
        except ValueError:
            bound = f"of at least {low}" if high is None else f"from {low} to {shown(high)}"
            raise argparse.ArgumentTypeError(f"must be a whole number {bound}, not {cut(text)}") from None
    return parse


#: Limits, budgets and bounds: cards, tricks, deals, states, games.
limit = whole_in(1, MAX_COUNT)
count = whole_in(0, MAX_COUNT)
seed = whole_in(0, MAX_SEED)
game_id = whole_in(0, MAX_ID)
chunk = whole_in(1, MAX_CHUNK)
#: A census rank or count: the deck's arrangements bound it (the census driver checks).
rank = whole_in(0)


#: The units a time may be given in: --time 90m, 8h.
TIME_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def seconds(text):
    """A time: seconds, or a number with a unit (90s, 90m, 8h, 2d)."""
    number, scale = text.strip(), 1
    if number[-1:].lower() in TIME_UNITS:
        number, scale = number[:-1], TIME_UNITS[number[-1].lower()]
    try:
        # ASCII only: float() reads full-width and other scripts' digits too.
        if not text.isascii() or len(text) > 40:
            raise ValueError(text)
        return checks.seconds(float(number) * scale, "a time")
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds above 0 and at most {MAX_SECONDS:,}, or a time with a unit "
            f"(90m, 8h, 2d), not {cut(text)}") from None


def workers(text):
    try:
        return whole_in(1, max_workers())(text)
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(f"{error} ({WORKERS_PER_CORE} per core of this machine)") from None


def players(text):
    if text not in [str(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]:
        raise argparse.ArgumentTypeError(f"must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {cut(text)}")
    return int(text)


def split(text):
    if text in ("even", "random"):
        return text
    if is_digits(text):
        return int(text)
    raise argparse.ArgumentTypeError(f"must be 'even', 'random' or a number of cards, not {cut(text)}")


def devices(text):
    try:
        return checks.devices(text, "")
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be 'all' or device numbers such as '0,2', each once, "
                                         f"not {cut(text)}") from None


def add_deck_option(parser, more=""):
    parser.add_argument("--deck", default=ANY, metavar="DECK",
                        help="demand exactly this deck: standard, camicia, half, half-camicia, or "
                             "counts such as '18 2J 2Q 2K 2A' (default any)" + (f"; {more}" if more else ""))


def variant(text):
    try:
        return Variant.parse(text)
    except VariantError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_variant_option(parser):
    parser.add_argument("--variant", type=variant, metavar="V",
                        help=f"the penalties of the court cards, and the trick: {', '.join(NAMED)}, or a table "
                             "such as 'J1 Q2 K3', with 'lay-on' where the player to move lays on to a court card "
                             "(default standard)")


def add_game_options(parser, players_help="players, 2 to 4 (default 2)", source="DEAL"):
    """The game's argument (named `source`) and the options that pick it or change its rules."""
    parser.add_argument("source", nargs="?", metavar=source)
    parser.set_defaults(source_name=source)
    deal = parser.add_argument_group("a shuffled deal instead")
    deal.add_argument("--players", type=players, metavar="N", help=players_help)
    deal.add_argument("--seed", type=seed, metavar="S", help="seed of the shuffle")
    deal.add_argument("--index", type=seed, metavar="I",
                      help="deal number I of the seed, as beggar.sample numbers them (default 0)")
    deal.add_argument("--split", type=split, metavar="K",
                      help="two players: cards in the first hand, 'even' (default) or 'random'")
    rules = parser.add_argument_group("rules")
    rules.add_argument("--max-cards", type=limit, metavar="N",
                       help="stop once the trick that lays the N-th card is resolved")
    rules.add_argument("--max-tricks", type=limit, metavar="N", help="stop after N tricks")
    add_variant_option(rules)
    add_deck_option(parser, "with --seed, the deck shuffled (default standard)")
    parser.add_argument("--engine", type=argument, choices=ALL_ENGINES,
                        help="default: $BEGGAR_ENGINE, else compiled")
    parser.add_argument("--game", metavar="N|NAME",
                        help="the game to take of a file of several: its number N (1 for the first, as "
                             "beggar verify numbers them) or its name (or a part of it that names one game)")


def game_from_args(args):
    """The one game that play or replay is asked for, with the command line's
    limits and variant."""
    shuffled = [option for option, value in (("--players", args.players), ("--seed", args.seed),
                                             ("--index", args.index), ("--split", args.split)) if value is not None]
    if shuffled:
        if args.source is not None:
            if shuffled == ["--index"]:
                raise UsageError(f"--index numbers the deals of a --seed; a game of a {args.source_name} "
                                 "is picked by --game N (or its name)")
            raise UsageError(f"give a {args.source_name} or --players/--seed, not both")
        if args.game is not None:
            raise UsageError(f"--game picks a game of a {args.source_name}; a deal of a --seed is picked by --index")
        if args.seed is None:
            raise UsageError("--players and --index need --seed (so does --split): the seed decides the shuffle")
        variant = args.variant or STANDARD
        deck = variant.deck("standard" if args.deck == ANY else args.deck)
        game = SavedGame(Deal.shuffled(args.players or 2, args.seed, args.index or 0, deck, args.split),
                         variant=variant)
    else:
        if args.source is None:
            raise UsageError(f"give a {args.source_name} (record notation, a saved-game file, "
                             "or - for standard input), or --players/--seed")
        game = pick_game(read_games(args.source, args.deck), args.source, args.game)
        if args.variant is not None and args.variant != game.variant:
            if not game.variant.standard:
                raise UsageError(f"{args.source}: its field 'variant' already says how its cards pay "
                                 f"({game.variant}): leave out --variant, or the field")
            game = replace(game, deal=args.variant.deal(game.deal), variant=args.variant)
    limits = game.rules.as_dict()
    for name in ("max_cards", "max_tricks"):
        if getattr(args, name) is not None:
            limits[name] = getattr(args, name)
    return SavedGame(game.deal, Rules(**limits), game.expected, game.name, variant=game.variant)


def pick_game(games, source, wanted):
    """The game of `games` that --game `wanted` names: its number from 1, or
    its name (whole, else a part that one name alone holds); None: the one."""
    count = len(games)
    if wanted is None:
        if count != 1:
            raise UsageError(f"{source}: holds {count:,} games; this takes one: --game N (1 to {count:,}) "
                             "or --game NAME picks it (beggar verify checks them all)")
        return games[0]
    if is_digits(wanted):
        number = int(wanted) if len(wanted) <= 20 else 0
        if not 1 <= number <= count:
            held = f"1 to {count:,}" if count > 1 else "1"
            raise UsageError(f"{source}: --game {wanted if len(wanted) <= 20 else cut(wanted)}: no such game; "
                             f"it holds {plural(count, 'game')} ({held})")
        return games[number - 1]
    named = [game for game in games if game.name == wanted]
    if not named:
        folded = wanted.casefold()
        named = [game for game in games if game.name is not None and folded in game.name.casefold()]
    if len(named) == 1:
        return named[0]
    if not named:
        raise UsageError(f"{source}: --game {cut(wanted)}: no game of its {plural(count, 'game')} has that "
                         "name (beggar verify lists their names)")
    raise UsageError(f"{source}: --game {cut(wanted)}: the names of {len(named):,} of its games hold it "
                     "(give more of the name, or the game's number)")


def read_games(source, deck):
    """The games a DEAL argument stands for: notation, a file, or '-'. A word
    that names no file and is mostly notation is read as a deal, so that a
    mistyped card is reported as such rather than as a missing file (or as a
    directory: '///' names the root)."""
    if source != "-" and not os.path.isfile(source):
        notation = sum(ch in NOTATION for ch in source)
        if notation == len(source) or ("/" in source and notation >= 0.8 * len(source)):
            return [SavedGame(Deal.parse(source, deck))]
    return load(source, deck)
