"""The `beggar` command: `main`, the parser, and what each kind of error exits with.

Each group of commands lives in its own module, which declares its arguments
next to its handler and imports what it needs only when it runs. Errors a user
can cause (a bad deal, a missing file, a malformed saved game) are one line on
standard error, naming the file and place, with exit status 2; a job that had
to stop on a failure exits with 3.
"""

import argparse
import os
import sys

from .. import __version__
from ..archive import ArchiveError
from ..backward import BackwardError
from ..deal import DealError
from ..decks import DeckError
from ..engine import EngineError
from ..savefile import SaveFileError
from ..search import SearchError
from ..search.cluster import ClusterError
from ..search.job import JobError
from . import archive, backward, census, games, search
from .options import EXIT_BAD_INPUT, EXIT_FAILED, NOTATION, UsageError

BAD_INPUT = (DealError, DeckError, SaveFileError, EngineError, UsageError, ArchiveError, JobError, BackwardError,
             ClusterError)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    # Deals often begin with '-', which argparse would take for an option:
    # a word of record notation holding a '/' is the DEAL, wherever it stands.
    deals = [word for word in argv[1:] if word.startswith("-") and "/" in word and set(word) <= NOTATION]
    args = _parser().parse_args([word for word in argv if word not in deals])
    try:
        if deals:
            if not hasattr(args, "source") or args.source is not None or len(deals) > 1:
                raise UsageError(f"unexpected deal {deals[-1]!r}: {args.command} takes "
                                 + ("one DEAL" if hasattr(args, "source") else "no deal"))
            args.source = deals[0]
        return args.run(args)
    except BAD_INPUT as error:
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


def _parser():
    parser = argparse.ArgumentParser(
        prog="beggar", description="Play, verify and replay deals of Beggar-My-Neighbour.")
    parser.add_argument("--version", action="version", version=f"beggar {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in (games, backward, search, census, archive):
        group.add(commands)
    return parser


if __name__ == "__main__":
    sys.exit(main())
