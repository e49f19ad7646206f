"""How the command prints things: outcomes, tables of rows, tricks. Plain
text for people, in one place so that every command looks alike: one form
of each kind of figure in every text view (docs/archive.md: times `when`,
counts `number`, lengths plain); JSON keeps the machine forms."""

import itertools
import math
import shlex

from .. import engine


def when(stamp):
    return stamp[:16].replace("T", " ") if stamp else "-"


def number(value):
    if not math.isfinite(value):
        return "-"
    return f"{value:,.0f}" if value < 1e7 else f"{value:.2g}".replace("e+0", "e").replace("e+", "e")


def loop_basin(row, deal):
    """A kept loop's basin (its row, and its canonical state as a deal:
    loops.kept_state) in a few words, with the command that searches it, or
    None; for a loop of three or four, which no deal of two falls into, the
    search back to its deals at a table of its players."""
    players = deal.players
    if players > 2:
        return (f"none at a table of two, for a loop of {players} players; its deals at a table of {players}",
                f"beggar basin {shlex.quote(str(deal))} --players {players}")
    if row["basin_states"] is None:
        return "not searched", f"beggar basin {shlex.quote(str(deal))}"
    bound = "complete" if row["basin_stopped_by"] is None else f"STOPPED by its {row['basin_stopped_by']} bound"
    return f"{row['basin_states']:,} states ({bound}), {row['basin_deals']:,} balanced deals", None


def variant_line(variant):
    return "" if variant.standard else f"variant  {variant}" + (
        " (each card written as the standard card that pays as much)" if variant.relabels else "") + "\n"


def describe(deal, outcome):
    lines = [f"deal     {deal}"]
    if outcome.status == "finished":
        lines.append(f"status   finished: hand {outcome.winner + 1} wins")
    elif outcome.status == "loop":
        lines.append("status   loop: the game never ends")
    else:
        verdict = "a draw" if outcome.winner is None else f"hand {outcome.winner + 1} holds the most cards"
        lines.append(f"status   stopped at the limit: {verdict}")
    note = " (counted when the repeated state is first seen)" if outcome.status == "loop" else ""
    lines += [f"cards    {outcome.cards}{note}", f"tricks   {outcome.tricks}",
              f"hands    {' / '.join(str(c) for c in outcome.counts)} cards"]
    if outcome.status == "loop":
        (entry_tricks, entry_cards), (period_tricks, period_cards) = outcome.loop_entry, outcome.loop_period
        lines += [f"entry    after {entry_tricks} tricks / {entry_cards} cards",
                  f"period   {period_tricks} tricks / {period_cards} cards"]
    lines.append(f"engine   {outcome.engine}")
    return "\n".join(lines)


#: A table of jobs, one row a job: archive jobs --wide, and the report's.
JOB_COLUMNS = ("job", "driver", "table", "state", "played", "best", "games", "loops", "started (UTC)", "last ran",
               "resume")


def job_cells(row):
    return (row["id"], row["driver"], row["table"], row["state"], job_played(row), job_best(row), f"{row['games']:,}",
            f"{row['loops']:,}", when(row["started"]), when(row["last_ran"]), row["resume"] or "-")


def job_played(row):
    """What a job played of its budget, in a narrow column: '1.7M of 1.7M deals'."""
    if row.get("bound"):
        return f"{_compact(row['played'])} {row['unit']} (at most {_compact(row['budget'])})"
    return (_compact(row["played"]) + (f" of {_compact(row['budget'])}" if row["budget"] else "")
            + f" {row['unit']}")


def job_best(row):
    """A job's longest game kept: '4537 (game 2)', '362 played' (kept by no game), '-'."""
    best = row["best"]
    return "-" if best["cards"] is None else (
        f"{best['cards']} (game {best['game']})" if best["game"] is not None else f"{best['cards']} played")


def _compact(number):
    for size, letter in ((10 ** 9, "G"), (10 ** 6, "M"), (10 ** 3, "K")):
        if number >= size:
            return f"{number / size:.1f}{letter}"
    return str(number)


def trick_lines(tricks, first, deal):
    """Tricks, numbered from first+1, as the lines of a table: leader, taker,
    hand sizes, the cards laid. A generator: a long game is printed as it is
    played, never held whole."""
    yield f"{'trick':>6}  {'led':>3}  {'took':>4}  {'hands':>{6 * deal.players - 1}}  cards laid"
    for number, trick in enumerate(tricks, first + 1):
        sizes = " ".join(f"{len(hand):>5}" for hand in trick.hands)
        laid = "".join("-JQKA"[card] for card in trick.pile)
        yield f"{number:>6}  {trick.leader + 1:>3}  {trick.taker + 1:>4}  {sizes}  {laid}"


def sizes_by_trick(deal, outcome, points, variant=None):
    """(trick, hand sizes) from the deal on, every so many tricks that at
    most about `points` are drawn, the last trick always: a game may be
    millions of tricks long, and is replayed, never held whole."""
    every = max(1, -(-outcome.tricks // points))
    yield 0, [len(hand) for hand in deal.hands]
    for number, trick in enumerate(itertools.islice(engine.tricks(deal, variant), outcome.tricks), 1):
        if number % every == 0 or number == outcome.tricks:
            yield number, [len(hand) for hand in trick.hands]


def table(rows):
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
                     for row in rows)
