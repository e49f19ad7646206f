"""The checks of what is read back from an archive, as a user's input is
checked (docs/archive.md): one reader per table, which every read of the store
goes through, and which checks the columns it is given, whichever they are (a
listing that reads a few has those checked). A driver checks its own rows with
the same checks, by its records' shapes."""

import json
from datetime import datetime

from .. import records
from ..cards import CODES, SYMBOLS
from ..checks import MAX_COUNT, MAX_ID, MAX_SEED, cut, shown
from ..deal import MAX_CARDS, Deal, DealError
from ..decks import MAX_PLAYERS, MIN_PLAYERS, Deck, DeckError
from ..outcome import STATUSES
from ..rules import Rules
from .faults import ArchiveFault

#: The most workers a chunk's record may say it ran on (search.spec.MAX_WORKERS).
MOST_WORKERS = 1024

#: A job's states (search.runner): running, and how a run ended.
JOB_STATES = ("running", "done", "stopped", "failed")

#: What stopped a loop's basin search (NULL: it was complete).
BASIN_BOUNDS = ("states", "time")

#: The most characters of a name the archive holds (a job's id, a driver's name).
MOST_NAME = 1000


class Damaged(ArchiveFault):
    """A column's value that makes no sense: what it should be, in words (the
    reader names the file, the row and the column around it)."""


def damaged(path, what, column, problem):
    return ArchiveFault(f"{path}: damaged: {what}: its {column} {problem}")


def holds(value, expected):
    return Damaged(f"holds {cut(value)}, not {expected}")


def count(value, low=0, high=MAX_COUNT):
    """`value` when it is a whole number from `low` to `high` (bool is not), else Damaged."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise holds(value, f"a count from {low} to {shown(high)}")
    return value


def seconds(value):
    """`value` when it is a time in seconds from 0 to under 10^12, else Damaged."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e12:
        raise holds(value, "a time from 0 to 10^12 s")
    return value


def optional(check):
    def checked(value, *args):
        return None if value is None else check(value, *args)
    return checked


def columns(path, record, what, checks):
    """Set each column of `checks` ((column, check) pairs) that `record` holds
    to what its check returns: ArchiveFault naming the file, `what` and the column."""
    for column, check in checks:
        if column in record:
            try:
                record[column] = check(record[column])
            except Damaged as problem:
                raise damaged(path, what, column, problem) from None


def _name(value):
    if not isinstance(value, str) or not 0 < len(value) <= MOST_NAME:
        raise holds(value, "a name")
    return value


def _stamp(value):
    """A UTC time stamp as the archive writes them (sql.now)."""
    try:
        if isinstance(value, str) and len(value) <= 40:
            datetime.fromisoformat(value)
            return value
    except ValueError:
        pass
    raise holds(value, "a time stamp")


def one_of(value, choices):
    if value not in choices or not isinstance(value, str):
        raise holds(value, f"one of {', '.join(choices)}")
    return value


def _flag(value):
    if value not in (0, 1) or isinstance(value, float):
        raise holds(value, "0 or 1")
    return bool(value)


def _deck(value):
    try:
        if isinstance(value, str):
            return Deck.parse(value)
    except DeckError:
        pass
    raise holds(value, "a deck")


def _arrangement(value):
    """A census rank: an arrangement number in decimal."""
    if not (isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 200):
        raise holds(value, "an arrangement number in decimal")


def _players(value):
    return count(value, MIN_PLAYERS, MAX_PLAYERS)


#: The last archive format whose loop keys wrote the players who are out as
#: empty hands (cycle.py: a key since holds the hands of the players still in).
EMPTY_HANDS_UNTIL = 5


def key_problem(key, deck=None, hands=None, seats=None, empty_hands=False):
    """What makes a loop's canonical state as read back (cycle.state_key in
    hex) no state of `deck` of `hands` players, of a game at a table of
    `seats`, or None (`empty_hands`: a key of format EMPTY_HANDS_UNTIL or
    older, whose hands of players out are empty). Checked here, before any
    key goes on to a parser or an engine."""
    if not isinstance(key, str) or not key:
        return f"is {cut(key)}, not a state written in hex"
    if len(key) > 4 * 2 * (1 + 255) or not key.isascii() or len(key) % 2 or any(
            ch not in "0123456789abcdefABCDEF" for ch in key):
        return f"is {cut(key)}, not a state written in hex (an even number of the digits 0-9, a-f)"
    data = bytes.fromhex(key)
    held, i = [], 0
    while i < len(data):
        size = data[i]
        hand = data[i + 1:i + 1 + size]
        if len(hand) < size:
            return f"{cut(key)} is cut short: its hand {len(held) + 1} should hold {size} cards, and {len(hand)} follow"
        if any(code > 4 for code in hand):
            return f"{cut(key)}: hand {len(held) + 1} holds a card code over 4"
        held.append(hand)
        i += 1 + size
    if not MIN_PLAYERS <= len(held) <= MAX_PLAYERS:
        return f"{cut(key)} holds {len(held)} hand{'s' if len(held) != 1 else ''}, not {MIN_PLAYERS} to {MAX_PLAYERS}"
    if hands is not None and len(held) != hands:
        return f"{cut(key)} holds {len(held)} hands, for a loop of {hands} players"
    if seats is not None and len(held) > seats:
        return f"{cut(key)} holds {len(held)} hands, at a table of {seats}"
    if not held[0] or sum(1 for hand in held if hand) < 2:
        return f"{cut(key)} is no state of a game going on (the leader's hand and another must hold cards)"
    if not empty_hands and not all(held):
        return (f"{cut(key)}: its hand {held.index(b'') + 1} is empty, where a key holds the hands of the "
                "players still in")
    if deck is not None:
        counts = tuple(sum(hand.count(code) for hand in held) for code in range(CODES))
        if counts != deck.counts:
            return f"{cut(key)} holds other cards than the {deck} deck"
    return None


def loop_key(value, deck, hands=None, seats=None, empty_hands=False):
    problem = key_problem(value, deck, hands, seats, empty_hands)
    if problem is not None:
        raise Damaged(problem)
    return value


def stored_json(path, text, what, kind=dict):
    """The JSON value `text` of `kind`, which `what` names: else ArchiveFault."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError) as error:
        raise ArchiveFault(f"{path}: damaged: {what} is not JSON ({cut(str(error))})") from None
    if not isinstance(value, kind):
        raise ArchiveFault(f"{path}: damaged: {what} is not a JSON {'object' if kind is dict else 'list'}")
    return value


#: The archive's own form of a deal (str(Deal)): '-JQKA' and '/', read at
#: once; anything else goes through the full parser.
_CODES = bytes.maketrans(SYMBOLS.encode(), bytes(range(CODES)))


def written_by_beggar(text):
    """The Deal of `text` in the form the archive writes, else None. A listing
    reads every row: this is some fifty times quicker than Deal.parse."""
    if not isinstance(text, str) or not 0 < len(text) <= MAX_CARDS + MAX_PLAYERS or not text.isascii() \
            or text.strip("-JQKA/"):
        return None
    hands = text.split("/")
    if not MIN_PLAYERS <= len(hands) <= MAX_PLAYERS or not all(hands):
        return None
    return Deal.from_codes([hand.encode().translate(_CODES) for hand in hands])


def stored_deal(path, game_id, text):
    """The Deal of game `game_id`; ArchiveFault, naming the file and the game, when it is none."""
    deal = written_by_beggar(text)
    if deal is not None:
        return deal
    try:
        return Deal.parse(text)
    except (DealError, DeckError, TypeError, ValueError) as error:
        raise ArchiveFault(f"{path}: damaged: game {game_id} holds no deal ({error})") from None


def _outcome(outcome, players):
    """Damaged unless an outcome as kept (Outcome.as_dict) is one of a game of `players`."""
    known = {"status", "winner", "cards", "tricks", "counts", "loop_entry", "loop_period", "engine"}
    missing = sorted(known - {"engine"} - set(outcome))
    if missing:
        raise Damaged(f"has no '{missing[0]}'")
    unknown = sorted(set(outcome) - known)
    if unknown:
        raise Damaged(f"has an unknown field {cut(unknown[0])}")
    status = one_of(outcome["status"], STATUSES)
    optional(count)(outcome["winner"], 0, players - 1)
    count(outcome["cards"])
    count(outcome["tricks"])
    counts = outcome["counts"]
    if not isinstance(counts, list) or len(counts) != players:
        raise holds(counts, f"a list of {players} counts")
    for held in counts:
        count(held)
    for field in ("loop_entry", "loop_period"):
        pair = outcome[field]
        if (pair is None) != (status != "loop"):
            raise Damaged(f"'{field}' is {cut(pair)} for a game of status {status}")
        if pair is not None:
            if not isinstance(pair, dict) or set(pair) != {"tricks", "cards"}:
                raise Damaged(f"'{field}' holds {cut(pair)}, not its tricks and cards")
            count(pair["tricks"], 1 if field == "loop_period" else 0)
            count(pair["cards"], 1 if field == "loop_period" else 0)
    if outcome["engine"] is not None:
        _name(outcome["engine"])


def _rules(value, players):
    if set(value) - set(Rules.__dataclass_fields__):
        raise holds(value, "the rules of a game")
    try:
        Rules(**value)
    except (TypeError, ValueError) as error:
        raise Damaged(f"hold {cut(value)}: {error}") from None


def read_game(path, row, empty_hands=False):
    """A row of table games (a dict of the columns read, as this format names
    them), checked, with its JSON read and `disputed` a bool. `empty_hands`:
    its archive is of format EMPTY_HANDS_UNTIL or older (key_problem)."""
    game = dict(row)
    what = f"game {cut(game.get('id'))}"
    columns(path, game, what, (
        ("id", lambda v: count(v, 1, MAX_ID)), ("status", lambda v: one_of(v, STATUSES)), ("cards", count),
        ("tricks", count), ("job", optional(_name)), ("driver", optional(_name)),
        ("seed", optional(lambda v: count(v, 0, MAX_SEED))), ("chunk", optional(count)),
        ("parent", optional(lambda v: count(v, 1, MAX_ID))), ("found_at", _stamp), ("disputed", _flag),
        ("players", _players), ("split", lambda v: count(v, 1))))
    deal = stored_deal(path, game.get("id"), game["deal"]) if "deal" in game else None
    column = "parent"
    try:
        # A family's first game is kept before its members (in the same transaction, or long before):
        # a parent of a later id, the game itself among them, is no parent the archive wrote.
        if game.get("parent") is not None and game.get("id") is not None and game["parent"] >= game["id"]:
            raise Damaged("names the game itself" if game["parent"] == game["id"] else
                           f"names game {game['parent']}, not one kept before it (a family's first game is kept "
                           "before its members)")
        column = "deck"
        deck = _deck(game["deck"]) if "deck" in game else None
        if deal is not None:
            for column, value in (("deck", deal.deck_written()), ("players", deal.players),
                                  ("split", len(deal.hands[0]))):
                if column in game and game[column] != value and (column != "deck" or deck.counts != deal.counts()):
                    raise Damaged(f"holds {cut(game[column])}, where its deal has {cut(value)}")
        players = game.get("players", deal.players if deal is not None else MAX_PLAYERS)
        status = game.get("status")
        column = "winner"
        if "winner" in game:
            optional(count)(game["winner"], 0, players - 1)
            if status == "loop" and game["winner"] is not None:
                raise holds(game["winner"], "NULL for a loop")
            if status == "finished" and game["winner"] is None:
                raise holds(game["winner"], "the winner of a finished game")
        for column in ("entry_tricks", "entry_cards", "period_tricks", "period_cards"):
            if column in game:
                value = game[column]
                if status is not None and (value is None) != (status != "loop"):
                    raise holds(value, "a count for a loop" if status == "loop" else f"NULL for a {status} game")
                optional(count)(value, 1 if column.startswith("period") else 0)
        column = "rank"
        optional(_arrangement)(game.get("rank"))
        column = "loop"
        if game.get("loop") is not None:
            # Its loop is that of the players still in when it was entered: as many as its table, or fewer.
            loop_key(game["loop"], deck or (deal.deck() if deal is not None else None), None,
                 game.get("players", deal.players if deal is not None else None), empty_hands)
        for column, name, check in (("rules", "the rules", _rules),
                                    ("compiled", "the compiled outcome", _outcome),
                                    ("reference", "the reference outcome", _outcome)):
            if column in game:
                game[column] = stored_json(path, game[column], f"{name} of {what}")
                check(game[column], players)
        column = "compiled"
        compiled = game.get("compiled")
        if isinstance(compiled, dict):
            # The row's figures are the compiled engine's, copied when it was kept.
            entry, period = compiled["loop_entry"] or {}, compiled["loop_period"] or {}
            for field, value in (("status", compiled["status"]), ("winner", compiled["winner"]),
                                 ("cards", compiled["cards"]), ("tricks", compiled["tricks"]),
                                 ("entry_tricks", entry.get("tricks")), ("entry_cards", entry.get("cards")),
                                 ("period_tricks", period.get("tricks")), ("period_cards", period.get("cards"))):
                if field in game and value != game[field]:
                    raise Damaged(f"says {field} {cut(value)}, where the game's row says {cut(game[field])}")
    except Damaged as problem:
        raise damaged(path, what, column, problem) from None
    return game


def read_loop(path, row, empty_hands=False):
    """A row of table loops (a dict of the columns read; `games` the count a
    listing adds), checked: a key that is no state of its deck and its players
    above all. `empty_hands`: its archive is of format EMPTY_HANDS_UNTIL or
    older, whose loops of games that put players out held their empty hands,
    `players` their tables'."""
    loop = dict(row)
    what = f"loop {cut(loop.get('id'))}"
    columns(path, loop, what, (
        ("id", lambda v: count(v, 1, MAX_ID)), ("players", _players), ("period_tricks", lambda v: count(v, 1)),
        ("period_cards", lambda v: count(v, 1)), ("states", lambda v: count(v, 1)), ("balanced", _flag),
        ("job", optional(_name)), ("driver", optional(_name)), ("chunk", optional(count)), ("found_at", _stamp),
        ("basin_states", optional(count)), ("basin_deals", optional(count)),
        ("basin_stopped_by", optional(lambda v: one_of(v, BASIN_BOUNDS))), ("games", count)))
    column = "deck"
    try:
        deck = _deck(loop["deck"]) if "deck" in loop else None
        column = "key"
        if "key" in loop:
            loop_key(loop["key"], deck, loop.get("players"), None, empty_hands)
        tricks = loop.get("period_tricks")
        column = "period_cards"
        if tricks is not None and loop.get("period_cards") is not None and loop["period_cards"] < tricks:
            raise Damaged(f"holds {loop['period_cards']}, fewer cards than its {tricks} tricks")
        column = "states"
        # One state at each trick's end: a cycle holds as many as its period has tricks.
        if tricks is not None and loop.get("states") is not None and loop["states"] != tricks:
            raise Damaged(f"holds {loop['states']}, where its period has {tricks} tricks")
    except Damaged as problem:
        raise damaged(path, what, column, problem) from None
    return loop


def read_driver_row(path, row):
    """A row of table driver_rows, checked, its value read as a JSON object:
    what it holds is its driver's to check, by its own record's shape."""
    kept = dict(row)
    what = f"the {cut(kept.get('kind'))} {cut(kept.get('key'))} of job {cut(kept.get('job'))}"
    columns(path, kept, what, (("job", _name), ("kind", _name), ("key", _name), ("done_at", _stamp)))
    kept["value"] = stored_json(path, kept["value"], f"the value of {what}")
    return kept


def read_job(path, row):
    """A row of table jobs, checked, with its spec read as a JSON object (what
    the spec says is the search's to check: search.job.stored)."""
    job = dict(row)
    columns(path, job, f"job {cut(job.get('id'))}", (
        ("id", _name), ("state", lambda v: one_of(v, JOB_STATES)), ("created", _stamp), ("updated", _stamp)))
    if "spec" in job:
        job["spec"] = stored_json(path, job["spec"], f"the spec of job {job.get('id')}")
    return job


def stats_problem(stats, deck=None, driver=None, empty_hands=False):
    """What makes no sense in a chunk's statistics as read back, or None: the
    fields of a chunk record of its job's `driver` (records.SHAPES: any
    driver's where `driver` is None), each of its kind (_KINDS), loop keys
    states of `deck` (`empty_hands`: as key_problem)."""
    if not isinstance(stats, dict) or not stats:
        return "hold no field"
    shapes = records.SHAPES.get(driver) or [shape for shapes in records.SHAPES.values() for shape in shapes]
    fitting = [shape for shape in shapes if set(shape.always) <= set(stats) <= set(shape.fields)]
    if not fitting:
        shape = min(shapes, key=lambda shape: len(set(stats) ^ set(shape.always)))
        unknown = sorted(set(stats) - set(shape.fields))
        if unknown:
            return f"an unknown field {cut(unknown[0])}" + (f" for a {driver} job's chunk" if driver else "")
        missing = sorted(set(shape.always) - set(stats))
        return f"hold no '{missing[0]}'" + (f", which a {driver} job's chunk records hold" if driver else "")
    kinds = fitting[0].fields
    for field, value in stats.items():
        kind, words, check = _KINDS[kinds[field]]
        try:
            if not isinstance(value, kind):
                raise holds(value, words)
            if check is not None:
                check(value, deck, empty_hands)
        except Damaged as problem:
            return f"'{field}' {problem}"
    return None


def _statuses(value, deck, empty_hands):
    if not isinstance(value, dict) or set(value) - set(STATUSES):
        raise holds(value, "the games of each status")
    for games in value.values():
        count(games)


def _bins(value, deck, empty_hands):
    # Some 2,400 bins a chunk, and a long job's report reads thousands of
    # chunks: one pass, and count() to name a bad bin only where there is one.
    if not all(type(games) is int and 0 <= games <= MAX_COUNT for games in value):
        for games in value:
            count(games)


def _histogram(value, deck, empty_hands):
    for length, games in value.items():
        if not (length.isascii() and length.isdigit() and len(length) <= 19):
            raise Damaged(f"counts a length {cut(length)}")
        count(games)


def _loop_keys(keys, deck, empty_hands):
    for key in keys:
        problem = key_problem(key, deck, empty_hands=empty_hands)
        if problem is not None:
            raise Damaged(f"the key {problem}")


def _census_loops(value, deck, empty_hands):
    _loop_keys(value, deck, empty_hands)
    for entry in value.values():
        if not isinstance(entry, list) or len(entry) != 3:
            raise holds(entry, "[deals, period tricks, period cards]")
        count(entry[0])
        count(entry[1], 1)
        count(entry[2], 1)


def _longest(value, deck, empty_hands):
    if value is None:
        return
    if not isinstance(value, list) or len(value) != 4:
        raise holds(value, "[cards, tricks, deal, rank]")
    count(value[0])
    count(value[1])
    try:
        Deal.parse(value[2])
    except (DealError, DeckError, TypeError, ValueError):
        raise holds(value[2], "a deal") from None
    _arrangement(value[3])


def _counts(value, deck=None, empty_hands=False):
    """Every number within `value` (nested lists and objects) a count, else Damaged."""
    if isinstance(value, (dict, list)):
        for item in value.values() if isinstance(value, dict) else value:
            _counts(item)
    elif isinstance(value, (int, float)):      # bool is an int: count refuses it too
        count(value)


def fields(value, known, what):
    """`value` when it is a JSON object of exactly the fields `known`, else Damaged."""
    if not isinstance(value, dict) or set(value) != known:
        raise holds(value, what)
    return value


#: Each kind of field of a record (records.py): the JSON value it holds (any,
#: where its check says), that value in words, and the check of what is in it.
_KINDS = {records.STATUSES: (object, None, _statuses), records.BINS: (list, "a list of counts", _bins),
          records.HISTOGRAM: (dict, "the games of each length", _histogram),
          records.WORKERS: (object, None, lambda value, deck, empty_hands: count(value, 1, MOST_WORKERS)),
          records.CENSUS_LOOPS: (dict, "the loops of a census block", _census_loops),
          records.WALK_LOOPS: (list, "the loops of a walk", _loop_keys),
          records.LONGEST: (object, None, _longest), records.COUNTS: (dict, "what a search reached", _counts),
          records.OWN: (dict, "a JSON object", None)}


def read_chunk(path, row, deck=None, driver=None, empty_hands=False):
    """A row of table chunks, checked, with its statistics read (a JSON
    object, or None) and checked against its job's `deck` and `driver`
    (`empty_hands`: as key_problem)."""
    chunk = dict(row)
    what = f"chunk {cut(chunk.get('chunk'))} of job {chunk.get('job')}"
    columns(path, chunk, what, (("chunk", count), ("deals", count), ("hits", count),
                                    ("best_cards", count), ("done_at", _stamp), ("seconds", seconds)))
    if chunk.get("stats") is not None:
        where = f"the statistics of {what}"
        chunk["stats"] = stats = stored_json(path, chunk["stats"], where)
        problem = stats_problem(stats, deck, driver, empty_hands) or counts_problem(stats, chunk.get("deals"))
        if problem is not None:
            raise ArchiveFault(f"{path}: damaged: {where}: {problem}")
    return chunk


def counts_problem(stats, deals):
    """What makes a chunk's statistics disagree with the deals its record
    says it played, or None: each count of its games counts every deal once."""
    if deals is None:
        return None
    for field in ("statuses", "lengths", "cards"):
        played = stats.get(field)
        if played is None:
            continue
        games = sum(played.values()) if isinstance(played, dict) else sum(played)
        if games != deals:
            return f"'{field}' counts {games:,} games, where the chunk played {deals:,} deals"
    return None


def check_chunk_numbers(db, path, job_id):
    """ArchiveFault unless every number the chunks of job `job_id` record is
    a count (seconds: under 10^12): a negative count or time would make a
    wrong mean or an infinite rate, silently. In SQL, over every chunk at
    once: a job may have tens of thousands."""
    bad = db.execute(
        "SELECT chunk FROM chunks WHERE job = ? AND NOT (typeof(chunk) = 'integer' AND chunk >= 0 "
        "AND typeof(deals) = 'integer' AND deals BETWEEN 0 AND ? "
        "AND typeof(hits) = 'integer' AND hits BETWEEN 0 AND ? AND typeof(best_cards) = 'integer' "
        "AND best_cards BETWEEN 0 AND ? AND typeof(seconds) IN ('integer', 'real') AND seconds BETWEEN 0 "
        "AND 1e12) LIMIT 1", (job_id, MAX_COUNT, MAX_COUNT, MAX_COUNT)).fetchone()
    if bad is not None:
        raise ArchiveFault(f"{path}: damaged: the record of chunk {cut(bad[0])} of job {job_id} holds "
                           "numbers that make no sense (a negative count, a time of 10^12 s or more)")
