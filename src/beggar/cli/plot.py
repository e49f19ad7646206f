"""The --plot files of the command (replay, stats, archive census), every one
checked and written here so that every plot fails alike (docs/architecture.md):
no matplotlib or a path that names nothing is a usage error (exit 2) before
any work, and never a plot reported written that is not."""

import io
import os

from .options import PLOT_INSTALL, UsageError, check_output, write_output


def pyplot():
    """matplotlib's pyplot, drawing to files only; a UsageError without it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot
    except ImportError:
        raise UsageError(f"--plot needs matplotlib: {PLOT_INSTALL}") from None
    return matplotlib.pyplot


def prepare(path):
    """Check a --plot `path` and that matplotlib loads, before any work; returns pyplot."""
    check_output(path, "--plot")
    return pyplot()


def save(figure, path):
    """Lay out a --plot figure, write it to `path` (its format from the extension) and close it."""
    # Drawn in memory, then written through write_output: matplotlib does not
    # report every failed write (a full disk passes silently).
    drawn = io.BytesIO()
    try:
        figure.tight_layout()
        figure.savefig(drawn, format=os.path.splitext(path)[1][1:].lower() or "png")
    except ValueError as error:
        raise UsageError(f"--plot {path}: {error}") from None
    finally:
        pyplot().close(figure)
    write_output(path, drawn.getvalue(), "--plot")
