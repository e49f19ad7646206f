"""The hunt driver: perturbation from every loop a job knows, each new loop
seated at tables of three and four.

A hunt job starts from the full two-player loops a perturb job of its deck
starts from (factory.start_keys: the archive's, the published ones and the
shipped finds'), fixed in its spec (`start`) when it is created, and adds
every loop its walks find to them as it goes: its **known** loops, in the
order they were added, its start first. Chunk c is perturbation walk c of
the seed (factory.perturbation, the one call of a perturbation walk) from
the loops known when the chunk is handed out: the first `from` of the list.
A chunk's record says `from`, the loops it added and where in the list they
went (`at`, the list's length when it was kept): so the list is rebuilt
from the records when a job goes on (going_on), the same whatever stopped
it, and any chunk can be played again from its seed, its number and its
record (its searches too, where basin_seconds stopped none of them). A
chunk cut off by a stop was never recorded: it is played again on resume,
from the loops known then.

A walk is given one state of each loop it starts from (its canonical
state): every one of them is known to the walk, which reports only others,
and the states of their cycles fill the pool its changes are drawn from, as
many as the pool holds (engine.perturb: 4,096 states, some 66 loops of the
standard deck). The loops are given in an order drawn from the seed and
the walk, so that a job that knows more loops than one pool holds draws
from all of them over its chunks.

After the walk (in the worker that played it, or, on a GPU engine, in a
checking process while the device plays on: Driver.games), each loop it
reports that the chunk did not start from is looked at again
(factory.reported: both engines) and
**seated**: its basin searched (backward.basin), and its cycle searched back
at tables of three and four seats with elimination (elimination.from_loop,
guided by the [hunt] guide), each search bounded by the job's basin_states
and basin_seconds. Every balanced deal they find is replayed by the
reference engine there. The job's process only keeps, in one transaction:
the loops, their basins, every balanced deal as a game of status loop (two
players: driver "basin"; three and four: "elimination"), and the chunk's
record with, for each loop it seated, what each search reached: its 3-seat
search's best balance is the largest smallest hand of a state with every
player in, the measure of how near the loop comes to a deal of 18/17/17.

Two chunks in flight at once may find and seat the same loop; the first
kept adds it to the list, both keep their deals (a deal is kept once).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field, fields

from ... import elimination, engine
from ...archive import ArchiveFault, archive_option
from ...backward import basin
from ...cycle import key_hands
from ...decks import Deck
from ...rules import Rules
from ...states import GUIDES
from .. import SearchError
from ..crosscheck import Checker
from ..keep import dispute, kept, loops_of_games, stop_if_disputed
from ..spec import JobError, chunk_deals
from .base import ChunkResult, plural, whole_line
from .factory import PerturbRules, _Factory, perturbation, reported, start_keys, two_player_key

#: The tables a new loop is seated at.
SEATS = (3, 4)

#: New loops named one by one in a run's summary.
SHOWN = 10


@dataclass(frozen=True)
class HuntRules:
    """The [hunt] table: the walk's options (PerturbRules: 1 to `changes`
    changes a try, a court card moving up to `reach` places) and the guide
    of the searches at tables of three and four (states.GUIDES).

    Its walk is wider than a perturb job's (2 and 3): from the standard
    deck's two known loops, 1.2 * 10^8 perturbations of changes 3 and reach 6
    found 25, 25 and 71 new loops under three seeds, where changes 2 or
    reach 3 (either) found none in as many, and 8.7 * 10^9 of the perturb
    walk's found none (docs/loops.md)."""

    changes: int = 3
    reach: int = 6
    guide: str = "smallest"

    def __post_init__(self):
        PerturbRules(self.changes, self.reach)
        if self.guide not in GUIDES:
            raise ValueError(f"guide must be one of {', '.join(GUIDES)}, not {self.guide!r}")

    def walk(self):
        """The walk's options, as factory.perturbation takes them."""
        return {option.name: getattr(self, option.name) for option in fields(PerturbRules)}


@dataclass
class Seated:
    """A new loop a walk reported and what the searches from it found: its
    basin (two players) and its tables of three and four
    (elimination.TableBasin)."""
    loop: object                    # loops.Loop
    basin_states: int
    basin_stopped_by: str | None
    basin_games: list               # [(deal, compiled, reference)] balanced two-player deals
    tables: dict                    # {3: TableBasin, 4: TableBasin}


@dataclass
class HuntState:
    """What a hunt job knows as it runs (runner.Summary.hunt): its loops and
    its best 3-seat balance, over every run; and what this run did."""
    keys: list                      # every loop it perturbs from (hex), in the order added, its start first
    given: int                      # of which its start
    best: dict | None = None        # its best 3-seat balance: smallest, deal, loop (hex), loop_id, chunk
    walk_seconds: float = 0.0       # this run: its walks, summed over its workers
    seated: list = field(default_factory=list)     # this run: [(loop id, new, Loop, record)] of the loops seated
    deals: dict = field(default_factory=lambda: {2: 0, 3: 0, 4: 0})   # this run: balanced deals kept, by players

    def __post_init__(self):
        self.known = set(self.keys)

    def add(self, keys):
        for key in keys:
            self.keys.append(key)
            self.known.add(key)

    def better(self, record, chunk, loop_id=None):
        """Take a seated loop's record (record_of) as the best where its 3-seat
        search reached a larger smallest hand (the first one reached stays on
        a tie); `loop_id`: the loop's id in the archive, where known."""
        table = record["3"]
        if table["smallest"] is not None and (self.best is None or table["smallest"] > self.best["smallest"]):
            self.best = {"smallest": table["smallest"], "deal": table["best"], "loop": record["loop"],
                         "loop_id": loop_id, "chunk": chunk}

    def follow(self, chunk, record, where):
        """Go on with the hunt record of chunk `chunk` (the records taken in
        the order their loops were added: in_order): its loops added, and the
        seats of those. ArchiveFault, naming `where`, for loops that do not
        follow on from those before."""
        added = record["added"]
        if added and (record["at"] != len(self.keys) or self.known & set(added) or len(set(added)) != len(added)):
            raise ArchiveFault(f"{where}: the loops chunk {chunk} added (at {record['at']:,}) do not follow on "
                               f"from the {len(self.keys):,} before them")
        for seated in record["seated"]:
            if seated["loop"] in added:
                self.better(seated, chunk)
        self.add(added)


def in_order(records):
    """A hunt's chunk records [(chunk, stats)] as [(chunk, hunt record)], in
    the order their loops were added to the job's (by `at`, then chunk)."""
    return sorted(((chunk, stats["hunt"]) for chunk, stats in records if "hunt" in stats),
                  key=lambda item: (item[1]["at"], item[0]))


def ordered(keys, seed, chunk):
    """The loops `keys` in the order walk `chunk` of `seed` is given them:
    drawn from the seed and the walk, so that the loops whose states fill
    its pool, where not all of them fit, are others in each walk."""
    keys = list(keys)
    random.Random(f"hunt {seed} {chunk}").shuffle(keys)
    return keys


def seat(spec, loop, guide):
    """The searches from a new loop: its basin, and back at tables of three
    and four with elimination, each bounded by the job's basin_states and
    basin_seconds; every deal found replayed by the reference engine."""
    searched = basin(loop.deal(), spec["basin_states"], spec["basin_seconds"])
    games = [(member, engine.play(member), replay) for member, replay in searched.deals]
    total = Deck.parse(spec["deck"]).total
    cycle = elimination.players_of(loop)
    tables = {}
    for players in SEATS:
        try:
            tables[players] = elimination.from_loop(cycle, players, total, guide, spec["basin_states"],
                                                    spec["basin_seconds"])
        except elimination.EliminationFault as error:
            raise SearchError(str(error)) from None
    return Seated(loop, searched.states, searched.stopped_by, games, tables)


def record_of(seated):
    """What a chunk's record keeps of a seated loop (archive.readback checks it)."""
    record = {"loop": seated.loop.hex, "basin": {"states": seated.basin_states, "deals": len(seated.basin_games),
                                                 "stopped_by": seated.basin_stopped_by, "smallest": None,
                                                 "best": None}}
    for players, table in seated.tables.items():
        # A deal found is as balanced as a table allows: the best there is.
        best = table.deals[0][0] if table.deals else table.best
        record[str(players)] = {"states": table.states, "deals": len(table.deals), "stopped_by": table.stopped_by,
                                "smallest": None if best is None else min(map(len, best.hands)),
                                "best": None if best is None else str(best)}
    return record


def sizes(deal):
    """'14/15/23': the hand sizes of a deal in record notation, the leader first."""
    return "/".join(str(len(hand)) for hand in deal.split("/"))


class Hunt(_Factory):
    name = "hunt"
    options = "hunt"
    rules = HuntRules
    unit = "perturbations"
    starts_from_loops = True
    # A GPU engine plays the walks; the seats are searched by the checkers.
    gpu = True

    def check(self, spec, data, where):
        """The factory's checks (two-player loops of the job's whole deck, of
        any split; the [hunt] options, as given), and a deck whose tables of
        three and four deal every player a card."""
        super().check(spec, data, where)
        total = Deck.parse(spec["deck"]).total
        if total < max(SEATS):
            raise JobError(f"{where}: the hunt driver seats loops at tables of {' and '.join(map(str, SEATS))}: "
                           f"a deck of {total} cards is too small")

    def start(self, archive, spec):
        """The full loops of the deck a perturb job starts from, each by its
        two players' canonical state."""
        spec["start"] = sorted({two_player_key(key) for key in start_keys(archive, spec["deck"])})
        if not spec["start"]:
            raise JobError(f"no full loop of the {spec['deck']} deck to hunt from: the archive holds none "
                           "and none is published (run a grow job first)")

    def describe(self, spec):
        return (f"{Deck.parse(spec['deck'])} deck, 2 players, loops of any split, each new one seated at tables "
                f"of {' and '.join(map(str, SEATS))}")

    # ------------------------------------------------------------ the job's process

    def going_on(self, archive, job_id, spec, summary):
        """The loops the job knows, its start and those its kept chunks added,
        in the order they were added, and its best 3-seat balance: from the
        chunks' records (ArchiveFault where they do not follow on)."""
        summary.hunt = hunt = HuntState(list(spec["start"]), len(spec["start"]))
        for chunk, record in in_order(archive.chunk_records(job_id)):
            hunt.follow(chunk, record, f"{archive.path}: damaged: job {job_id}")
        if hunt.best is not None:
            hunt.best["loop_id"] = archive.loop_id(spec["deck"], hunt.best["loop"])

    def handed(self, spec, summary):
        """The job's spec with the loops it knows now (`known`)."""
        return {**spec, "known": list(summary.hunt.keys)}

    def progress(self, summary, best):
        hunt = summary.hunt
        return {"new_loops": len(summary.new_loops), "known": len(hunt.keys), "kept": summary.kept,
                "best3": "-" if hunt.best is None else hunt.best["smallest"]}

    def keep(self, archive, job_id, spec, result, summary, between=None):
        """Keep a hunt chunk in one transaction: its loops (each reported one,
        and the loops at tables of three and four its deals fall into), the
        basins, every balanced deal its seats found and its record; then add
        its new loops to those the job knows and count them in the summary.
        Returns the first new deal of each loop at each table, to be
        announced."""
        hunt, growth = summary.hunt, result.growth
        games = result.games
        added = [seated.loop.hex for seated in growth["seated"] if seated.loop.hex not in hunt.known]
        records = [record_of(seated) for seated in growth["seated"]]
        new_loops, seated_rows, notes, disputed, news = [], [], [], [], []
        counts = {2: 0, 3: 0, 4: 0}
        rules = Rules()
        with kept(archive, job_id, result) as record:
            for seated, row in zip(growth["seated"], records):
                loop_id, new = archive.add_loop(seated.loop, job_id, self.name, result.chunk)
                if new:
                    new_loops.append((loop_id, seated.loop))
                if new or archive.loops(loop_id=loop_id)[0]["basin_states"] is None:
                    archive.set_basin(loop_id, seated.basin_states, len(seated.basin_games), seated.basin_stopped_by)
                if seated.loop.hex not in added:
                    continue        # seated by a chunk kept before: it told of its bounds
                seated_rows.append((loop_id, new, seated.loop, row))
                for table, search in row.items():
                    if table != "loop" and search["stopped_by"] is not None:
                        bound = (f"{spec['basin_states']:,} states" if search["stopped_by"] == "states"
                                 else f"{spec['basin_seconds']:g} s")
                        what = "basin search" if table == "basin" else f"search at a table of {table}"
                        notes.append(f"the {what} of loop {loop_id} stopped at its bound of {bound} "
                                     f"(basin_{search['stopped_by']}): it may hold more balanced deals")
            for loop in loops_of_games(archive, games):
                archive.add_loop(loop, job_id, self.name, result.chunk)
            added_games = archive.add_games(
                (game.deal, rules, game.outcome, game.replay, job_id, game.driver, spec["seed"], result.chunk, None,
                 None, game.loop) for game in games)
            told = set()
            for game, origin, (game_id, new) in zip(games, origins(growth["seated"]), added_games):
                if game.outcome != game.replay:
                    disputed.append(dispute(game_id, game.deal, game.outcome, game.replay))
                if new:
                    counts[game.deal.players] += 1
                    if origin not in told:
                        told.add(origin)
                        news.append((game_id, game.deal, game.outcome, game.driver))
            record.hits, record.best_cards = len(games), growth["largest"]
            record.stats = {
                "growth": {key: growth[key] for key in ("tries", "largest", "restarts", "sizes")},
                "loops": growth["reported"],
                "hunt": {"from": growth["from"], "at": len(hunt.keys), "added": added, "new": len(new_loops),
                         "workers": max(1, summary.workers), "walk_ms": round(1000 * growth["walk_seconds"]),
                         "seat_ms": round(1000 * growth["seat_seconds"]), "seated": records}}
        for loop_id, _, _, row in seated_rows:
            hunt.better(row, result.chunk, loop_id)
        hunt.add(added)
        hunt.walk_seconds += growth["walk_seconds"]
        hunt.seated.extend(seated_rows)
        for players, number in counts.items():
            hunt.deals[players] += number
        summary.deals += result.deals
        summary.loops += len(new_loops)
        summary.kept += sum(counts.values())
        summary.largest = max(summary.largest, growth["largest"])
        summary.full_loops += len(growth["reported"])
        summary.new_loops.extend(new_loops)
        summary.bounds.extend(notes)
        stop_if_disputed(summary, disputed, "it")
        return news

    def summary(self, summary, archive_path, cluster=None, whole=None):
        """Perturbations and their rate, the new loops and their rate, what
        their seats reached, and the job's best 3-seat balance so far."""
        hunt = summary.hunt
        run = " in this run" if whole is not None else ""
        rate = summary.deals / summary.seconds if summary.seconds else 0
        walks = summary.deals / hunt.walk_seconds if hunt.walk_seconds else 0
        hours = summary.seconds / 3600
        new = len(summary.new_loops)
        lines = [f"job      {summary.job}: {summary.state} ({summary.reason})",
                 f"tries    {summary.deals:,} perturbations{run} in {summary.seconds:.1f} s: "
                 f"{rate:,.0f} perturbations/s on {plural(summary.workers, 'worker')}"
                 + (f" of the cluster {cluster}" if cluster else "")
                 + f" (their walks alone: {walks:,.0f} perturbations/s a worker)",
                 f"loops    {plural(new, 'new loop')}{run} ({new / hours if hours else 0:,.1f} an hour), "
                 f"{plural(summary.full_loops, 'loop')} reported; it perturbs from {plural(len(hunt.keys), 'loop')} "
                 f"now ({hunt.given:,} to start with)"]
        if whole is not None:
            lines.append(whole_line(whole, self.unit))
        for loop_id, new_loop, loop, row in hunt.seated[:SHOWN]:
            lines.append(f"  loop {loop_id}: period {loop.period[0]} tricks / {loop.period[1]} cards, "
                         + ("" if new_loop else "known to the archive, ")
                         + "; ".join(f"{players} seats {_reached(row[str(players)])}" for players in SEATS)
                         + f"; {plural(row['basin']['deals'], 'balanced deal')} of 2 players in its basin")
        if len(hunt.seated) > SHOWN:
            lines.append(f"  ... and {len(hunt.seated) - SHOWN} more (beggar archive list --loops --job "
                         f"{summary.job}{archive_option(archive_path)})")
        lines.append(f"seated   {plural(len(hunt.seated), 'loop')}{run}: balanced deals that never end, each "
                     f"replayed by the reference engine and kept: {hunt.deals[2]:,} of 2 players, "
                     f"{hunt.deals[3]:,} of 3, {hunt.deals[4]:,} of 4")
        lines.append("best3    " + ("none yet: no loop seated" if hunt.best is None else
                                    f"{hunt.best['smallest']} ({sizes(hunt.best['deal'])}: {hunt.best['deal']}), "
                                    f"the largest smallest hand at a table of 3, from loop "
                                    f"{hunt.best['loop_id']} (chunk {hunt.best['chunk']})"))
        lines.extend(f"bound    {note}" for note in summary.bounds)
        lines.extend(f"NEW      {line}" for line in summary.announced)
        return lines

    def job_figures(self, archive, job_id, spec):
        """The whole job's figures from its chunks' records: perturbations, and
        per second of its walks; new loops, and per hour of the job run on its
        workers (each chunk's seconds over the workers of its run); loops
        known; its best 3-seat balance and where it came from; and what the
        searches from each loop it seated reached (`seated`, in the order
        the loops were added)."""
        walk_ms = new = 0
        hours = 0.0
        hunt = HuntState(list(spec["start"]), len(spec["start"]))
        seats = []
        for chunk, record in in_order(archive.chunk_records(job_id)):
            hunt.follow(chunk, record, f"{archive.path}: damaged: job {job_id}")
            walk_ms += record["walk_ms"]
            hours += (record["walk_ms"] + record["seat_ms"]) / record["workers"] / 3.6e6
            new += record["new"]
            seats.extend({"loop": seated["loop"], "loop_id": archive.loop_id(spec["deck"], seated["loop"]),
                          "chunk": chunk, **{table: seated[table] for table in ("basin", "3", "4")}}
                         for seated in record["seated"] if seated["loop"] in record["added"])
        tries = archive.job(job_id)["deals"]
        found = hunt.best
        if found is not None:
            found = {**found, "sizes": sizes(found["deal"]), "loop_id": archive.loop_id(spec["deck"], found["loop"])}
        return {"hunt": {"perturbations": tries, "perturbations_per_second": round(tries / walk_ms * 1000)
                         if walk_ms else 0, "hours": round(hours, 4), "new_loops": new,
                         "new_loops_per_hour": round(new / hours, 2) if hours else 0.0,
                         "loops_known": len(hunt.keys), "loops_seated": len(seats), "best3": found,
                         "seated": seats}}

    # ------------------------------------------------------------ a worker

    def play(self, spec, chunk):
        """Walk `chunk` from the loops handed with it (`known`; the start where
        none are): a ChunkResult whose growth holds the walk's figures and the
        states it reported (`walked`), seated by games()."""
        began = time.perf_counter()
        known = spec.get("known") or spec["start"]
        rules = HuntRules(**spec.get(self.name, {}))
        states = [(key_hands(key), 0) for key in ordered(known, spec["seed"], chunk)]
        walk = perturbation(spec, states, chunk, chunk_deals(spec, chunk), rules.walk())
        walked = time.perf_counter() - began
        growth = {"tries": walk.tries, "largest": walk.largest, "restarts": walk.restarts,
                  "sizes": [tuple(size) for size in walk.sizes], "from": len(known), "walk_seconds": walked,
                  "walked": [(tuple(tuple(hand) for hand in hands), leader) for hands, leader in walk.loops]}
        return ChunkResult(chunk, walk.tries, [], None, walked, growth=growth)

    def games(self, spec, result):
        """Seat each loop the chunk's walk reported that it did not start from
        (after the walk in a worker; a GPU job's checkers, while the device
        plays on), then the balanced deals its seats found, as checked
        games: each replayed by the reference engine where it was found,
        each with its loop (a deal of three or four players falls into the
        loop of its table, the empty seats of those out in it: loops.of_deal).
        The seats go in the chunk's growth (`reported`, `seated`)."""
        growth = result.growth
        began = time.perf_counter()
        known = spec.get("known") or spec["start"]
        rules = HuntRules(**spec.get(self.name, {}))
        seen, reports, seats = set(known), [], []
        for hands, leader in growth.pop("walked"):
            loop = reported(spec, hands, leader).loop
            if loop.hex in reports:
                continue
            reports.append(loop.hex)
            if loop.hex not in seen:
                seen.add(loop.hex)
                seats.append(seat(spec, loop, rules.guide))
        growth.update(reported=reports, seated=seats, seat_seconds=time.perf_counter() - began)
        checker = Checker()
        games = []
        for seated in result.growth["seated"]:
            checker.loops[seated.loop.key] = seated.loop
            for deal, compiled, reference in seated.basin_games:
                checker.replays[str(deal)] = reference
                games.append(checker.game(deal, compiled, "basin", loop=seated.loop.key))
            for players in SEATS:
                for deal, compiled, reference in seated.tables[players].deals:
                    checker.replays[str(deal)] = reference
                    games.append(checker.game(deal, compiled, "elimination"))
        return games


def origins(seated):
    """(the loop's key, players) of each game of Hunt.games, in its order:
    the first new deal of each loop at each table is announced, the others
    counted in the summary."""
    for item in seated:
        yield from [(item.loop.key, 2)] * len(item.basin_games)
        for players in SEATS:
            yield from [(item.loop.key, players)] * len(item.tables[players].deals)


def _reached(search):
    """What a search at a table reached, in a few words: '14 (14/15/23), 0 deals'."""
    best = "no state with every player in" if search["best"] is None else \
        f"{search['smallest']} ({sizes(search['best'])})"
    return f"{best}, {plural(search['deals'], 'deal')}" + (
        "" if search["stopped_by"] is None else f" (stopped by {search['stopped_by']})")
