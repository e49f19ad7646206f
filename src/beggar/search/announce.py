"""The announcements of a job's finds, a record or a balanced deal of a loop
not known before: a loud line, and a saved game in the job's folder of finds,
whole or not at all (docs/searching.md says which, and how they are named)."""

from __future__ import annotations

import hashlib
import os

from .. import finds, published
from ..decks import hand_sizes
from ..savefile import SaveFileError, load, to_json


#: The new loops a run tells one by one; those after are saved and counted.
TOLD = 5


def tell(archive, job_id, news, summary, announce=None):
    """Announce the records and new balanced loops among `news`, games just
    kept [(game id, deal, outcome, driver)], to the summary and `announce`;
    past TOLD new loops, a loop is saved and counted, the first such said once."""
    for game_id, deal, outcome, driver in news:
        line = announcement(archive, job_id, game_id, deal, outcome, driver)
        if line is None:
            continue
        if "NEW LOOP" in line and sum("NEW LOOP" in told for told in summary.announced) >= TOLD:
            summary.untold += 1
            if summary.untold == 1 and announce is not None:
                announce(f"*** more new loops: each saved to {job_folder(archive.path, job_id)} and counted in "
                         "the summary, no longer told one by one ***")
            continue
        summary.announced.append(line)
        if announce is not None:
            announce(line)


def summary_lines(summary, archive_path):
    """The summary's lines of what was announced, and of the new loops past the first few."""
    lines = [f"NEW      {line}" for line in summary.announced]
    if summary.untold:
        lines.append(f"NEW      ... and {summary.untold:,} more new loop{'s' if summary.untold != 1 else ''}, "
                     f"each saved to {job_folder(archive_path, summary.job)}")
    return lines


def job_folder(archive_path, job_id):
    """Where a job's finds are saved: its own folder in the archive's folder of finds."""
    return os.path.join(finds.folder_of(archive_path), job_id)


def announcement(archive, job_id, game_id, deal, outcome, driver):
    """A loud line, and a saved game, for a game longer than the longest
    published (standard deck, 26/26) or a balanced deal of a loop not known
    before at its table (finds.known_loops); None for any other game."""
    balanced = [len(hand) for hand in deal.hands] == hand_sizes(deal.total, deal.players) and (
        deal.players > 2 or len(deal.hands[0]) == len(deal.hands[1]))
    if outcome.status == "finished" and published.is_standard_table(deal) \
            and outcome.cards > published.LONGEST_CARDS:
        kind = "record"
        what = (f"NEW RECORD: {outcome.cards} cards, {outcome.tricks} tricks, longer than the published "
                f"{published.LONGEST_CARDS}")
    elif outcome.status == "loop" and balanced:
        kind = "loop"
        sizes = "/".join(str(len(hand)) for hand in deal.hands)
        what = (f"NEW LOOP: a balanced deal of {deal.players} players ({sizes}) that never ends (entry "
                f"{outcome.loop_entry[0]} tricks, period {outcome.loop_period[0]} tricks / {outcome.loop_period[1]} "
                "cards)")
    else:
        return None
    game = archive.game(game_id)
    if game["rules"].get("lay_on"):     # the published records and the known loops are the standard trick's
        return None
    if kind == "loop" and game["loop"] in finds.known_loops(game["deck"], game["players"]):
        return None
    saved, _ = finds.saved_game(archive, game)
    return f"*** {what}: {deal} ({_save(archive.path, job_id, kind, deal, outcome, saved, game_id)}) ***"


#: Names tried for one saved game before giving up (name, name-2, ...).
SAVE_NAMES = 10


def _save(archive_path, job_id, kind, deal, outcome, saved, game_id):
    """Write `saved` into the job's folder of finds as a new file named by its
    kind, cards and deal (game ids restart in every archive: two archives in
    one folder gave two deals one name), or the next name where another deal
    holds it. Returns where it went, in words."""
    folder = job_folder(archive_path, job_id)
    stem = f"{kind}-{outcome.cards}-{hashlib.sha256(str(deal).encode()).hexdigest()[:10]}"
    try:
        finds.folder(archive_path)
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        # Not a name taken: the folder itself cannot be had (a file of its
        # name is there, a full disk, no permission).
        return f"kept in the archive as game {game_id}; cannot write in {folder} ({error.strerror})"
    for number in range(1, SAVE_NAMES + 1):
        path = os.path.join(folder, f"{stem}.json" if number == 1 else f"{stem}-{number}.json")
        try:
            _write_new(path, to_json(saved, outcome))
            return f"saved to {path}"
        except FileExistsError:
            if _holds(path, deal):
                return f"saved before to {path}"
        except OSError as error:
            return f"kept in the archive as game {game_id}; cannot write {path} ({error.strerror})"
    return f"kept in the archive as game {game_id}; {SAVE_NAMES} names for it there are taken"


def _holds(path, deal):
    """Whether the file at `path` (never followed when it is a link) is a saved game of `deal`."""
    if os.path.islink(path) or not os.path.isfile(path):
        return False
    try:
        return any(game.deal == deal for game in load(path))
    except (SaveFileError, OSError, ValueError):
        return False


def _write_new(path, text):
    """Write a file that must not exist yet; one cut short (a full disk) is
    removed, so that a saved game next to the archive is whole or absent."""
    with open(path, "x") as file:
        try:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        except OSError:
            os.remove(path)
            raise
