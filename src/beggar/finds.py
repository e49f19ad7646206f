"""A find and its story: the saved game written from a game of the archive
(by `beggar archive export`, or by a job next to its archive) with a name
that means something outside the archive and its provenance; the project's
own finds, shipped in data/finds.json (the saved games of results/), which
count as known like the published deals; and the folder beside an archive
where the files a job writes on its own go, out of git's sight. A
provenance is plain JSON (docs/archive.md tells its fields).
"""

from __future__ import annotations

import errno
import os
from dataclasses import replace
from functools import lru_cache

from . import __version__, installed
from .archive import ArchiveError, ArchiveFault, now
from .archive.readback import count
from .deal import Deal
from .outcome import Outcome
from .records import how_found
from .rules import Rules
from .savefile import SavedGame, parse
from .variant import Variant

#: The file of the project's own finds, shipped with beggar.
FINDS_FILE = "finds.json"


@lru_cache(maxsize=None)
def shipped():
    """The project's own finds (results/*.json, shipped as data/finds.json): [SavedGame]."""
    return installed.read(FINDS_FILE, parse)


@lru_cache(maxsize=None)
def known_loops(deck, players=None):
    """{canonical state (hex): name} of the loops of `deck` (as decks.written
    writes it) that are known before any search: the published ones and the
    project's own shipped finds. With `players`, those known from deals of
    that many players: a deal of three that falls into a loop known from
    deals of two only is news at its table."""
    from . import loops
    known = {}
    for name, deal in loops.published(deck):
        if players in (None, deal.players):
            known.setdefault(loops.of_deal(deal).hex, f"published: {name}")
    for game in shipped():
        if game.deal.deck_written() == deck and game.expected and game.expected["status"] == "loop" \
                and players in (None, game.deal.players):
            known.setdefault(loops.of_deal(game.deal).hex, f"shipped with beggar: {game.name}")
    return known


def outcome_of(figures):
    """An Outcome from its JSON form (Outcome.as_dict) as the archive keeps it."""
    figures = dict(figures)
    for key in ("loop_entry", "loop_period"):
        if figures[key] is not None:
            figures[key] = (figures[key]["tricks"], figures[key]["cards"])
    figures["counts"] = tuple(figures["counts"])
    return Outcome(**figures)


def hands_of(deal_text):
    """'26/26', '18/17/17': the hand sizes of a deal in record notation."""
    return "/".join(str(len(hand)) for hand in deal_text.split("/"))


def describe_game(game):
    """A name for a kept game that means something outside its archive:
    'a 3279-card game of the camicia deck (20/20), found by family extension
    in job camicia-20261201-032648-1ca8 on 2026-12-01'."""
    what = (f"a deal of the {game['deck']} deck ({hands_of(game['deal'])}) that never ends (period "
            f"{game['period_tricks']} tricks / {game['period_cards']} cards)" if game["status"] == "loop"
            else f"a {game['cards']}-card {game['status']} game of the {game['deck']} deck ({hands_of(game['deal'])})")
    how = how_found(game["driver"])
    job = f" in job {game['job']}" if game["job"] else ""
    return f"{what}, found {how}{job} on {game['found_at'][:10]}".replace("found  in", "found in")


def provenance(game, archive_path, spec=None, parent=None):
    """Where a kept game comes from, as plain JSON: its archive row's story,
    with the job's chunk size where the job's spec is known and the parent
    game of a family extension."""
    story = {"archive": os.path.basename(archive_path), "game": game["id"], "job": game["job"],
             "driver": game["driver"], "seed": game["seed"], "chunk": game["chunk"],
             "found_at": game["found_at"], "deck": game["deck"], "players": game["players"],
             "hands": hands_of(game["deal"])}
    if spec is not None:
        story["chunk_size"] = spec.get("chunk")
        story.update(played_under(spec))
    if game["rank"] is not None:
        story["rank"] = game["rank"]
    if parent is not None:
        story["parent"] = {"game": parent["id"], "deal": parent["deal"], "cards": parent["cards"],
                           "tricks": parent["tricks"]}
    story["engines"] = {"compiled": game["compiled"], "reference": game["reference"],
                        "agree": not game["disputed"]}
    story["written_at"] = now()
    story["beggar"] = __version__
    return story


def job_spec(archive, job_id):
    """The spec of job `job_id` of `archive`, or None: a game kept by hand, or
    by a job no longer there, whose row says enough (a job that is there but
    damaged is a fault: exit 3, nothing written)."""
    if job_id is None:
        return None
    try:
        spec = archive.job(job_id)["spec"]
    except ArchiveError:
        return None
    if "chunk" in spec:
        try:
            count(spec["chunk"], 1)
        except ArchiveFault as error:
            raise ArchiveFault(f"{archive.path}: damaged: the spec of job {job_id}: its chunk {error}") from None
    return spec


def saved_game(archive, game, name=None):
    """A kept game of `archive` as (SavedGame with its name and provenance,
    compiled Outcome)."""
    spec = job_spec(archive, game["job"])
    parent = archive.parent(game)
    rules = Rules(**game["rules"])
    # Kept as it plays: a game that lays on is saved under that trick alone.
    saved = SavedGame(Deal.parse(game["deal"]), replace(rules, lay_on=False), name=name or describe_game(game),
                      provenance=provenance(game, archive.path, spec, parent), variant=Variant(lay_on=rules.lay_on))
    return saved, outcome_of(game["compiled"])


def folder_of(archive_path):
    """The folder where a job writes its saved games on its own: beside the
    archive and named after it (results/archive.sqlite: results/archive-finds),
    as relative as the archive's path."""
    stem = os.path.splitext(os.path.basename(archive_path))[0]
    return os.path.join(os.path.dirname(archive_path), f"{stem}-finds")


#: The .gitignore of a folder of finds: nothing in it is committed by accident.
IGNORE = "# saved games a beggar job wrote on its own: export one to commit it\n*\n"


def folder(archive_path):
    """folder_of(archive_path), created when first needed with a .gitignore
    that keeps it out of git's sight: a find is committed by choice (beggar
    archive export), never by accident. The .gitignore is written whole or
    not at all (a full disk leaves none, and the next find writes it), and
    one left empty is written again. OSError when the folder cannot be had
    (NotADirectoryError: a file of its name is there)."""
    path = folder_of(archive_path)
    if os.path.lexists(path) and not os.path.isdir(path):
        raise NotADirectoryError(errno.ENOTDIR, "a file of that name is there, not a folder", path)
    os.makedirs(path, exist_ok=True)
    ignore = os.path.join(path, ".gitignore")
    try:
        empty = os.path.getsize(ignore) == 0
    except OSError:
        empty = not os.path.lexists(ignore)
    if empty:
        # Beside it first, then renamed into place: never a .gitignore cut short.
        part = f"{ignore}.part-{os.getpid()}"
        try:
            with open(part, "w", encoding="utf-8") as file:
                file.write(IGNORE)
                file.flush()
                os.fsync(file.fileno())
            os.replace(part, ignore)
        finally:
            if os.path.lexists(part):
                os.remove(part)
    return path


def played_under(spec):
    """{"played_under": the variant} of a job's spec under a house's
    penalties (its deals and loops are written as played), else {}."""
    variant = spec.get("variant", "standard")
    return {} if variant == "standard" else {"played_under": variant}


def provenance_of_loop(row, archive_path, spec=None):
    """Where a kept loop comes from (Archive.loop's row; `spec`, its job's,
    where known), as plain JSON."""
    return {"archive": os.path.basename(archive_path), "loop": row["id"], "key": row["key"], "job": row["job"],
            "driver": row["driver"], "chunk": row["chunk"], "found_at": row["found_at"], "deck": row["deck"],
            "players": row["players"], "states": row["states"], "basin_states": row["basin_states"],
            "basin_deals": row["basin_deals"], **played_under(spec or {}), "written_at": now(),
            "beggar": __version__}
