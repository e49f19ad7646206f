"""One self-contained HTML page of an archive, or of one of its jobs, to
share finds: beggar archive report (docs/archive.md). Built from the same
rows and lines as the command's text, so it sits beside them in cli/."""

from __future__ import annotations

import itertools
import shlex
from collections import Counter
from html import escape

from .. import __version__, engine, family, loops
from ..archive import archive_option, now
from ..deal import Deal
from ..decks import Deck, hand_sizes
from ..reports import odds
from ..search import drivers
from ..search.drivers.hunt import seats
from ..search.drivers.walks import limit_option
from ..search.job import stored
from ..variant import Variant
from . import charts
from .format import JOB_COLUMNS, job_cells, loop_basin, number, sizes_by_trick, trick_lines, when
from .stats import duration

#: The longest games shown per table, and the games of them drawn.
GAMES_PER_TABLE = 5
#: The loops shown, each with one period traced.
LOOPS = 10
#: The tricks of a loop's period traced in full; a longer period is cut there.
TRACED_TRICKS = 80
#: The jobs whose odds are shown.
ODDS_JOBS = 6
#: The balanced deals that never end shown per table, and the loops holding them.
DEALS_PER_TABLE = 5
LOOPS_PER_TABLE = 10

_STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
code, pre { font-family: monospace; font-size: 0.85em; }
pre { background: #f8f8f8; padding: 0.5em; overflow-x: auto; }
.note { color: #555; font-size: 0.85em; }
"""


def _table(head, rows):
    cells = "".join(f"<th>{escape(str(cell))}</th>" for cell in head)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tr>{cells}</tr>{body}</table>"


def _code(text):
    return f"<code>{escape(text)}</code>"


def play_command(deal, rules):
    """The command that replays a kept game: its deal as it plays, under its
    trick (given first: a deal that starts '--' would take the option's place)."""
    trick = Variant(lay_on=rules.get("lay_on", False))
    return "beggar play " + ("" if trick.standard else f"--variant {trick} ") + shlex.quote(str(deal))


def hand_chart(deal, outcome, title, variant=None):
    """The hand sizes of a game over its tricks, its loop's period shaded."""
    sampled = list(sizes_by_trick(deal, outcome, charts.POINTS, variant))
    (entry, _), (period, cards) = outcome.loop_entry or (0, 0), outcome.loop_period or (0, 0)
    spans = [(entry, entry + period, f"loop: {period} tricks / {cards} cards")] if outcome.status == "loop" else []
    return charts.chart([(f"hand {h + 1}", [(number, sizes[h]) for number, sizes in sampled])
                         for h in range(deal.players)], "trick", "cards in hand", title, spans=spans, height=220)


def _jobs_section(jobs, job_id):
    body = []
    for row in jobs:
        if job_id is None or row["id"] == job_id:
            job, *middle, _ = job_cells(row)
            body.append([_code(job), *map(escape, middle), _code(row["resume"]) if row["resume"] else "-"])
    return ["<h2>Jobs</h2>", _table(JOB_COLUMNS, body) if body else "<p>No jobs.</p>"]


def _seat_bests(archive, job_id):
    """The hunts' seats by table (deck, players): (seats searched, the best:
    (smallest, found deals, loop key, state, job), picked as a hunt's summary
    picks it, or None); and the tables each hunt aims at, seated or not."""
    seated, aimed = {}, set()
    for i, spec in archive.jobs():
        spec = stored(spec, f"{archive.path}: job {i}")
        if spec["driver"] != "hunt" or (job_id is not None and i != job_id):
            continue
        deck = str(Deck.parse(spec["deck"]))
        aimed.update((deck, players) for players in (spec.get("hunt") or {}).get("tables", ()))
        for seat in seats(archive, deck, i):
            count, best = seated.get((deck, seat["players"]), (0, None))
            if seat["smallest"] is not None:
                mine = (seat["smallest"], seat["deals"] > 0, seat["loop"], seat["best"], i)
                if best is None or (-mine[0], not mine[1], mine[2]) < (-best[0], not best[1], best[2]):
                    best = mine
            seated[(deck, seat["players"])] = (count + 1, best)
    return seated, aimed


def _tables_section(archive, job_id):
    """A section per table (deck and players) of the balanced deals that never
    end. Returns its parts and the ids of the loops holding each table's best
    deal (which the loops section shows first)."""
    archive.check_loop_games(job_id)      # a loop damaged out of sight would drop out of these sections
    seated, aimed = _seat_bests(archive, job_id)
    best_deals = [best[3] for _, best in seated.values() if best is not None and best[1]]
    found = {(row["deck"], row["players"]): row for row in archive.balanced_by_table(
        job_id, DEALS_PER_TABLE, LOOPS_PER_TABLE, first=best_deals)}
    tables = sorted(set(found) | set(seated) | aimed, key=lambda table: (table[0] != "standard", table))
    out = ["<h2>Balanced deals that never end, by table</h2>"]
    if not tables:
        out.append("<p>No balanced deal that never ends kept, and no hunt.</p>")
        return out, []
    out.append('<p class="note">Each table with its balanced deals that never end (the hunt\'s main result), '
               "the loops they fall into, and for each loop the command that searches back from it for them "
               "again.</p>")
    shown_loops = []
    for deck, players in tables:
        row = found.get((deck, players))
        sizes = "/".join(str(size) for size in hand_sizes(Deck.parse(deck).total, players))
        kept = ("no balanced deal that never ends kept" if row is None else
                f"{row['deals']:,} balanced deal{'s' if row['deals'] != 1 else ''} that never "
                f"end{'s' if row['deals'] == 1 else ''}, into {row['loops']:,} loop{'s' if row['loops'] != 1 else ''}")
        out.append(f"<h3>{escape(deck)} deck, {players} players, {sizes}: {kept}</h3>")
        count, best = seated.get((deck, players), (0, None))
        if best is not None:
            loop_id = archive.loop_id(deck, best[2])
            if loop_id is not None and best[1]:
                shown_loops.append(loop_id)
            what = "a balanced deal that never ends" if best[1] else "the state nearest a balanced deal reached"
            out.append(f"<p>{count:,} seat{'s' if count != 1 else ''} searched at this table by "
                       f"{'the hunt' if job_id else 'the hunts'}; the best: {best[0]} cards in the smallest hand, "
                       f"{what}, {_code(best[3])}, from loop {loop_id if loop_id is not None else '?'} "
                       f"(job {_code(best[4])}).</p>")
        elif (deck, players) in aimed:
            out.append("<p>No seat searched at this table yet.</p>")
        if row is None:
            continue
        loop_rows = []
        for key, deals in row["by_loop"]:
            if key is None:
                continue        # games kept before they were linked to their loops (read as they stand)
            loop_id = archive.loop_id(deck, key)        # there: check_loop_games
            loop = archive.loops(loop_id=loop_id)[0]
            state, _ = loops.kept_state(loop, archive.path)
            command = f"beggar basin {shlex.quote(str(state))}" + (f" --players {players}" if players > 2 else "")
            loop_rows.append([str(loop_id), f"{loop['period_tricks']} tricks / {loop['period_cards']} cards",
                              f"{deals:,}", _code(command)])
        out.append(_table(("loop", "period", f"balanced deals of {players} players in it",
                           "search back from it for them"), loop_rows))
        if len(row["by_loop"]) < row["loops"]:
            listing = (f"beggar archive list --loops --deck {shlex.quote(deck)}"
                       + limit_option(archive.count_loops(deck=deck)) + archive_option(archive.path))
            out.append(f'<p class="note">{len(row["by_loop"])} of {row["loops"]:,} loops shown, those holding the '
                       f"most; the deck's loops: {_code(listing)}</p>")
        deal_rows = []
        for game in row["games"]:
            loop_id = archive.loop_id(deck, game["loop"]) if game["loop"] else None
            deal_rows.append([str(game["id"]), f"{game['entry_tricks']} tricks / {game['entry_cards']} cards",
                              f"{game['period_tricks']} tricks / {game['period_cards']} cards",
                              "-" if loop_id is None else str(loop_id),
                              escape(f"{game['driver']}") + " " + _code(game["job"] or "-"),
                              _code(play_command(game["deal"], game["rules"]))])
        out.append(_table(("game", "entry", "period", "loop", "found by", "replay it"), deal_rows))
        if len(row["games"]) < row["deals"]:
            listing = (f"beggar archive list --status loop --deck {shlex.quote(deck)} --players {players}"
                       + (f" --job {job_id}" if job_id else "") + limit_option(row["deals"]) + archive_option(archive.path))
            out.append(f'<p class="note">{len(row["games"])} of {row["deals"]:,} deals shown; every one: '
                       f"{_code(listing)}</p>")
    return out, shown_loops


def _games_section(archive, job_id):
    out = ["<h2>The longest games of each table</h2>"]
    tables = {}
    # The few games shown, chosen by the archive (never every game read).
    for game in archive.longest_by_table(job_id, GAMES_PER_TABLE):
        trick = Variant(lay_on=game["rules"].get("lay_on", False))
        tables.setdefault((game["deck"], game["players"], game["hands"], trick), []).append(game)
    if not tables:
        out.append("<p>No finished game kept.</p>")
    for (deck, players, hands, trick), kept in sorted(tables.items(), key=lambda item: -item[1][0]["cards"]):
        out.append(f"<h3>{escape(deck)} deck, {players} players, {hands}"
                   f"{'' if trick.standard else f', variant {trick}'}</h3>")
        rows = []
        for game in kept:
            archive.parent(game)        # one it names that is not there is a damaged row: exit 3
            parent = f", from game {game['parent']}" if game["parent"] is not None else ""
            rows.append([str(game["id"]), str(game["cards"]), str(game["tricks"]),
                         escape(f"{game['driver']}{parent}"), _code(game["job"] or "-"),
                         _code(play_command(game["deal"], game["rules"]))])
        out.append(_table(("game", "cards", "tricks", "found by", "job", "replay it"), rows))
        best = kept[0]
        deal = Deal.parse(best["deal"])
        out.append(hand_chart(deal, engine.play(deal, variant=trick),
                              f"game {best['id']}: {best['cards']} cards, {best['tricks']} tricks", trick))
    return out


def _loops_section(archive, job_id, first=()):
    """The loops, those holding each table's best balanced deal (`first`: their ids) first."""
    first = list(dict.fromkeys(first))[:LOOPS]
    rows = [archive.loops(loop_id=loop_id)[0] for loop_id in first]
    rows += [row for row in archive.loops(job=job_id, limit=LOOPS + len(first))
             if row["id"] not in first][:LOOPS - len(rows)]
    out = ["<h2>Loops</h2>"]
    if not rows:
        out.append("<p>No loop kept.</p>")
        return out
    total = archive.count_loops(job=job_id)
    listing = ("beggar archive list --loops" + (f" --job {job_id}" if job_id else "") + limit_option(total)
               + archive_option(archive.path))
    out.append(f'<p class="note">{len(rows)} of {total:,} loops shown, those holding the best balanced deal of a '
               'table first, then those with balanced deals (of two players, found by a basin search, or kept '
               'deals of three and four)' + ("" if len(rows) >= total else
                                             f"; every loop: {_code(listing)}")
               + ".</p>")
    for row in rows:
        deal, outcome = loops.kept_state(row, archive.path)
        balanced = ("a balanced state lies on its cycle" if row["balanced"]
                    else "no state on its cycle is balanced")
        basin, command = loop_basin(row, deal)
        basin = f"basin: {escape(basin)}" + ("" if command is None else f" ({_code(command)})")
        out.append(f"<h3>Loop {row['id']}: {escape(row['deck'])} deck, {deal.players} players, period "
                   f"{row['period_tricks']} tricks / {row['period_cards']} cards</h3>")
        out.append(f"<p>{row['states']} states on its cycle; {balanced}; {basin}; {row['games']} kept "
                   f"game{'s fall' if row['games'] != 1 else ' falls'} into it, at any table. Found by {escape(str(row['driver']))} job {_code(str(row['job']))}. "
                   f"Replay it: {_code(play_command(deal, {}))}</p>")
        period = min(row["period_tricks"], TRACED_TRICKS)
        traced = "\n".join(trick_lines(itertools.islice(engine.tricks(deal), period), 0, deal))
        cut = f" (the first {TRACED_TRICKS} of {row['period_tricks']})" if period < row["period_tricks"] else ""
        out.append(f"<p>One period from its canonical state {_code(str(deal))}{cut}:</p><pre>{escape(traced)}</pre>")
        out.append(hand_chart(deal, outcome, f"loop {row['id']}: hand sizes from its canonical state"))
    return out


def _odds_section(archive, job_id):
    out = ["<h2>Survival and odds</h2>"]
    chosen = [(i, stored(spec)) for i, spec in archive.jobs()
              if (job_id is None or i == job_id) and not drivers.of(stored(spec)).plays.loops]
    for i, spec in chosen[-ODDS_JOBS:]:
        try:
            played = odds.collect(archive, i)
        except odds.OddsError:
            continue
        # A census's counts are exact: no fit, no interval (as beggar stats prints them).
        exhaustive = odds.is_exhaustive(played)
        try:
            tail = None if exhaustive else odds.fit_tail(played)
        except odds.OddsError:
            tail = None
        rows = odds.survival(played, tail=tail)
        out.append(f"<h3>Job {escape(i)}: {escape(spec['driver'])}, {escape(spec['deck'])} deck, "
                   f"{spec['players']} players</h3>")
        out.append(f"<p>{played.deals:,} deals with a length histogram; mean {odds.middle(played)[0]:.1f} cards.</p>")
        measured = ("share",) if exhaustive else ("P(cards >= L)", "95 % interval")
        out.append(_table(("cards L", "games >= L", *measured),
                          [[str(r["cards"]), f"{r['games']:,}", f"{r['p']:.3g}",
                            *(() if exhaustive else (f"{r['low']:.3g} to {r['high']:.3g}",))] for r in rows]))
        curve = odds.curve(played)
        marks = [(cards, f"{name}: {cards}") for name, cards in odds.references(archive, played)]
        lines = [("P(cards >= L)", curve)]
        if tail is not None:
            top = max([x for x, _ in curve] + [x for x, _ in marks])
            lines.append((f"fit: exp(-(L - {tail.start}) / {tail.scale:.0f})",
                          [(x, tail.p(x)) for x in range(tail.start, int(top) + 1, 50)]))
        out.append(charts.chart(lines, "cards L", "P(cards >= L)", "survival of game lengths", log_y=True,
                                marks=marks))
        expected = odds.expectations(played, tail, odds.targets(archive, played, tail.start)) if tail is not None else []
        if exhaustive:
            out.append("<p>A census plays every deal of its block once: these counts are the block's own, "
                       "and nothing is predicted from them.</p>")
        elif expected:
            out.append(_table(("cards", "deals expected", "95 % range", "time at the job's rate"),
                              [[str(r["cards"]), number(r["deals"]), f"{number(r['deals_low'])} to {number(r['deals_high'])}",
                                escape(duration(r["seconds"]))] for r in expected]))
    if len(out) == 1:       # its heading alone: no job was shown
        out.append("<p>No job with length histograms.</p>")
    return out


#: The loops whose families the report works out, at most (each is played once).
FAMILY_LOOPS = 2000


def _families_section(archive, job_id):
    rows = [row for row in archive.loops(job=job_id) if row["players"] == 2]
    if not rows:
        return []
    shown = rows[:FAMILY_LOOPS]
    by_key, members = {}, {}
    for row in shown:
        deal, _ = loops.kept_state(row, archive.path)
        loop = loops.of_deal(deal)
        named = family.of_loop(loop)
        by_key[row["key"]] = named.name
        members.setdefault(named.name, []).append((row, max(min(len(hand) for hand in hands) for hands, _ in loop.states)))
    deals = {}
    for game in archive.games(status="loop", job=job_id):
        name = by_key.get(game["loop"])
        sizes = [len(hand) for hand in game["deal"].split("/")]
        if name is not None and max(sizes) - min(sizes) <= 1:
            deals.setdefault(name, Counter())[len(sizes)] += 1
    out = ["<h2>Loop families</h2>",
           f"<p>{len(members):,} families of {len(shown):,} loops"
           + (f" (the first {FAMILY_LOOPS:,} of {len(rows):,} listed)" if len(rows) > len(shown) else "")
           + ": a family is the bag of the tricks of a loop's turn, whatever their order (docs/loops.md).</p>"]
    body = []
    for name, held in sorted(members.items(), key=lambda item: (-len(item[1]), item[0])):
        periods = sorted({row["period_tricks"] for row, _ in held})
        balances = sorted({balance for _, balance in held})
        counted = deals.get(name, Counter())
        body.append([_code(name), f"{len(held):,}", escape(", ".join(map(str, periods))),
                     escape(", ".join(map(str, balances))),
                     *(f"{counted[players]:,}" for players in (2, 3, 4)),
                     _code(f"beggar archive show --loop {held[0][0]['id']}" + archive_option(archive.path))])
    out.append(_table(["family", "loops", "periods", "balance", "balanced deals of 2", "of 3", "of 4",
                       "its first loop"], body))
    return out


def page(archive, jobs, job_id=None):
    """The report of an open archive (of job `job_id` alone when given).
    `jobs`: cli.archive.job_rows, handed in so that the page and that
    command never import each other."""
    what = f"job {job_id}" if job_id else "archive"
    title = f"beggar {what}: {archive.path}"
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>{escape(title)}</h1>",
             f'<p class="note">Written {escape(when(now()))} UTC by beggar {escape(__version__)}. Each game replays with '
             "the command beside it (beggar installs from its source: pip install . in a clone or an "
             "unpacked release); every game was replayed by both engines when it was "
             "kept.</p>"]
    tables, best_loops = _tables_section(archive, job_id)
    parts += [*_jobs_section(jobs, job_id), *tables, *_games_section(archive, job_id),
              *_loops_section(archive, job_id, best_loops), *_families_section(archive, job_id),
              *_odds_section(archive, job_id), "</body></html>"]
    return "\n".join(parts) + "\n"
