"""The result of a census job, totalled from its chunks in the archive: what
`beggar census` prints at the end and `beggar archive census` prints later."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..archive import DEFAULT_PATH, archive_option
from ..cycle import key_deal
from ..decks import Deck, hand_sizes
from ..errors import BadInput
from ..search.drivers.base import plural
from ..search.job import stored
from ..search.spec import deck_words, table


class TallyError(BadInput, ValueError):
    """A job that cannot be totalled as a census: it ran another driver."""


@dataclass
class Tally:
    job: str
    spec: dict
    chunks: int                     # chunks done
    deals: int = 0                  # deals played
    statuses: Counter = field(default_factory=Counter)
    cards: Counter = field(default_factory=Counter)     # {length in cards: games}
    tricks: Counter = field(default_factory=Counter)
    loops: dict = field(default_factory=dict)           # {canonical key (hex): [deals, period tricks, cards]}
    longest: dict | None = None     # the longest finished game: cards, tricks, deal, rank
    archive: str = DEFAULT_PATH     # the archive's path, named by the commands it prints

    @property
    def complete(self):
        # Deals, not chunks: a census's chunks may be runs of parts (search/units.py).
        return self.deals == self.spec["deals"]


def tally(archive, job_id):
    """Sum the chunks of census job `job_id`: its table is what its chunks
    played, not what the archive kept under its name. (Chunks kept before
    their records held their loops and longest game are told from the games
    the job kept, as then.)"""
    if job_id not in dict(archive.jobs()):
        # Not archive.job's "no job to resume": nothing is resumed here.
        raise TallyError(f"{archive.path}: no census job {job_id!r} in it (beggar archive jobs lists its jobs)")
    job = archive.job(job_id)
    spec = stored(job["spec"], f"{archive.path}: job {job_id}")
    if spec["driver"] != "census":
        raise TallyError(f"{archive.path}: job {job_id} is a {spec['driver']} job, not a census")
    result = Tally(job_id, spec, job["chunks"], job["deals"], archive=archive.path)
    longest, old = None, False
    for stats in archive.chunk_stats(job_id):
        result.statuses.update(stats["statuses"])
        result.cards.update({int(k): v for k, v in stats["cards"].items()})
        result.tricks.update({int(k): v for k, v in stats["tricks"].items()})
        if "loops" not in stats:
            old = True
            continue
        for key, (deals, period_tricks, period_cards) in stats["loops"].items():
            entry = result.loops.setdefault(key, [0, period_tricks, period_cards])
            entry[0] += deals
        if stats["longest"] is not None:
            cards, tricks, deal, rank = stats["longest"]
            # The longest, and the earlier rank on a tie (as a census block orders them).
            if longest is None or (-cards, int(rank)) < (-longest["cards"], int(longest["rank"])):
                longest = {"cards": cards, "tricks": tricks, "deal": deal, "rank": rank}
    if old:
        games = archive.games(job=job_id)
        result.loops = {}
        for game in games:
            if game["status"] == "loop" and game["loop"]:
                entry = result.loops.setdefault(game["loop"], [0, game["period_tricks"], game["period_cards"]])
                entry[0] += 1
        longest = next(({key: game[key] for key in ("cards", "tricks", "deal", "rank")}
                        for game in games if game["status"] == "finished"), None)
    result.longest = longest
    return result


def report(result, loops_shown=10):
    spec = result.spec
    deck = Deck.parse(spec["deck"])
    sizes = "/".join(map(str, hand_sizes(deck.total, spec["players"], table(spec)["split"])))
    planned = spec["deals"]
    lines = [f"census   {deck_words(spec)} ({deck.notation()}), {spec['players']} players, {sizes}, "
             f"ranks {spec['first']:,} to {spec['first'] + planned - 1:,}"
             + ("" if result.complete else f": INCOMPLETE, {result.chunks:,} chunks kept")]
    finished, loop_deals = result.statuses["finished"], result.statuses["loop"]
    lines += [f"deals    {result.deals:,}" + ("" if result.complete else f" of {planned:,}"), f"finished {finished:,}"]
    # Words as everywhere: a loop is a distinct cycle (by canonical state),
    # a loop deal a deal whose game falls into one.
    lines.append(f"loops    {plural(len(result.loops), 'loop')}, "
                 f"reached from {plural(loop_deals, 'loop deal')}")
    if result.longest is not None:
        game = result.longest
        lines.append(f"longest  {game['cards']} cards, {game['tricks']} tricks: {game['deal']} "
                     f"(rank {game['rank']})")
    if result.cards:
        length, games = max(result.cards.items(), key=lambda item: (item[1], -item[0]))
        lines.append(f"commonest length {length} cards ({games:,} deals); "
                     f"mean {sum(k * v for k, v in result.cards.items()) / sum(result.cards.values()):.1f}")
    ordered = sorted(result.loops.items(), key=lambda item: (-item[1][0], item[0]))
    for key, (deals, period_tricks, period_cards) in ordered[:loops_shown]:
        lines.append(f"  loop {key_deal(key)}: period {period_tricks} tricks / {period_cards} cards, "
                     f"reached from {plural(deals, 'loop deal')}")
    if len(ordered) > loops_shown:
        # The census's loops, every one: those it met, not only those it was the first to find (--loops --job).
        lines.append(f"  ... and {len(ordered) - loops_shown} more loops (beggar archive census {result.job} "
                     f"--loops {len(ordered)}{archive_option(result.archive)})")
    return lines


def figure(result, pyplot):
    """The distribution of game lengths in cards, deals on a log scale: a
    matplotlib figure, for the command to lay out and write (cli.plot.save)."""
    lengths = sorted(result.cards)
    figure, axes = pyplot.subplots(figsize=(10, 4))
    axes.bar(lengths, [result.cards[k] for k in lengths], width=1.0, color="steelblue")
    axes.set(yscale="log", xlabel="cards laid (finished games)", ylabel="deals",
             title=f"census of the {Deck.parse(result.spec['deck'])} deck, {result.spec['players']} players: "
                   f"{result.deals:,} deals, {result.statuses['loop']:,} loop deals")
    return figure
