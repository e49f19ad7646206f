"""Saved games: the files that `beggar play`, `replay` and `verify` read, and
that the archive exports.

Three forms, told apart by their content (README.md, Saved games, shows
each): text with one hand a line (`#` comments and blank lines ignored,
made to be written by hand), one line of the `p1/p2` record notation, and
JSON, one object or a list of them for `verify`, of which only "deal" is
required; "provenance" (finds.py) is kept as read, and the published-deals
form (`p1`, `p2`, `status`, ...) is read too.

Every error is a SaveFileError whose message names the file and the line (and
column, where there is one).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass

from .cards import written
from .checks import whole
from .deal import Deal, DealError, read_hands
from .errors import BadInput
from .outcome import STATUSES
from .rules import Rules
from .variant import STANDARD, Variant, VariantError

FORMAT, VERSION = "beggar-game", 1

_GAME_FIELDS = {"format", "version", "name", "deal", "variant", "rules", "expected", "note", "provenance"}
_PUBLISHED_FIELDS = {"name", "year", "p1", "p2", "cards", "tricks", "status", "source", "note",
                     "loop_entry", "loop_period"}
_RULE_FIELDS = {"max_cards", "max_tricks", "detect_loops"}
_EXPECTED_FIELDS = {"status", "winner", "cards", "tricks", "counts", "loop_entry", "loop_period", "engine"}


class SaveFileError(BadInput, ValueError):
    """A saved game that cannot be read; the message names file and place."""


@dataclass(frozen=True)
class SavedGame:
    """A deal, the rules it is played under, and what its outcome should be.

    expected: None, or a dict of Outcome fields to check (at least status,
    cards and tricks), with loop_entry and loop_period as (tricks, cards).
    provenance: None, or where the game comes from, as plain JSON (finds.py:
    the job, driver, seed and chunk, when, both engines' outcomes); kept as
    it is read, never checked.
    variant: the variant (variant.py) the file's deal was written for; `deal`
    is as it plays under it.
    """
    deal: Deal
    rules: Rules = Rules()
    expected: dict | None = None
    name: str | None = None
    year: int | None = None
    provenance: dict | None = None
    variant: Variant = STANDARD


#: The largest saved-game file read: far above any deal of MAX_CARDS cards
#: written out in full, far below what would take long to parse.
MAX_BYTES = 4 * 1024 * 1024


def read_text(path):
    """The text of a file, or of standard input for "-": UTF-8 (a byte order
    mark is skipped), at most MAX_BYTES, read no further than that."""
    name = "standard input" if path == "-" else path
    try:
        if path == "-":
            if sys.stdin is None:
                raise SaveFileError("standard input: closed, nothing to read")
            stream = getattr(sys.stdin, "buffer", sys.stdin)
            data = stream.read(MAX_BYTES + 1)
        else:
            with open(path, "rb") as file:
                data = file.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise SaveFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise SaveFileError(f"{path}: is a directory, not a file") from None
    except OSError as error:
        raise SaveFileError(f"{name}: cannot read ({error.strerror})") from None
    if len(data) > MAX_BYTES:
        raise SaveFileError(f"{name}: larger than {MAX_BYTES // 1024 // 1024} MiB, "
                            "far more than any saved game")
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SaveFileError(f"{name}: not a text file ({error.reason} at byte {error.start})") from None


def load(path, deck="any"):
    """Every game in a file (one for the text forms), as SavedGame objects."""
    name = "standard input" if path == "-" else path
    return parse(read_text(path), name, deck)


def parse(text, name, deck="any"):
    """Every game in `text`, read from a file called `name`."""
    if text.lstrip().startswith(("{", "[")):
        return _parse_json(text, name, deck)
    return [SavedGame(_parse_text(text, name, deck))]


def _parse_text(text, name, deck):
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        content = line.split("#", 1)[0]
        if content.strip():
            lines.append((number, content))
    if not lines:
        raise SaveFileError(f"{name}: no deal in the file (only blank lines and comments)")
    hands, places = [], []
    notation = len(lines) == 1 and "/" in lines[0][1]
    try:
        for number, content in lines:
            found, columns = read_hands(content, lambda column: f"line {number}, column {column}")
            if len(found) > 1 and not notation:
                raise DealError(f"line {number}, column {content.index('/') + 1}: '/' separates "
                                "hands only in the one-line notation; here a line is a hand")
            hands.extend(found)
            places.extend([(number, column) for column in hand] for hand in columns)
        return Deal.checked(hands, deck, lambda h, i: "line {}, column {}".format(*places[h - 1][i - 1]))
    except DealError as error:
        raise SaveFileError(f"{name}: {error}") from None


def _parse_json(text, name, deck):
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SaveFileError(f"{name}: line {error.lineno}, column {error.colno}: "
                            f"not valid JSON ({error.msg})") from None
    except RecursionError:
        raise SaveFileError(f"{name}: JSON nested too deeply to be a saved game") from None
    except ValueError as error:         # an integer of thousands of digits
        raise SaveFileError(f"{name}: not a saved game ({error})") from None
    entries = data if isinstance(data, list) else [data]
    if not entries:
        raise SaveFileError(f"{name}: the list holds no game")
    games = []
    for number, entry in enumerate(entries, 1):
        where = f"{name}: game {number}" if isinstance(data, list) else name
        try:
            games.append(_game_from_json(entry, deck))
        except (DealError, ValueError, TypeError) as error:
            raise SaveFileError(f"{where}: {error}") from None
    return games


def _game_from_json(entry, deck):
    if not isinstance(entry, dict):
        raise ValueError(f"a game is a JSON object, not {_json_type(entry)}")
    if "p1" in entry or "p2" in entry:
        return _published_game(entry, deck)
    _check_fields(entry, _GAME_FIELDS, "")
    if entry.get("format", FORMAT) != FORMAT:
        raise ValueError(f"field 'format' is {entry['format']!r}, not {FORMAT!r}")
    if entry.get("version", VERSION) != VERSION:
        raise ValueError(f"field 'version' is {entry['version']!r}; this beggar reads version {VERSION}")
    if "deal" not in entry:
        raise ValueError("missing field 'deal'")
    deal = _deal_from_json(entry["deal"], deck)
    try:
        variant = Variant.parse(entry.get("variant", "standard"))
    except VariantError as error:
        raise ValueError(f"field 'variant': {error}") from None
    rules = entry.get("rules") or {}
    if not isinstance(rules, dict):
        raise ValueError(f"field 'rules' must be an object, not {_json_type(rules)}")
    _check_fields(rules, _RULE_FIELDS, "rules.")
    try:
        rules = Rules(**rules)
    except ValueError as error:
        raise ValueError(f"field 'rules': {error}") from None
    expected = entry.get("expected")
    if expected is not None:
        expected = _expected(expected, "expected.")
    provenance = entry.get("provenance")
    if provenance is not None and not isinstance(provenance, dict):
        raise ValueError(f"field 'provenance' must be an object, not {_json_type(provenance)}")
    return SavedGame(variant.deal(deal), rules, expected, _name(entry), provenance=provenance, variant=variant)


def _published_game(entry, deck):
    _check_fields(entry, _PUBLISHED_FIELDS, "")
    for field in ("p1", "p2"):
        if not isinstance(entry.get(field), str):
            raise ValueError(f"field '{field}' must be a hand in record notation")
    try:
        deal = Deal.parse(f"{entry['p1']}/{entry['p2']}", deck)
    except DealError as error:
        raise ValueError(f"fields 'p1'/'p2': {error}") from None
    figures = {k: entry[k] for k in _EXPECTED_FIELDS & entry.keys()}
    year = entry.get("year")
    if year is not None:
        year = _whole(year, "year")
    return SavedGame(deal, Rules(), _expected(figures, ""), _name(entry), year)


def _deal_from_json(value, deck):
    try:
        if isinstance(value, str):
            return Deal.parse(value, deck)
        if isinstance(value, list) and all(isinstance(hand, str) for hand in value):
            return Deal.parse("/".join(value), deck)
        if isinstance(value, list) and all(isinstance(hand, list) for hand in value):
            return Deal(value, deck)
    except DealError as error:
        raise ValueError(f"field 'deal': {error}") from None
    raise ValueError("field 'deal' must be record notation, a list of hands as strings, "
                     "or a list of lists of card names")


def _expected(figures, prefix):
    if not isinstance(figures, dict):
        raise ValueError(f"field '{prefix.rstrip('.') or 'expected'}' must be an object")
    _check_fields(figures, _EXPECTED_FIELDS, prefix)
    for field in ("status", "cards", "tricks"):
        if field not in figures:
            raise ValueError(f"missing field '{prefix}{field}'")
    if figures["status"] not in STATUSES:
        raise ValueError(f"field '{prefix}status' is {figures['status']!r}; "
                         f"it is one of {', '.join(STATUSES)}")
    expected = {"status": figures["status"]}
    for field in ("cards", "tricks"):
        expected[field] = _whole(figures[field], prefix + field)
    if figures.get("winner") is not None:
        expected["winner"] = _whole(figures["winner"], prefix + "winner")
    if figures.get("counts") is not None:
        counts = figures["counts"]
        if not isinstance(counts, list):
            raise ValueError(f"field '{prefix}counts' must be a list of whole numbers")
        expected["counts"] = tuple(_whole(c, prefix + "counts") for c in counts)
    for field in ("loop_entry", "loop_period"):
        pair = figures.get(field)
        if pair is None:
            continue
        if not isinstance(pair, dict) or set(pair) != {"tricks", "cards"}:
            raise ValueError(f"field '{prefix}{field}' must be an object with 'tricks' and 'cards'")
        expected[field] = (_whole(pair["tricks"], f"{prefix}{field}.tricks"),
                           _whole(pair["cards"], f"{prefix}{field}.cards"))
    return expected


def _whole(value, field):
    try:
        return whole(value, f"field '{field}'")
    except ValueError:
        raise ValueError(f"field '{field}' must be a whole number, not {json.dumps(value)}") from None


def _name(entry):
    name = entry.get("name")
    if name is not None and not isinstance(name, str):
        raise ValueError(f"field 'name' must be text, not {_json_type(name)}")
    return name


def _check_fields(obj, allowed, prefix):
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise ValueError(f"unknown field '{prefix}{unknown[0]}' (known: {', '.join(sorted(allowed))})")


def _json_type(value):
    return {dict: "an object", list: "a list", str: "text", bool: "true/false",
            type(None): "null"}.get(type(value), "a number")


def mismatches(expected, outcome):
    """The expected figures an Outcome does not show, as 'field: expected X, got Y'."""
    return [f"{field}: expected {want}, got {getattr(outcome, field)}"
            for field, want in expected.items() if getattr(outcome, field) != want]


def _saved(game):
    """A SavedGame of `game`: a SavedGame, or a Deal (or a deal in record
    notation) saved under the standard rules with no name."""
    if isinstance(game, SavedGame):
        return game
    if isinstance(game, str):
        return SavedGame(Deal.parse(game))
    if isinstance(game, Deal):
        return SavedGame(game)
    raise TypeError(f"a saved game is a SavedGame, a Deal or a deal in record notation, not {type(game).__name__}")


def to_json(game, outcome=None):
    """The JSON form of a saved game (a SavedGame, a Deal or a deal in record
    notation); `outcome` becomes its expected figures."""
    game = _saved(game)
    entry = {"format": FORMAT, "version": VERSION}
    if game.name:
        entry["name"] = game.name
    entry["deal"] = str(game.deal)
    if game.variant.lay_on:     # the deal is written as it plays: the variant's trick alone
        entry["variant"] = str(game.variant.trick)
    entry["rules"] = game.rules.as_dict()
    if outcome is not None:
        figures = outcome.as_dict()
        del figures["engine"]
        entry["expected"] = figures
    if game.provenance is not None:
        entry["provenance"] = game.provenance
    return json.dumps(entry, indent=2) + "\n"


def to_text(game, outcome=None):
    """The hand-per-line text form of a saved game (as to_json takes it);
    name, rules and outcome go into comments, each one line whatever the
    name holds (one_line)."""
    game = _saved(game)
    comments = ["beggar saved game: one hand per line, top card first, the first hand leads"]
    if game.name:
        comments.append(game.name)
    if game.rules != Rules():
        comments.append(f"played under max_cards={game.rules.max_cards}, "
                        f"max_tricks={game.rules.max_tricks} (kept by the JSON form only)")
    if game.variant.lay_on:
        comments.append(f"played under the variant {game.variant.trick} (kept by the JSON form only)")
    if outcome is not None:
        comments.append(f"{outcome.status}: {outcome.cards} cards, {outcome.tricks} tricks")
    for key, value in (game.provenance or {}).items():
        # A column the row has no value for (a seat's deals were found by no chunk) is left out, not "None".
        if key != "engines" and value is not None:
            comments.append(f"{key}: {json.dumps(value) if isinstance(value, dict) else value}")
    lines = [f"# {one_line(str(comment))}" for comment in comments]
    lines.extend(written(hand) for hand in game.deal.hands)
    return "\n".join(lines) + "\n"


def one_line(text):
    """`text` as one line of printable characters: every other character (a
    line break of any kind, a control character, NUL) written as its escape
    (\\n, \\x00, \\u2028). A name that broke its comment's line would
    make the next line part of the deal."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
