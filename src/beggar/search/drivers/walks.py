"""What the drivers that walk loops or start from them stand on (grow,
perturb, hunt, eliminate): Walker, the driver whose walks build two-player
loops of a deck, with its job file's check, and what they share.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from ... import elimination, engine, finds, loops
from ...archive import archive_option
from ...cycle import key_deal, key_hands
from ...decks import Deck
from .. import SearchError
from ..spec import JobError, check_basin_bounds, deck_words, job_error, options_table
from .base import Budget, Driver, Plays


@dataclass(frozen=True)
class PerturbRules:
    """The options of a perturbation walk (beggar._loops.perturb, which
    checks them again; docs/loops.md)."""

    changes: int = 2
    reach: int = 3
    moves: str = "small"

    def __post_init__(self):
        from ... import _loops
        _loops.check_walk(self.changes, self.reach, self.moves)


class Walker(Driver):
    """A driver whose walks build two-player loops of a job's whole deck, by
    the options of its job file's table (`rules`: their dataclass)."""
    budget = Budget("tries")
    plays = Plays(None, loops=True, seed="walks")

    def check(self, spec, data, where):
        try:
            from ... import _loops
        except ImportError as error:
            raise JobError(f"{where}: the {self.name} driver needs the compiled engine ({error})") from None
        known = [option.name for option in fields(self.rules)]
        options = options_table(data, self.name, "the walk's options", known, where)
        with job_error(where):
            _loops.check_deck(spec["deck"])
        with job_error(f"{where}: [{self.name}]"):
            self.rules(**options)
        spec[self.name] = dict(options)     # as given: the walk takes the rules' defaults for the rest
        check_basin_bounds(spec, where)
        if spec["players"] != 2:
            raise JobError(f"{where}: the {self.name} driver builds two-player loops, "
                           f"not {spec['players']}-player ones")
        if spec["split"] != "even":
            raise JobError(f"{where}: the {self.name} driver builds loops of any split: 'split' does not apply")
        spec["extend_cards"] = 0
        if self.devices.gpu and spec["engine"] == "reference":
            # Its walks are the compiled engine's, or a GPU engine's; the
            # reference engine checks every loop they report.
            raise JobError(f"{where}: the {self.name} driver's walks run on the compiled engine or a GPU engine, "
                           "not the reference engine")

    def describe(self, spec):
        return f"{deck_words(spec)}, 2 players, loops of any split"


def perturbation(spec, states, chunk, tries, rules, known=()):
    """Perturbation walk number `chunk` of job `spec`'s seed from `states`
    [(hands, leader)], at most `tries` tries, by `rules` (PerturbRules as a
    dict), none of the loops `known` (cycle hashes) reported: the one place
    a walk is played (perturb, hunt, benchmarks/hunt_speed.py)."""
    return engine.perturb(states, Deck.parse(spec["deck"]), spec["seed"], chunk, tries, engine=spec["engine"],
                          known=known, **rules)


def cycle_hashes(states, deck):
    """The cycle hash of the loop of each of `states` (two-player, of `deck`),
    by which a perturbation walk knows a loop (beggar._loops.cycle_hashes)."""
    from ... import _loops
    return _loops.cycle_hashes(states, deck)


def start_keys(archive, deck, players=2):
    """The canonical states (hex) a job of `deck` at a table of `players`
    starts from, sorted: the loops of the deck the archive holds and those
    known before any search (finds.known_loops), of at most `players`
    players (backward play adds players, never takes them away)."""
    deck = str(Deck.parse(deck))
    keys = {row["key"] for row in archive.loops(deck=deck)} | set(finds.known_loops(deck))
    return sorted(key for key in keys if len(key_hands(key)) <= players)


@dataclass
class ReportedLoop:
    """A full loop a walk reported, looked at again; `basin` is its basin
    search (backward.Basin) when it is new to the archive, else None."""
    loop: loops.Loop
    basin: object = None
    games: list = field(default_factory=list)      # [(deal, compiled outcome, reference outcome)]


def reported(spec, hands, leader):
    """The full loop a walk of job `spec` reported by a state on its cycle,
    looked at again (loops.of_state) and played by both engines: a
    ReportedLoop; SearchError (a bug in beggar, nothing of the chunk kept)
    for no loop, a loop of another deck, or one the engines disagree on."""
    try:
        loop = loops.of_state(hands, leader)
    except loops.LoopError as error:
        raise SearchError(f"a {spec['driver']} walk reported a state that is no loop: {error}. "
                          "This is a bug in beggar: please report it.") from None
    if loop.deck != spec["deck"]:
        raise SearchError(f"a {spec['driver']} walk reported a loop of the {loop.deck} deck, not of the "
                          f"job's {spec['deck']} deck ({loop.deal()}). This is a bug in beggar: please "
                          "report it.")
    deal = loop.deal()
    compiled, reference = engine.play(deal), engine.play(deal, engine="reference")
    if compiled != reference:
        # Nothing of the chunk is kept: a loop rests on both engines' word.
        raise SearchError(f"the engines disagree on the loop {deal} that a {spec['driver']} walk "
                          f"reported: compiled {compiled}, reference {reference}. This is "
                          "a bug in beggar: please report the deal.")
    return ReportedLoop(loop)


def search_back(spec, key, players, guide, states):
    """elimination.from_loop from loop `key` (its players' states, whatever the key: one given
    before archive format 6 holds players out) at a table of `players`; SearchError for a
    fault of the search (the job stops as failed, its chunks kept)."""
    try:
        return elimination.from_loop(loops.of_deal(key_deal(key)).states, players,
                                     Deck.parse(spec["deck"]).total, guide, states, spec["basin_seconds"])
    except elimination.EliminationFault as error:
        raise SearchError(str(error)) from None


#: New loops named one by one in a run's summary.
SHOWN = 10
#: What `beggar archive list` shows unless given --limit (its default, cli/archive.py).
LISTED = 50


def limit_option(count):
    """The --limit that makes `beggar archive list` show `count` rows, where its default shows fewer."""
    return f" --limit {count}" if count > LISTED else ""


def new_loop_lines(new_loops, job_id, archive_path):
    """The lines of a summary that name a run's new loops [(loop id, loops.Loop)], SHOWN of them."""
    lines = []
    for loop_id, loop in new_loops[:SHOWN]:
        known = finds.known_loops(loop.deck).get(loop.hex)
        lines.append(f"  loop {loop_id}: period {loop.period[0]} tricks / {loop.period[1]} cards"
                     + (", a balanced state on its cycle" if loop.balanced else "") + f": {loop.deal()}"
                     + (f" (known: {known})" if known else ""))
    if len(new_loops) > SHOWN:
        lines.append(f"  ... and {len(new_loops) - SHOWN} more (beggar archive list --loops --job {job_id}"
                     f"{limit_option(len(new_loops))}{archive_option(archive_path)})")
    return lines
