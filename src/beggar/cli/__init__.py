"""The `beggar` command: `main`, the parser, and what each kind of error exits
with (the README's: a bad input 2, a fault 3, Ctrl-C 130, each one line).
Each group of commands lives in its own module, which declares its arguments
next to its handler and imports what it needs only when it runs.
"""

import sys


def main(argv=None):
    """The beggar command; returns its exit status. Everything it needs is
    imported in here, under the same guard as the command itself, so that a
    Ctrl-C exits 130 quietly whenever it comes, the first instant included."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return 130


def _main(argv):
    import os

    from ..errors import BadInput, Fault
    from .options import EXIT_BAD_INPUT, EXIT_FAILED, NOTATION, UsageError

    if sys.stdout is None:
        print("beggar: standard output is closed: nothing could be shown", file=sys.stderr)
        return EXIT_FAILED
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
        status = args.run(args)
        sys.stdout.flush()          # a full disk shows here, not as the interpreter exits
        return status
    except (BadInput, Fault) as error:
        print(f"beggar {args.command}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT if isinstance(error, BadInput) else EXIT_FAILED
    except BrokenPipeError:
        # The reader went away (| head): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as error:
        if error.filename is not None:
            raise
        # Standard output cannot be written (a full disk, /dev/full): say so
        # once, and leave nothing for the interpreter to fail on at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"beggar {args.command}: cannot write the output ({error.strerror})", file=sys.stderr)
        return EXIT_FAILED


def _parser():
    import argparse

    from .. import __version__
    from . import archive, backward, census, games, gpu, search, stats
    from .options import EXIT_BAD_INPUT

    class Parser(argparse.ArgumentParser):
        """argparse, with its errors as one line like every other bad input."""

        def error(self, message):
            self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} (see {self.prog} --help)\n")

        def parse_args(self, args=None, namespace=None):
            # Words left over are the command's to refuse, under its own name
            # ('beggar verify: ...'), not the top parser's ('beggar: ...').
            parsed, extras = self.parse_known_args(args, namespace)
            if extras:
                command = commands.choices.get(getattr(parsed, "command", None), self)
                command.error(f"unrecognized arguments: {' '.join(extras)}")
            return parsed

    parser = Parser(
        prog="beggar", description="Play, verify and replay deals of Beggar-My-Neighbour.")
    parser.add_argument("--version", action="version", version=f"beggar {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in (games, backward, search, census, archive, stats, gpu):
        group.add(commands)
    return parser


if __name__ == "__main__":
    sys.exit(main())
