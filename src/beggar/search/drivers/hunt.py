"""The hunt driver: walks in rounds toward balanced deals, each promising new
loop seated at its tables (docs/loops.md, The hunt, tells it in full). Walk
chunks keep records of the loops they reported (RECORD), seats a driver row
each (SEAT_ROW); what the hunt knows is rebuilt from them whenever it goes on,
so that it keeps the same, stopped and resumed or on any number of workers.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import asdict, dataclass, fields

from ... import family, loops
from ...archive import ArchiveFault, readback
from ...checks import MAX_COUNT, cut, whole
from ...cycle import key_deal, key_hands
from ...decks import MAX_DECK, MAX_PLAYERS, MIN_PLAYERS, Deck
from ...rules import Rules
from ...states import GUIDES
from .. import announce
from ..crosscheck import Checker
from ..keep import dispute, kept, loops_of_games, stop_if_disputed, stored
from ..spec import CHUNK_SECONDS, MAX_CHUNK, JobError, chunk_deals, chunks_in, deck_words, job_error
from ..units import Chunks, Unit, lately
from . import aim, regrow
from .base import Budget, ChunkResult, Devices, Starts, plural, whole_line
from .walks import (PerturbRules, Walker, cycle_hashes, new_loop_lines, perturbation, reported, search_back,
                    start_keys)

#: The tries of a part (four of a walk's own rounds of 16,384): a twentieth
#: of a second of a core.
PART = 65_536

#: The parts of a round where a job gives no round: a minute of a core at
#: the standard deck's million walks a second (a few seconds of a
#: workstation's), long beside a chunk, short beside a hunt.
ROUND_PARTS = 1024

#: What a seat's search keeps of the deals it found, by table: a two-seat
#: search is the loop's basin search.
FOUND_BY = {2: "basin", 3: "elimination", 4: "elimination"}

#: The choices of [hunt] seat.
SEAT = ("cells", "aimed", "all", "none")

#: What a hunt made before families, maps and wide moves went by, where its
#: stored [hunt] table says nothing of them: so that it goes on as it began.
BEFORE_MAPS = {"pool": "elite", "moves": "small", "regrow": 0, "trim": 1, "crowd": 0}

#: Where a job on a GPU engine gives no [hunt] moves or regrow: the kernels
#: make the small moves only, and growth walks are the compiled engine's.
ON_GPU = {"moves": "small", "regrow": 0}

#: The new loops of one family a part keeps at most, where the hunt has
#: crowds ([hunt] crowd; docs/loops.md, Crowded families, tells why).
PART_CROWD = 4

#: The starts a growth walk of a hunt is given (regrow.trimmed): each a loop
#: of the pool with a few cards taken out.
STARTS = 16

#: The seconds a run needs before its rate an hour is told: a rate an hour
#: from a run of a second says nothing.
RATE_SECONDS = 60


def an_hour(count, seconds):
    """' (1,148.5 an hour)': `count` in `seconds` as a rate an hour, or
    nothing for a run shorter than RATE_SECONDS."""
    return f" ({count * 3600 / seconds:,.1f} an hour)" if seconds >= RATE_SECONDS else ""


@dataclass(frozen=True)
class HuntRules:
    """The [hunt] table (docs/loops.md, The hunt, says what each option does;
    0 turns explore, regrow and crowd off)."""

    tables: tuple = aim.TABLES
    changes: int = 4
    reach: int = 8
    moves: str = "wide"
    round: int | None = None        # None: ROUND_PARTS parts
    pool: str = "novelty"
    elite: int = 5
    explore: int = 4
    regrow: int = 4
    trim: int = 4
    crowd: int = 64
    seat: str = "cells"
    guide: str = "smallest"

    def __post_init__(self):
        tables = self.tables
        if isinstance(tables, (str, bytes)) or not isinstance(tables, (list, tuple)) or not tables or any(
                isinstance(table, bool) or not isinstance(table, int) or table not in aim.TABLES for table in tables) \
                or len(set(tables)) != len(tables):
            raise ValueError(f"tables must be a list of the tables hunted for, of 2, 3 and 4, each once, "
                             f"not {tables!r}")
        object.__setattr__(self, "tables", tuple(sorted(tables)))
        PerturbRules(self.changes, self.reach, self.moves)
        for name, choices in (("pool", aim.POOLS), ("seat", SEAT), ("guide", GUIDES)):
            if getattr(self, name) not in choices:
                raise ValueError(f"{name} must be one of {', '.join(choices)}, not {getattr(self, name)!r}")
        for name, low, high in (("regrow", 0, MAX_COUNT), ("trim", 1, MAX_DECK), ("crowd", 0, MAX_COUNT),
                                ("round", 1, MAX_COUNT), ("elite", 0, MAX_DECK), ("explore", 0, MAX_COUNT)):
            if name != "round" or self.round is not None:
                whole(getattr(self, name), name, low, high)

    def walk(self):
        """The walk's options, as walks.perturbation takes them."""
        return {option.name: getattr(self, option.name) for option in fields(PerturbRules)}

    def stored(self):
        """The rules as a job's spec keeps them (every one, so that a job
        goes on as it began whatever the defaults become)."""
        return {**asdict(self), "tables": list(self.tables)}


def rules_of(spec):
    """The stored job's HuntRules, those it was made before having their values then (BEFORE_MAPS)."""
    return HuntRules(**{**BEFORE_MAPS, **spec["hunt"]})


#: The [hunt] options a hunt of the first kind (beggar 0.1.0) had: its walk's and its guide.
FIRST_KIND_OPTIONS = {"changes", "reach", "guide"}


def first_kind(spec):
    """Whether a stored hunt job is of the first kind, which went by chunks
    that each walked from the loops known when it was handed out."""
    return "tables" not in spec.get("hunt", {})


@dataclass(frozen=True)
class Seat:
    """A seat to search: a loop (its canonical state, hex) at a table of `players`."""
    loop: str
    players: int


@dataclass
class Walked:
    """A walk chunk's payload: its round and figures, the loops its walks
    reported [((hands, leader), part, cycle hash)], and games()' `found`
    (each loop looked at again by both engines, as aim.Known) and `loops`
    (their loops.Loop by cycle hash)."""
    round: int
    tries: int
    largest: int
    reported: list
    walk_seconds: float
    found: list | None = None
    loops: dict | None = None
    check_seconds: float = 0.0
    crowded: int = 0        # its parts' reports of loops of crowded families left out (HuntRules.crowd)


#: A hunt chunk's record (the field "hunt" of its statistics, its own:
#: records.OWN): its round, its tries and what they reached, and every loop
#: its walks reported, each as [canonical state (hex), the part that found
#: it first, its period in tricks, its cycle hash (16 hex digits), its
#: balance, its family's name (family.NAME; none in a record kept before
#: families)].
RECORD = {"round", "tries", "largest", "loops", "walk_ms", "check_ms", "workers"}


def read_records(archive, job_id, deck):
    """archive.chunk_records of hunt `job_id` of `deck` (a decks.Deck), each
    record's own part checked: ArchiveFault naming the chunk."""
    found = archive.chunk_records(job_id)
    for chunk, stats in found:
        try:
            check_record(stats["hunt"], deck)
        except readback.Damaged as problem:
            raise ArchiveFault(f"{archive.path}: damaged: the statistics of chunk {chunk} of job {job_id}: 'hunt' "
                               f"{problem}") from None
    return found


def check_record(value, deck):
    """readback.Damaged unless `value` is a hunt chunk's record (RECORD)."""
    readback.fields(value, RECORD, "a hunt walk's round, tries, loops and times")
    for name in ("round", "tries", "largest", "walk_ms", "check_ms"):
        readback.count(value[name])
    readback.count(value["workers"], 1, readback.MOST_WORKERS)
    if not isinstance(value["loops"], list):
        raise readback.holds(value["loops"], "a list of the loops its walks reported")
    seen = set()
    for entry in value["loops"]:
        # A loop kept before families has no family's name (known_state works it out).
        if not isinstance(entry, list) or len(entry) not in (5, 6):
            raise readback.holds(entry, "[key, part, period, cycle hash, balance, family]")
        key, part, period, cycle, balance = entry[:5]
        if len(entry) == 6 and not (isinstance(entry[5], str) and family.NAME.fullmatch(entry[5])):
            raise readback.holds(entry[5], "a family's name (tricks.cards.8 hex digits)")
        problem = readback.key_problem(key, deck)
        if problem is not None:
            raise readback.Damaged(f"the key {problem}")
        if key in seen:
            raise readback.Damaged(f"lists loop {cut(key)} twice")
        seen.add(key)
        readback.count(part)
        readback.count(period, 1)
        if not (isinstance(cycle, str) and len(cycle) == 16 and all(ch in "0123456789abcdef" for ch in cycle)):
            raise readback.holds(cycle, "a loop's cycle hash (16 hex digits)")
        readback.count(balance, 1, deck.total // 2)


#: A seat as the hunt keeps it, a driver row (docs/archive.md, Loops): {field: its
#: check} (read_seat), in the order they are checked. What stopped its search (null:
#: it was complete) is its bound in states alone: a bound in seconds keeps nothing.
SEAT_ROW = {"loop": None, "players": lambda v: readback.count(v, MIN_PLAYERS, MAX_PLAYERS),
            "states": readback.count, "deals": readback.count,
            "stopped_by": readback.optional(lambda v: readback.one_of(v, ("states",))),
            "smallest": readback.optional(readback.count), "best": None, "seconds": readback.seconds}


def seat_key(loop, players):
    return f"{loop}/{players}"


def seats(archive, deck, job_id=None, loop=None):
    """The seats kept (of job `job_id`, of the loop `loop` at every table,
    when given) as dicts of the job, its fields (SEAT_ROW) and done_at, in
    the order kept, each checked (read_seat) against `deck` (a Deck or its name)."""
    keys = None if loop is None else [seat_key(loop, players) for players in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
    return [read_seat(archive.path, row, Deck.parse(deck)) for row in archive.rows("seat", job_id, keys)]


def read_seat(path, row, deck):
    """A driver row of kind seat as a seat, checked field by field against
    SEAT_ROW: ArchiveFault naming the file, the seat and the field."""
    seat = row["value"]
    what = f"the seat of loop {cut(seat.get('loop'))} at {cut(seat.get('players'))} of job {cut(row['job'])}"
    column = "value"
    try:
        readback.fields(seat, set(SEAT_ROW), f"a seat's {', '.join(SEAT_ROW)}")
        for column, check in SEAT_ROW.items():
            if check is not None:
                check(seat[column])
        column = "loop"
        readback.loop_key(seat["loop"], deck)
        if row["key"] != seat_key(seat["loop"], seat["players"]):
            column = "key"
            raise readback.holds(row["key"], f"{seat_key(cut(seat['loop']), seat['players'])}, its loop and table")
        column = "best"
        best = seat["best"]
        if best is None:
            if seat["smallest"] is not None:
                raise readback.holds(seat["smallest"], "none (no best state)")
        else:
            deal = readback.written_by_beggar(best)
            if deal is None or deal.players != seat["players"] or deal.counts() != deck.counts:
                raise readback.holds(best, f"a state of {seat['players']} hands of the job's deck")
            if seat["smallest"] != min(len(hand) for hand in deal.hands):
                column = "smallest"
                raise readback.holds(seat["smallest"], f"the smallest hand of {best}")
    except readback.Damaged as problem:
        raise readback.damaged(path, what, column, problem) from None
    return {"job": row["job"], **seat, "done_at": row["done_at"]}


@dataclass
class Seated:
    """A seat's payload: the seat and what its search found (elimination.TableBasin)."""
    seat: Seat
    table: object


class HuntState:
    """What a hunt knows as it runs (the run's summary payload): the loops it
    knows, its rounds and seats, over every run; and what this run did."""

    def __init__(self, spec, start):
        self.rules = rules_of(spec)
        self.total = Deck.parse(spec["deck"]).total
        self.parts_a_round = max(1, self.rules.round // spec["chunk"])
        self.known = {known.key: known for known in start}       # key: aim.Known
        self.given = len(start)
        self.families = {known.family for known in start}      # the names of the families known
        self.given_families = len(self.families)
        self.cells_seated = 0       # the rounds whose new cells are seated at three and four (aim.cell_seats)
        self.cells_taken = {known.cell for known in start}      # the cells of those rounds and the start
        self.by_round = {-1: {known.key for known in start}}    # round: the keys of the loops it found first
        self.kept_parts = {}        # round: parts of it kept
        self.total_parts = chunks_in(spec)
        self.seats_done = {}        # Seat: (smallest, best, deals)
        self.due = []               # Seats to search, nearest first
        self.gave_up = set()        # this run: seats basin_seconds stopped (searched again on resume)
        self.pools = {}             # round: (pool keys, known hashes, every key known)
        self.ids = {}               # key: its loop's id in the archive, where looked up
        # This run's:
        self.new_loops = []         # [(loop id, Loop)] new to the archive
        self.found = 0              # loops new to the hunt
        self.new_families = 0       # families new to the hunt
        self.crowded = 0            # its parts' reports of loops of crowded families, left out
        self.busy = (0, 0)          # workers walking, searching seats
        self.walk_seconds = 0.0
        self.deals = {players: 0 for players in aim.TABLES}
        self.notes = []
        self.bounded = {}           # this run: players: seats whose bound in states stopped them
        self.bound = spec["basin_states"]

    # ------------------------------------------------------------ what it knows

    def learn(self, known):
        """A loop a walk reported: known from the least round that did (a
        chunk kept later may be of an earlier round). Seats it where the
        rules say, if it is new to the hunt; True when it is."""
        old = self.known.get(known.key)
        if old is not None:
            if (known.round, known.part) < (old.round, old.part):
                self.known[known.key] = known
                self.by_round[old.round].discard(known.key)
                self.by_round.setdefault(known.round, set()).add(known.key)
            return False
        self.known[known.key] = known
        self.by_round.setdefault(known.round, set()).add(known.key)
        if known.family not in self.families:
            self.families.add(known.family)
            self.new_families += 1
        for players in known.seated_at(self.rules.tables, self.total, self.rules.seat):
            self.seat(Seat(known.key, players))
        return True

    def seat(self, seat):
        if seat not in self.seats_done:
            self.due.append(seat)

    def seat_cells(self):
        """Seat at three and four the first loop of each new cell of every
        round complete, in order (aim.cell_seats): a round's seats once every
        round before it is complete, so that they are the same whatever order
        its chunks were kept in."""
        while self.complete(self.cells_seated) and self.parts_of(self.cells_seated):
            # A round complete, and every one before it: none of its loops is found earlier again.
            found = [self.known[key] for key in self.by_round.get(self.cells_seated, ())]
            for key, players in aim.cell_seats(found, self.cells_taken, self.rules.tables, self.rules.seat):
                self.seat(Seat(key, players))
            self.cells_taken.update(loop.cell for loop in found)
            self.cells_seated += 1

    def sort_due(self):
        """The seats to search, two seats first (the rarer prize), the nearest
        loops first, then by key and table."""
        self.due.sort(key=lambda seat: (seat.players != 2, self.known[seat.loop].gap(self.total), seat.loop,
                                        seat.players))

    def best(self, players):
        """(smallest, best state, loop key) of the seats at `players` with the
        largest smallest hand, one that found a balanced deal first, then the
        least key, or None."""
        reached = [(smallest, deals > 0, seat.loop, best) for seat, (smallest, best, deals) in self.seats_done.items()
                   if seat.players == players and smallest is not None]
        if not reached:
            return None
        smallest, _, key, best = min(reached, key=lambda item: (-item[0], not item[1], item[2]))
        return smallest, best, key

    # ------------------------------------------------------------ rounds

    def round_of(self, part):
        return part // self.parts_a_round

    def parts_of(self, round_):
        """The parts of round `round_` within the budget."""
        first = round_ * self.parts_a_round
        last = first + self.parts_a_round
        if self.total_parts is not None:
            last = min(last, self.total_parts)
        return max(0, last - first)

    def complete(self, round_):
        return self.kept_parts.get(round_, 0) >= self.parts_of(round_)

    def open(self, round_):
        """Whether walks of `round_` may start: every round before round_ - 1 is complete."""
        return all(self.complete(earlier) for earlier in range(round_ - 1))

    def pool(self, round_):
        """(the pool's keys, the cycle hashes of the other loops known, the
        keys of every loop known, the crowded families) of round `round_`'s
        walks: of the loops known from the start and rounds before round_ - 1."""
        if round_ not in self.pools:
            known = [loop for loop in self.known.values() if loop.round < 0 or loop.round < round_ - 1]
            keys = aim.pool(known, self.rules.tables, self.total, self.rules.elite, self.rules.pool, round_)
            chosen = set(keys)
            others = sorted(loop.hash for loop in known if loop.key not in chosen)
            sizes = Counter(loop.family for loop in known)
            crowded = sorted(name for name, size in sizes.items() if self.rules.crowd and size >= self.rules.crowd)
            self.pools[round_] = (keys, others, sorted(loop.key for loop in known), crowded)
        return self.pools[round_]


class HuntUnits(Chunks):
    """A hunt's work: seats, nearest first, and walk chunks of the rounds open,
    each within one round, side by side (docs/loops.md, Walks beside seats)."""

    def __init__(self, spec, kept, state):
        super().__init__(spec, kept)
        self.state = state
        self.seat_seconds = None        # a seat's time in a worker, lately
        self.last_was_seat = False

    def take(self, left, in_flight, workers):
        unit = self._take(left, in_flight, workers)
        # The workers play the units in the order they were handed out: the first `workers` are at work.
        working = (in_flight + ([unit] if unit is not None else []))[:workers]
        seats = sum(other.task is not None for other in working)
        self.state.busy = (len(working) - seats, seats)
        return unit

    def _take(self, left, in_flight, workers):
        walks = [unit for unit in in_flight if unit.task is None]
        seats = len(in_flight) - len(walks)
        walk_first = seats >= -(-workers // 2) or (workers == 1 and self.last_was_seat)
        if walk_first:
            walk = self._walk(left, walks, workers)
            if walk is not None:
                self.last_was_seat = False
                return walk
        seat = self._seat(left, in_flight)
        self.last_was_seat = seat is not None
        return seat if seat is not None or walk_first else self._walk(left, walks, workers)

    def _seat(self, left, in_flight):
        skipped = {unit.task for unit in in_flight if unit.task is not None} | self.state.gave_up
        seat = next((seat for seat in self.state.due if seat not in skipped), None)
        if seat is None or (left is not None and in_flight and (self.seat_seconds or 0) > left):
            return None
        return Unit(None, 1, seat)

    def _walk(self, left, walks, workers):
        part = self.plan.peek()
        if part is None or not self.state.open(self.state.round_of(part)):
            return None
        end = (self.state.round_of(part) + 1) * self.state.parts_a_round
        return super().take(left, walks, workers, most=end - part)

    def expected(self, unit):
        return self.seat_seconds if unit.task is not None else super().expected(unit)

    def finished(self, unit, result, keep_seconds):
        if unit.task is None:
            super().finished(unit, result, keep_seconds)
        else:
            self.seat_seconds = lately(self.seat_seconds, result.seconds + result.check_seconds)

    def left(self):
        return super().left() or bool(self.state.due)

    def stuck(self):
        """Seats that basin_seconds stopped, with nothing else left: searched again on resume."""
        if super().left() or any(seat not in self.state.gave_up for seat in self.state.due):
            return None
        count = len(self.state.gave_up)
        return (f"{plural(count, 'seat')} stopped at basin_seconds, searched again when the job goes on "
                "(bound lines below)")


class Hunt(Walker):
    name = "hunt"
    options = "hunt"
    rules = HuntRules
    budget = Budget("perturbations", "budget spent, every seat searched", timed=True, part=PART)
    starts = Starts(loops=True)
    # A GPU engine plays the walks; the seats are searched where the cores are.
    devices = Devices(gpu=True)

    def check(self, spec, data, where):
        """A walker's checks, a round of whole parts, and a deck whose tables
        aimed at deal every player a card."""
        super().check(spec, data, where)
        if "chunk" not in data:
            spec["chunk"] = PART
        if "chunk_seconds" not in data:
            spec["chunk_seconds"] = CHUNK_SECONDS
        with job_error(where):
            whole(spec["chunk"], "'chunk'", 1, MAX_CHUNK)
        on_gpu = spec["engine"].gpu
        rules = HuntRules(**{**(ON_GPU if on_gpu else {}), **spec["hunt"]})
        if on_gpu and (rules.moves != "small" or rules.regrow):
            raise JobError(f"{where}: [hunt]: the {spec['engine']} engine's walks make small moves only, with no "
                           f"growth walks: set moves = \"small\" and regrow = 0 (not {rules.moves!r} and "
                           f"{rules.regrow}), or run the hunt on the compiled engine")
        if rules.round is None:
            rules = HuntRules(**{**asdict(rules), "round": ROUND_PARTS * spec["chunk"]})
        spec["hunt"] = rules.stored()
        if rules.round % spec["chunk"]:
            raise JobError(f"{where}: [hunt]: round must be a whole number of parts ('chunk', {spec['chunk']:,} "
                           f"tries), not {rules.round:,} tries")
        total = Deck.parse(spec["deck"]).total
        if total < max(rules.tables):
            raise JobError(f"{where}: the hunt driver seats loops at tables of {' and '.join(map(str, rules.tables))}:"
                           f" a deck of {total} cards is too small")

    def start(self, archive, spec):
        """The full loops a perturb job starts from, each by its two players' canonical state."""
        spec["start"] = sorted({two_player_key(key) for key in start_keys(archive, spec["deck"])})
        if not spec["start"]:
            raise JobError(f"no full loop of the {spec['deck']} deck to hunt from: the archive holds none "
                           "and none is published (run a grow job first)")

    def describe(self, spec):
        if first_kind(spec):
            return super().describe(spec) + " (a hunt of the first kind)"
        rules = rules_of(spec)
        tables = ' and '.join(map(str, rules.tables))
        if rules.pool == "elite":
            return f"{deck_words(spec)}, loops steered to balanced deals at tables of {tables}"
        return (f"{deck_words(spec)}, balanced deals hunted at tables of {tables}, walks from the {rules.pool} "
                "pool of loop families")

    # ------------------------------------------------------------ the job's process

    def stored_problem(self, spec):
        """Every hunt kept its [hunt] table (the first kind's walk options;
        every later one's whole, with its tables): a spec without one, or one
        without tables that holds a later option, is damaged."""
        table = spec.get("hunt")
        if not isinstance(table, dict):
            return "its spec has no [hunt] table, which every hunt keeps"
        later = sorted(set(table) - FIRST_KIND_OPTIONS)
        if "tables" not in table and later:
            return (f"its [hunt] table has no tables, and holds {later[0]!r}, which only a hunt that keeps its "
                    "tables has")
        return None

    def going_on(self, archive, job_id, spec, summary):
        """What the hunt knows (known_state). A hunt of the first kind cannot go on."""
        if first_kind(spec):
            raise JobError(f"job {job_id} is a hunt of the first kind (beggar 0.1.0), whose chunks walked from the "
                           "loops known when they were handed out: it cannot go on. Start a new hunt: it starts "
                           "from every loop this one kept")
        summary.payload = known_state(archive, job_id, spec)

    def units(self, archive, job, spec, summary):
        return HuntUnits(spec, archive.chunks_kept(job["id"]), summary.payload)

    def handed(self, spec, summary, unit):
        """A walk chunk's spec with its round's pool and the loops it is told of."""
        if unit.task is not None:
            return spec
        state = summary.payload
        round_ = state.round_of(unit.chunk)
        keys, others, every, crowded = state.pool(round_)
        # The part that explores (walks from every loop known): the first of every `explore` rounds'.
        explore = state.rules.explore
        explorer = round_ * state.parts_a_round if explore and round_ % explore == 0 else None
        handed = {**spec, "pool": keys, "known": others, "round": round_, "explorer": None, "crowded": crowded}
        if explorer is not None and unit.chunk <= explorer < unit.chunk + unit.parts:
            handed.update(explorer=explorer, every=every)
        return handed

    def progress(self, summary, best):
        """This run's new loops and families and their rate an hour, the job's seats and best balance at
        each table (docs/loops.md, The hunt); its walks' rate is the line's own."""
        state = summary.payload
        figures = {"new_loops": f"{state.found:,}{an_hour(state.found, summary.seconds)}",
                   "new_families": f"{state.new_families:,}{an_hour(state.new_families, summary.seconds)}",
                   "seats": f"{len(state.seats_done)}/{len(state.seats_done) + len(state.due)}",
                   "at_work": f"{plural(state.busy[0], 'walk')}, {plural(state.busy[1], 'seat')}"}
        for players in state.rules.tables:
            reached = state.best(players)
            figures[f"best{players}"] = "-" if reached is None else reached[0]
        return figures

    def reached(self, result):
        return result.payload.largest if isinstance(result.payload, Walked) else 0

    def keep(self, archive, job_id, spec, result, summary, between=None):
        if isinstance(result.payload, Walked):
            return self._keep_walk(archive, job_id, spec, result, summary)
        return self._keep_seat(archive, job_id, spec, result, summary)

    def _keep_walk(self, archive, job_id, spec, result, summary):
        """Keep a walk chunk in one transaction, its loops and its record; then
        what it taught the hunt: its new loops, and their seats queued."""
        state, walked = summary.payload, result.payload
        found = walked.found
        new_loops = []
        with kept(archive, job_id, result) as record:
            for known in found:
                loop_id, new = archive.add_loop(walked.loops[known.hash], job_id, self.name, result.chunk)
                state.ids[known.key] = loop_id
                if new:
                    new_loops.append((loop_id, walked.loops[known.hash]))
            record.hits, record.best_cards = len(found), walked.largest
            record.stats = {"hunt": {"round": walked.round, "tries": walked.tries, "largest": walked.largest,
                                     "loops": [[known.key, known.part, known.period, f"{known.hash:016x}",
                                                known.balance, known.family] for known in found],
                                     "walk_ms": round(1000 * walked.walk_seconds),
                                     "check_ms": round(1000 * walked.check_seconds), "workers": max(1, summary.workers)}}
        parts = -(-result.deals // spec["chunk"])
        state.kept_parts[walked.round] = state.kept_parts.get(walked.round, 0) + parts
        for known in found:
            state.found += state.learn(known)
        state.seat_cells()
        state.sort_due()
        state.new_loops.extend(new_loops)
        state.walk_seconds += walked.walk_seconds
        state.crowded += walked.crowded
        summary.deals += result.deals
        summary.loops += len(new_loops)
        return []

    def _keep_seat(self, archive, job_id, spec, result, summary):
        """Keep a seat in one transaction: the balanced deals its search found
        and what it reached (at two seats, the loop's basin search too); one
        basin_seconds stopped keeps nothing. Returns the first new deal."""
        state, seated = summary.payload, result.payload
        seat, table = seated.seat, seated.table
        if table.stopped_by == "time":
            state.gave_up.add(seat)
            state.notes.append(f"the search of loop {archive.loop_id(spec['deck'], seat.loop)} at a table of "
                               f"{seat.players} stopped at basin_seconds ({spec['basin_seconds']:g} s): nothing of it "
                               "is kept, and it is searched again when the job goes on (a larger basin_seconds, or "
                               "a smaller basin_states, lets it end)")
            return []
        games = result.games
        reached = table.deals[0][0] if table.deals else table.best
        smallest = None if reached is None else min(len(hand) for hand in reached.hands)
        best = None if reached is None else str(reached)
        news, disputed, counted = [], [], 0
        rules = Rules()
        loop_id = state.ids[seat.loop] = archive.loop_id(spec["deck"], seat.loop)
        with stored(archive, job_id, f"the seat of loop {loop_id} at a table of {seat.players}"):
            for loop in loops_of_games(archive, games):
                archive.add_loop(loop, job_id, self.name, None)
            added = archive.add_games((game.deal, rules, game.outcome, game.replay, job_id, game.driver,
                                       spec["seed"], None, None, None, game.loop) for game in games)
            for game, (game_id, new) in zip(games, added):
                if game.outcome != game.replay:
                    disputed.append(dispute(game_id, game.deal, game.outcome, game.replay))
                if new:
                    counted += 1
                    if not news:
                        news.append((game_id, game.deal, game.outcome, game.driver))
            if seat.players == 2 and loop_id is not None:
                row = archive.loop(loop_id)
                if row["basin_states"] is None or (row["basin_stopped_by"] and table.stopped_by is None):
                    archive.set_basin(loop_id, table.states, len(table.deals), table.stopped_by)
            archive.put_row(job_id, "seat", seat_key(seat.loop, seat.players), {
                "loop": seat.loop, "players": seat.players, "states": table.states, "deals": len(table.deals),
                "stopped_by": table.stopped_by, "smallest": smallest, "best": best, "seconds": result.seconds})
        state.seats_done[seat] = (smallest, best, len(table.deals))
        if seat in state.due:
            state.due.remove(seat)
        if table.stopped_by is not None:
            state.bounded[seat.players] = state.bounded.get(seat.players, 0) + 1
        state.deals[seat.players] += counted
        summary.kept += counted
        stop_if_disputed(disputed, "it")
        return news

    def summary(self, summary, archive_path, cluster=None, whole=None):
        state = summary.payload
        run = " in this run" if whole is not None else ""
        rate = summary.deals / summary.seconds if summary.seconds else 0
        walks = summary.deals / state.walk_seconds if state.walk_seconds else 0
        lines = [f"job      {summary.job}: {summary.state} ({summary.reason})",
                 f"walks    {summary.deals:,} perturbations{run} in {summary.seconds:.1f} s: {rate:,.0f} "
                 f"perturbations/s on {plural(summary.workers, 'worker')}"
                 + (f" of the cluster {cluster}" if cluster else "")
                 + f" (the walks alone: {walks:,.0f} perturbations/s a worker)",
                 f"loops    {plural(state.found, 'loop')} new to the hunt{run}{an_hour(state.found, summary.seconds)}, "
                 f"{len(state.new_loops):,} new to the archive; it knows {len(state.known):,} "
                 f"({state.given:,} to start with)"
                 + (f"; {plural(state.crowded, 'report')} of loops of crowded families left out (crowd = "
                    f"{state.rules.crowd})" if state.crowded else ""),
                 f"families {families(state.new_families)} new to the hunt{run}"
                 f"{an_hour(state.new_families, summary.seconds)}; it knows {len(state.families):,} "
                 f"({state.given_families:,} to start with), in {len(aim.cells(state.known.values())):,} cells of "
                 "family and balance"]
        if whole is not None:
            lines.append(whole_line(whole, self.budget.unit, lengths=False))
        lines.extend(new_loop_lines(state.new_loops, summary.job, archive_path))
        done, due = len(state.seats_done), len(state.due)
        lines.append(f"seats    {done:,} searched, {due:,} to search; balanced deals that never end{run}, each "
                     f"replayed by the reference engine and kept: "
                     + ", ".join(f"{state.deals[players]:,} of {players} players" for players in state.rules.tables))
        for players in state.rules.tables:
            reached = state.best(players)
            lines.append(f"best{players}    " + ("none yet: no seat searched at that table" if reached is None else
                                               f"{reached[0]} ({sizes(reached[1])}: {reached[1]}), the largest "
                                               f"smallest hand at a table of {players}, from loop "
                                               f"{state.ids.get(reached[2], reached[2])}"))
        lines.extend(f"bound    {plural(count, 'search')} at a table of {players}{run} stopped at its bound of "
                     f"{state.bound:,} states (basin_states): they may hold more balanced deals"
                     for players, count in sorted(state.bounded.items()))
        lines.extend(f"bound    {note}" for note in state.notes)
        lines.extend(announce.summary_lines(summary, archive_path))
        return lines

    def job_figures(self, archive, job_id, spec):
        """The whole job's figures, from its records."""
        if first_kind(spec):
            return None
        state = known_state(archive, job_id, spec)
        walk_ms = sum(stats["hunt"]["walk_ms"] for stats in archive.chunk_stats(job_id))
        tries = archive.job(job_id)["deals"]
        best = {}
        for players in state.rules.tables:
            reached = state.best(players)
            best[str(players)] = None if reached is None else {
                "smallest": reached[0], "deal": reached[1], "sizes": sizes(reached[1]),
                "loop": reached[2], "loop_id": archive.loop_id(spec["deck"], reached[2])}
        return {"hunt": {"perturbations": tries, "perturbations_per_second": round(tries / walk_ms * 1000)
                         if walk_ms else 0, "loops_known": len(state.known), "loops_new": len(state.known) - state.given,
                         "families_known": len(state.families),
                         "families_new": len(state.families) - state.given_families,
                         "seats_done": len(state.seats_done), "seats_due": len(state.due),
                         "deals": sum(deals for _, _, deals in state.seats_done.values()), "best": best}}

    def job_lines(self, figures):
        """Its walks' rate, its loops and seats, and its best balance at each table."""
        hunt = figures.get("hunt")
        if hunt is None:
            return []
        best = "; ".join(f"best at {players}: " + ("none yet" if reached is None else
                                                  f"{reached['smallest']} ({reached['sizes']}) from loop "
                                                  f"{reached['loop_id']}")
                         for players, reached in hunt["best"].items())
        return [f"{hunt['perturbations_per_second']:,} perturbations/s a worker; {hunt['loops_known']:,} loops known, "
                f"{hunt['loops_new']:,} found; {families(hunt['families_known'])} known, {hunt['families_new']:,} found; "
                f"{hunt['seats_done']:,} seats searched, {hunt['seats_due']:,} to "
                f"search; {hunt['deals']:,} balanced deals", best]

    # ------------------------------------------------------------ a worker

    def play(self, spec, chunk, parts=1):
        """Walk parts `chunk` on (`parts` of them, one round's) from the round's
        pool: a ChunkResult whose payload is Walked."""
        from ... import _loops
        began = time.perf_counter()
        rules = rules_of(spec)
        reported, tries, largest = [], 0, 0
        # Each key read once a chunk: a pool may hold every loop known, and a part is 1/20 s.
        hands = {key: key_hands(key) for key in (spec["every"] if spec["explorer"] is not None else spec["pool"])}
        # A growth walk knows no loop: what it finds of the pool's, or of the others known, is no news.
        told = None
        for part in range(chunk, chunk + parts):
            # The explorer walks from every loop known (each known to it), the others from the pool.
            pool, known = (spec["every"], ()) if part == spec["explorer"] else (spec["pool"], spec["known"])
            if rules.regrow and part % rules.regrow == rules.regrow - 1 and part != spec["explorer"]:
                starts = regrow.starts([hands[key] for key in pool], spec["seed"], part, STARTS, rules.trim)
                if told is None:
                    told = set(spec["known"]) | set(cycle_hashes([(hands[key], 0) for key in pool], spec["deck"]))
                # On the compiled engine whatever the job's (ON_GPU).
                walk = _loops.grow(spec["deck"], spec["seed"], part, chunk_deals(spec, part), starts=starts) \
                    if starts else None
            else:
                walk = perturbation(spec, [(hands[key], 0) for key in aim.walk_order(pool, spec["seed"], part)], part,
                                    chunk_deals(spec, part), rules.walk(), known)
            if walk is None:
                # No loop of the pool could be cut: the part is spent, and walked nowhere.
                tries += chunk_deals(spec, part)
                continue
            tries += walk.tries
            largest = max(largest, walk.largest)
            # Each part's loops whole (a loop two parts found, twice): what a part keeps is its own
            # (games(): the crowds), whichever chunk it is played in.
            states = [(tuple(tuple(hand) for hand in hands), leader) for hands, leader in walk.loops]
            hashes = set()
            for state, cycle in zip(states, cycle_hashes(states, spec["deck"]) if states else []):
                if cycle not in hashes and (told is None or cycle not in told):
                    hashes.add(cycle)
                    reported.append((state, part, cycle))
        walked = Walked(spec["round"], tries, largest, reported, time.perf_counter() - began)
        return ChunkResult(chunk, tries, [], None, walked)

    def play_task(self, spec, seat):
        """Search back from a loop at a table (a Seat): its payload Seated."""
        table = search_back(spec, seat.loop, seat.players, rules_of(spec).guide, spec["basin_states"])
        return ChunkResult(None, 0, [], None, Seated(seat, table))

    def games(self, spec, result):
        """A walk's loops looked at again by both engines; a seat's deals as
        checked games."""
        began = time.perf_counter()
        if isinstance(result.payload, Walked):
            walked = result.payload
            walked.found, walked.loops = [], {}
            crowd = rules_of(spec).crowd
            crowded = set(spec.get("crowded", ()))
            need = aim.need(Deck.parse(spec["deck"]).total)
            named, in_part = {}, Counter()
            for (hands, leader), part, cycle in walked.reported:
                if crowd:
                    # Left out, unchecked: a loop no two seats are given, of a family crowded when the
                    # round's pool was fixed, or past the PART_CROWD-th of its family in its part (one
                    # that is no loop is reported() below, which says so).
                    if cycle not in named:
                        try:
                            looked = loops.of_state(hands, leader)
                            named[cycle] = (family.of_loop(looked).name,
                                            need - aim.balance(looked.states) <= aim.GAIN)
                        except loops.LoopError:
                            named[cycle] = (None, True)
                    name, seated = named[cycle]
                    in_part[(part, name)] += 1
                    if not seated and (name in crowded or in_part[(part, name)] > PART_CROWD):
                        walked.crowded += 1
                        continue
                if cycle in walked.loops:
                    continue        # kept from an earlier part
                loop = walked.loops[cycle] = reported(spec, hands, leader).loop
                walked.found.append(aim.Known(loop.hex, walked.round, part, loop.period[0], cycle,
                                              aim.balance(loop.states), family.of_loop(loop).name))
            walked.check_seconds = time.perf_counter() - began
            return []
        seated = result.payload
        checker = Checker()
        games = []
        for deal, compiled, reference in seated.table.deals:
            checker.replays[str(deal)] = reference
            games.append(checker.game(deal, compiled, FOUND_BY[seated.seat.players]))
        return games


def two_player_key(key):
    """The canonical state (hex) of the loop of a loop key's players: the key
    itself, but for one a job was given before archive format 6."""
    return key if all(key_hands(key)) else loops.of_deal(key_deal(key)).hex


def known_state(archive, job_id, spec):
    """A HuntState from the job's start, its chunks' records and its seats:
    ArchiveFault, naming what, where they do not hold together."""
    where = f"{archive.path}: damaged: job {job_id}"
    # The start, each loop looked at once (its cycle).
    found = [loops.of_deal(key_deal(key)) for key in spec["start"]]
    hashes = cycle_hashes([loop.state for loop in found], spec["deck"])
    state = HuntState(spec, [aim.Known(loop.hex, -1, -1, loop.period[0], cycle, aim.balance(loop.states),
                                       family.of_loop(loop).name) for loop, cycle in zip(found, hashes)])
    kept = dict(archive.chunks_kept(job_id))
    # What a record says of each loop is what its cycle says (its period, hash, balance and family steer
    # the walks: a balance edited would make a resume walk from another pool and keep other loops).
    said = {}
    records = read_records(archive, job_id, Deck.parse(spec["deck"]))
    for chunk, stats in records:
        for key, _, period, cycle, balance, *named in stats["hunt"]["loops"]:
            said.setdefault(key, (chunk, period, int(cycle, 16), balance, *named))
    families = {}
    found = [loops.of_deal(key_deal(key)) for key in said]
    for loop, cycle, (key, (chunk, period, hashed, balance, *named)) in zip(
            found, cycle_hashes([loop.state for loop in found], spec["deck"]), said.items()):
        families[key] = family.of_loop(loop).name
        truth = (loop.period[0], cycle, aim.balance(loop.states), *([families[key]] if named else []))
        if (period, hashed, balance, *named) != truth:
            raise ArchiveFault(f"{where}: chunk {chunk}'s record says loop {key[:16]}... has period {period}, "
                               f"cycle hash {hashed:016x}, balance {balance}"
                               + (f" and family {named[0]}" if named else "")
                               + f", where its cycle has {truth[0]}, {truth[1]:016x}, {truth[2]}"
                               + (f" and {truth[3]}" if named else ""))
    listed = {}
    for chunk, stats in records:
        record = stats["hunt"]
        round_ = state.round_of(chunk)
        parts = -(-kept[chunk] // spec["chunk"])
        if record["round"] != round_ or record["tries"] != kept[chunk] or state.round_of(chunk + parts - 1) != round_:
            raise ArchiveFault(f"{where}: chunk {chunk}'s record says round {record['round']} and {record['tries']:,} "
                               f"tries, where its parts are of round {round_} and it kept {kept[chunk]:,} tries")
        state.kept_parts[round_] = state.kept_parts.get(round_, 0) + parts
        for key, part, period, cycle, balance, *_ in record["loops"]:
            if not chunk <= part < chunk + parts:
                raise ArchiveFault(f"{where}: chunk {chunk}'s record lists loop {key[:16]}... as found by part "
                                   f"{part}, which is not one of its")
            listed.setdefault(key, set()).add(chunk)
            # A record kept before families names none: its loop's is worked out from its cycle.
            state.learn(aim.Known(key, round_, part, period, int(cycle, 16), balance, families[key]))
    for row in archive.loops(job=job_id):
        if row["driver"] == "hunt" and row["chunk"] is not None and row["chunk"] not in listed.get(row["key"], ()):
            raise ArchiveFault(f"{where}: loop {row['id']} says chunk {row['chunk']} found it, and that chunk's "
                               "record does not list it")
    # Each loop a record lists was kept with it, in its transaction, and no loop row is ever removed.
    held = archive.known_loops(spec["deck"], listed)
    for key in sorted(set(listed) - held):
        raise ArchiveFault(f"{where}: chunk {min(listed[key])}'s record lists loop {key[:16]}..., which the "
                           "archive does not hold")
    state.seat_cells()
    queued = set(state.due)
    for row in seats(archive, spec["deck"], job_id):
        seat = Seat(row["loop"], row["players"])
        if row["loop"] not in state.known or row["players"] not in state.rules.tables:
            raise ArchiveFault(f"{where}: a seat of loop {row['loop'][:16]}... at {row['players']}, a loop or "
                               "table the hunt does not know")
        if seat not in queued:
            raise ArchiveFault(f"{where}: a seat of loop {row['loop'][:16]}... at {row['players']}, which the hunt "
                               "never queued (it seats the new loops its walks found, as its [hunt] seat says)")
        state.seats_done[seat] = (row["smallest"], row["best"], row["deals"])
        state.ids[row["loop"]] = archive.loop_id(spec["deck"], row["loop"])
    # A seat keeps its deals in the transaction that keeps its row: every deal the hunt kept is of a
    # seat it holds, and a seat found no fewer deals than the hunt kept of it, nor more than the archive holds.
    counted = archive.loop_games_by_table(spec["deck"], job_id)
    for (key, players), (mine, _) in counted.items():       # as the archive orders them: a damaged row's
        if mine and Seat(key, players) not in state.seats_done:    # values may be of any type
            shown = f"{key[:16]}..." if isinstance(key, str) else cut(key)
            raise ArchiveFault(f"{where}: it kept {plural(mine, 'deal')} of {cut(players)} players that fall into "
                               f"loop {shown}, and holds no seat of that loop at that table")
    for seat, (_, _, deals) in state.seats_done.items():
        mine, every = counted.get((seat.loop, seat.players), (0, 0))
        if not mine <= deals <= every:
            raise ArchiveFault(f"{where}: its seat of loop {seat.loop[:16]}... at {seat.players} says it found "
                               f"{plural(deals, 'balanced deal')}, where the hunt kept {mine:,} of them and the "
                               f"archive holds {every:,}")
    # The seats searched leave the queue at once (not one by one: a long hunt has thousands).
    state.due = [seat for seat in state.due if seat not in state.seats_done]
    state.sort_due()
    return state


def families(count):
    return f"{count:,} famil{'y' if count == 1 else 'ies'}"


def sizes(deal):
    """'14/15/23': the hand sizes of a deal in record notation, the leader first."""
    return "/".join(str(len(hand)) for hand in deal.split("/"))

