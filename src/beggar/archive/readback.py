"""The checks of what is read back from an archive. What an archive holds is
checked as a user's input is: a value that makes no sense is an ArchiveFault
naming the file (exit 3), never a traceback nor a wrong figure."""

import json

from ..checks import MAX_COUNT, cut
from ..deal import Deal, DealError
from ..decks import DeckError
from .faults import ArchiveFault

#: The most workers a chunk's record may say it ran on (search.spec.MAX_WORKERS).
MOST_WORKERS = 1024


def stats_problem(stats, key=None):
    """What makes no sense in a chunk's statistics as read back (every number
    a count from 0 to MAX_COUNT, the workers from 1 to MOST_WORKERS; keys of
    histograms digits), or None."""
    if isinstance(stats, dict):
        for name, value in stats.items():
            if key in ("cards", "tricks") and not (name.isascii() and name.isdigit() and len(name) <= 19):
                return f"'{key}' counts a length {cut(name)}"
            problem = stats_problem(value, name if key not in ("cards", "tricks", "loops", "statuses") else key)
            if problem is not None:
                return problem
        return None
    if isinstance(stats, list):
        return next((problem for problem in (stats_problem(value, key) for value in stats) if problem), None)
    if isinstance(stats, bool) or isinstance(stats, float):
        return f"'{key}' holds {cut(stats)}, not a count"
    if isinstance(stats, int):
        low, high = (1, MOST_WORKERS) if key == "workers" else (0, MAX_COUNT)
        if not low <= stats <= high:
            return f"'{key}' holds {cut(stats)}, not a count from {low} to {high}"
    return None


def stored_deal(path, game_id, text):
    """The Deal of game `game_id` as the archive at `path` holds it; ArchiveFault,
    naming the file and the game, when it is none."""
    try:
        return Deal.parse(text)
    except (DealError, DeckError, TypeError, ValueError) as error:
        raise ArchiveFault(f"{path}: damaged: game {game_id} holds no deal ({error})") from None


def stored_json(path, text, what, kind=dict):
    """A JSON value the archive at `path` holds (`what` names it): ArchiveFault
    unless it is JSON of the expected `kind`."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError) as error:
        raise ArchiveFault(f"{path}: damaged: {what} is not JSON ({cut(str(error))})") from None
    if not isinstance(value, kind):
        raise ArchiveFault(f"{path}: damaged: {what} is not a JSON {'object' if kind is dict else 'list'}")
    return value


def check_chunk_numbers(db, path, job_id):
    """ArchiveFault unless every number the chunks of job `job_id` record is
    a count from 0 to MAX_COUNT (seconds: under 10^12): a negative count or
    time would make a wrong mean or an infinite rate, silently."""
    bad = db.execute(
        "SELECT chunk FROM chunks WHERE job = ? AND NOT (typeof(deals) = 'integer' AND deals BETWEEN 0 AND ? "
        "AND typeof(hits) = 'integer' AND hits BETWEEN 0 AND ? AND typeof(best_cards) = 'integer' "
        "AND best_cards BETWEEN 0 AND ? AND typeof(seconds) IN ('integer', 'real') AND seconds BETWEEN 0 "
        "AND 1e12) LIMIT 1", (job_id, MAX_COUNT, MAX_COUNT, MAX_COUNT)).fetchone()
    if bad is not None:
        raise ArchiveFault(f"{path}: damaged: the record of chunk {bad[0]} of job {job_id} holds "
                           "numbers that make no sense (a negative count, a time of 10^12 s or more)")
