"""The loop factory's drivers, "grow" and "perturb" (docs/loops.md tells their
chunks, starts and basin searches): a chunk's full loops are looked at again,
and basin searched, before the archive's write lock is taken (keep.kept).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ... import engine, loops
from ...backward import basin
from ...cycle import key_deal
from ...decks import Deck
from ...rules import Rules
from .. import announce
from ..keep import dispute, kept, stop_if_disputed
from ..spec import JobError, chunk_deals
from .base import ChunkResult, Devices, Starts, plural, whole_line
from .walks import PerturbRules, Walker, new_loop_lines, perturbation, reported, start_keys


@dataclass(frozen=True)
class GrowRules:
    """The options of a growth walk (beggar._loops.grow, which checks them
    with the same check_growth): the defaults are the kernel's measured best."""

    start_courts: int = 4
    start_plain: int = 12
    patience: int = 400
    stall: int = 20000
    lateral_percent: int = 50

    def __post_init__(self):
        from ... import _loops
        _loops.check_growth(**asdict(self))


@dataclass
class FactoryTally:
    """A grow or perturb run's own part of its summary."""
    largest: int = 0            # most cards in a looping state its walks reached
    full_loops: int = 0         # full loops reported (new or not)
    new_loops: list = field(default_factory=list)   # [(loop id, loops.Loop)] new to the archive
    prizes: list = field(default_factory=list)      # [(game id, loop id, deal)]: balanced loop deals
    bounds: list = field(default_factory=list)      # basin searches stopped by a bound, in words


class _Factory(Walker):
    """Grow and perturb: a chunk's payload is what its walk did (play)."""

    def play(self, spec, chunk):
        """Run chunk `chunk`: a ChunkResult whose payload is a plain dict of what the walk did."""
        growth = self.walk(spec, chunk, chunk_deals(spec, chunk), asdict(self.rules(**spec.get(self.name, {}))))
        growth = {"loops": [(tuple(tuple(hand) for hand in hands), leader) for hands, leader in growth.loops],
                  "tries": growth.tries, "largest": growth.largest, "restarts": growth.restarts,
                  "sizes": [tuple(size) for size in growth.sizes]}
        return ChunkResult(chunk, growth["tries"], [], None, growth)

    def games(self, spec, result):
        return None         # a walk's loops are checked as they are kept (checked): only the archive knows the new

    def reached(self, result):
        return result.payload["largest"]

    def progress(self, summary, best):
        """Its walks count full loops new to the archive (summary.loops), not
        loop deals: its balanced deals are what it keeps."""
        return {"best": best, "kept": summary.kept, "new_loops": summary.loops}

    def summary(self, summary, archive_path, cluster=None, whole=None):
        """Tries, loops, and the prize, a balanced deal that never ends, in full."""
        tally = summary.payload = summary.payload or FactoryTally()
        rate = summary.deals / summary.seconds if summary.seconds else 0
        run = " in this run" if whole is not None else ""
        lines = [f"job      {summary.job}: {summary.state} ({summary.reason})",
                 f"tries    {summary.deals:,}{run} in {summary.seconds:.1f} s: {rate:,.0f} tries/s "
                 f"on {plural(summary.workers, 'worker')}"
                 + (f" of the cluster {cluster}" if cluster else ""),
                 f"largest  {tally.largest} cards in a looping state{run}",
                 f"loops    {plural(tally.full_loops, 'full loop')} reported{run}, "
                 f"{len(tally.new_loops)} new to {archive_path}"]
        if whole is not None:
            lines.append(whole_line(whole, "tries", lengths=False))
        lines.extend(new_loop_lines(tally.new_loops, summary.job, archive_path))
        lines.extend(f"bound    {note}" for note in tally.bounds)
        if tally.prizes:
            lines.append(f"BALANCED {len(tally.prizes)} balanced deal{'s' if len(tally.prizes) != 1 else ''} "
                         "that never end, replayed by the reference engine and kept:")
            lines.extend(f"  {deal}  (game {game_id}, loop {loop_id})" for game_id, loop_id, deal in tally.prizes)
        else:
            lines.append("balanced no new balanced deal in a basin")
        lines.extend(announce.summary_lines(summary, archive_path))
        return lines

    def keep(self, archive, job_id, spec, result, summary, between=None):
        """Keep a chunk's loops, their balanced deals and its record in one
        transaction, then count them (what it kept counted only once it is
        committed); returns the first new balanced deal of each loop.
        `between()` comes before each loop's check and basin search (a chunk
        may bring hundreds)."""
        growth = result.payload
        found = checked(archive, spec, growth, between)
        tally = summary.payload = summary.payload or FactoryTally()
        new_loops = []      # [(loop id, Loop)] new to the archive
        prizes = []         # [(game id, loop id, deal)]: their basins' balanced deals
        news = []           # the first of each loop, to be announced
        notes = []          # the bounds their searches met, in words
        disputed = []
        with kept(archive, job_id, result) as record:
            for item in found:
                loop_id, new = archive.add_loop(item.loop, job_id, spec["driver"], result.chunk)
                if new:
                    new_loops.append((loop_id, item.loop))
                if item.basin is None:
                    continue
                stopped_by = item.basin.stopped_by
                archive.set_basin(loop_id, item.basin.states, len(item.games), stopped_by)
                if stopped_by is not None:
                    bound = (f"{spec['basin_states']:,} states" if stopped_by == "states"
                             else f"{spec['basin_seconds']:g} s")
                    notes.append(f"the basin search of loop {loop_id} stopped at its bound of {bound} "
                                 f"(basin_{stopped_by}): it may hold more balanced deals")
                for deal, compiled, reference in item.games:
                    game_id, new_game = archive.add_game(deal, Rules(), compiled, reference, job_id, "basin",
                                                         spec["seed"], result.chunk, None, None, item.loop.key)
                    if compiled != reference:
                        disputed.append(dispute(game_id, deal, compiled, reference))
                    if new_game:
                        if not any(prize[1] == loop_id for prize in prizes):
                            news.append((game_id, deal, compiled, "basin"))
                        prizes.append((game_id, loop_id, deal))
            record.hits, record.best_cards = len(found), growth["largest"]
            record.stats = {"growth": {key: growth[key] for key in ("tries", "largest", "restarts", "sizes")},
                            "loops": [item.loop.hex for item in found]}
        summary.deals += result.deals
        summary.loops += len(new_loops)
        summary.kept += len(prizes)
        tally.largest = max(tally.largest, growth["largest"])
        tally.full_loops += len(found)
        tally.new_loops.extend(new_loops)
        tally.prizes.extend(prizes)
        tally.bounds.extend(notes)
        stop_if_disputed(disputed, "it")
        return news


class Grow(_Factory):
    name = "grow"
    options = "grow"
    rules = GrowRules

    def walk(self, spec, chunk, tries, rules):
        from ... import _loops
        return _loops.grow(Deck.parse(spec["deck"]), spec["seed"], chunk, tries, **rules)


class Perturb(_Factory):
    name = "perturb"
    options = "perturb"
    rules = PerturbRules
    starts = Starts(loops=True)
    devices = Devices(gpu=True)

    def walk(self, spec, chunk, tries, rules):
        return perturbation(spec, start_states(spec), chunk, tries, rules)

    def start(self, archive, spec):
        """The full loops of the deck (start_keys)."""
        spec["start"] = start_keys(archive, spec["deck"])
        if not spec["start"]:
            raise JobError(f"no full loop of the {spec['deck']} deck to perturb: the archive holds none "
                           "and none is published (run a grow job first)")


def start_states(spec):
    """Every state on the cycles of a perturb job's start loops, in a fixed
    order (a key given before archive format 6 may hold a player out: its
    players' loop is played from it all the same)."""
    return [state for key in spec["start"] for state in loops.of_deal(key_deal(key)).states]


def checked(archive, spec, growth, between=None):
    """The full loops of a chunk's walk, each checked, and its basin searched
    where the archive holds none. `between()` comes before each: a stop does
    not wait for seconds of basin searches (what it raises gives the chunk up)."""
    found = {}
    for hands, leader in growth["loops"]:
        if between is not None:
            between()
        item = reported(spec, hands, leader)
        loop = item.loop
        if loop.key in found:
            continue
        found[loop.key] = item
        # Its row's basin alone, not archive.loop's count of the games that fall into it.
        if archive.basin_searched(loop.deck, loop.hex):
            continue
        item.basin = basin(loop.deal(), spec["basin_states"], spec["basin_seconds"])
        item.games = [(member, engine.play(member), replay) for member, replay in item.basin.deals]
    return list(found.values())
