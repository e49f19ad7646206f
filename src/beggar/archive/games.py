"""The games table's queries (a mixin of store.Archive): keeping games,
and listing, counting and choosing them, each row read back checked
(readback.read_game)."""

import functools
import json

from ..checks import MAX_COUNT
from ..decks import Deck, hand_sizes
from . import readback
from .faults import ArchiveError, ArchiveFault
from .schema import table_of
from .sql import batched, dicts, guarded, now, where

# What tells the hand sizes of a game's deal apart in SQL, as the archive
# writes a deal (str(Deal): one character a card, 2-4 hands split by '/'):
# where the first three hands end and the length of the whole. Computed in
# SQLite, not Python: a report groups every game by it.
_AFTER_1 = "substr(deal, instr(deal, '/') + 1)"
_AFTER_2 = f"substr({_AFTER_1}, instr({_AFTER_1}, '/') + 1)"
# Two hands are told by the first's size (split) alone, and most games have two.
_HAND_SIZES = (f"(CASE WHEN players = 2 THEN split ELSE instr(deal, '/') || '/' || instr({_AFTER_1}, '/') || '/' "
               f"|| instr({_AFTER_2}, '/') || '/' || length(deal) END)")


def rules_key(rules):
    """The rules as the canonical JSON text the archive keys games by."""
    return json.dumps(rules.as_dict(), sort_keys=True)


def _game_filter(record_cards, min_cards, disputed, job, deck, players, status, split=None):
    # The published records are the standard trick's (Rules.as_dict writes lay_on only where it is set).
    return where(record_cards is not None and ("status = 'finished' AND cards >= ? AND deck = 'standard' "
                                               "AND players = 2 AND json_extract(rules, '$.lay_on') IS NULL",
                                               record_cards),
                 min_cards is not None and ("cards >= ?", min_cards), disputed and ("disputed = 1",),
                 split=split, status=status, deck=None if deck is None else str(Deck.parse(deck)),
                 players=players, job=job)


#: A game's row as add_game and add_games write it; `parent` the SQL of its parent's id.
_INSERT = ("INSERT OR IGNORE INTO games (deal, rules, status, winner, cards, tricks, entry_tricks, entry_cards, "
           "period_tricks, period_cards, compiled, reference, disputed, job, driver, seed, chunk, parent, found_at, "
           "deck, players, split, rank, loop) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, {parent}, "
           "?, ?, ?, ?, ?, ?)")


def _game_row(key, deal, compiled, reference, job, driver, seed, chunk, parent, rank, loop):
    """The values of _INSERT for a game of `key` (deal text, rules key); `parent`: those of its parent."""
    return (*key, compiled.status, compiled.winner, compiled.cards, compiled.tricks,
            *(compiled.loop_entry or (None, None)), *(compiled.loop_period or (None, None)),
            json.dumps(compiled.as_dict()), json.dumps(reference.as_dict()), int(compiled != reference), job,
            driver, seed, chunk, *parent, now(), *table_of(deal), None if rank is None else str(rank),
            None if loop is None else loop.hex())


@guarded
class Games:
    def add_game(self, deal, rules, compiled, reference, job=None, driver=None, seed=None,
                 chunk=None, parent=None, rank=None, loop=None):
        """Keep a game (inside a transaction). Returns (id, new): a deal already
        kept under the same rules is not stored twice."""
        row = _game_row((str(deal), rules_key(rules)), deal, compiled, reference, job, driver, seed, chunk,
                        (parent,), rank, loop)
        cursor = self.db.execute(_INSERT.format(parent="?"), row)
        if cursor.rowcount:
            return cursor.lastrowid, True
        found = self.db.execute("SELECT id FROM games WHERE deal = ? AND rules = ?", row[:2]).fetchone()
        return found[0], False

    def add_games(self, rows):
        """Keep many games at once (inside a transaction), as add_game would
        one by one: `rows` are add_game's arguments but for `parent`, which is
        the parent's deal (kept by an earlier row or call), not its id."""
        key_of = functools.lru_cache(rules_key)     # a chunk's games share one Rules: one key of it
        keyed = [((str(row[0]), key_of(row[1])), row) for row in rows]
        keys = {key for key, _ in keyed}
        before = self._game_ids(keys)
        values, seen = [], set()
        for key, (deal, rules, compiled, reference, job, driver, seed, chunk, parent, rank, loop) in keyed:
            if key in before or key in seen:
                continue        # INSERT OR IGNORE would ignore it: its row need not be written out
            seen.add(key)
            values.append(_game_row(key, deal, compiled, reference, job, driver, seed, chunk,
                                    (None if parent is None else str(parent), key[1]), rank, loop))
        # One statement for every row; a parent is looked up as its row is
        # inserted, so it may be a row of the same call.
        self.db.executemany(_INSERT.format(parent="(SELECT id FROM games WHERE deal = ? AND rules = ?)"), values)
        ids = {**before, **self._game_ids(seen)}
        found, seen = [], set()
        for key, _ in keyed:
            found.append((ids[key], key not in before and key not in seen))
            seen.add(key)
        return found

    def _game_ids(self, keys):
        """{(deal text, rules key): id} of the games kept of `keys`."""
        found = {}
        by_rules = {}
        for deal, rules in keys:
            by_rules.setdefault(rules, []).append(deal)
        for rules, deals in by_rules.items():
            found.update(((deal, rules), game_id) for deal, game_id in batched(
                self.db, "SELECT deal, id FROM games WHERE rules = ? AND deal IN ({})", (rules,), deals))
        return found

    def games(self, record_cards=None, min_cards=None, disputed=False, job=None, limit=None,
              deck=None, players=None, status=None, loops_first=True, split=None):
        """Kept games as dicts, best first: loops, then the longest games
        (`loops_first=False`: the longest first, whatever their status);
        `record_cards` keeps the finished games of the published records'
        table at least that long (published.RECORD_CARDS)."""
        where, args = _game_filter(record_cards, min_cards, disputed, job, deck, players, status, split)
        sql = "SELECT * FROM games" + where
        sql += (" ORDER BY status = 'loop' DESC," if loops_first else " ORDER BY") + " cards DESC, tricks DESC, id"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [self._game(row) for row in dicts(self.db.execute(sql, args))]

    def count_games(self, record_cards=None, min_cards=None, disputed=False, job=None, deck=None,
                    players=None, status=None):
        where, args = _game_filter(record_cards, min_cards, disputed, job, deck, players, status)
        return self.db.execute("SELECT count(*) FROM games" + where, args).fetchone()[0]

    def longest_by_table(self, job=None, per_table=5):
        """The `per_table` longest finished games of each table (deck, players,
        `hands` '26/26', rules), the tables in the order of their longest game.
        Chosen in SQL, on a few columns: an archive of half a million games
        is never read whole for the few a report shows."""
        clause, args = where(status="finished", job=job)
        chosen = self.db.execute(
            f"WITH sized AS (SELECT id, cards, tricks, deck, players, rules, {_HAND_SIZES} AS hands "
            f"FROM games{clause}), ranked AS (SELECT id, hands, row_number() OVER (PARTITION BY deck, players, "
            "hands, rules ORDER BY cards DESC, tricks DESC, id) AS place, max(cards) OVER (PARTITION BY deck, "
            "players, hands, rules) AS best, deck, players, rules FROM sized) SELECT id FROM ranked WHERE place <= ? "
            "ORDER BY best DESC, deck, players, hands, rules, place", (*args, per_table)).fetchall()
        found = []
        for (game_id,) in chosen:
            game = self.game(game_id)
            game["hands"] = "/".join(str(len(hand)) for hand in game["deal"].split("/"))
            found.append(game)
        return found

    def balanced_by_table(self, job=None, per_table=5, loops_per_table=10, first=()):
        """The kept balanced deals that never end, by table: dicts with `deck`,
        `players`, `hands` ('18/17/17'), `deals` and `loops` (how many, and
        into how many loops), `games` (the first `per_table` kept, those whose
        deals are among `first` ahead) and `by_loop` ((loop key, deals) of the
        `loops_per_table` loops holding the most). Counted in SQL on a few columns."""
        clause, args = where(status="loop", job=job)
        found = []
        grouped = self.db.execute(
            f"SELECT deck, players, hands, count(*), count(DISTINCT loop), min(id) FROM (SELECT id, deck, players, "
            f"{_HAND_SIZES} AS hands, loop FROM games{clause}) GROUP BY deck, players, hands ORDER BY deck, players",
            args).fetchall()
        for deck, players, hands, deals, loops, first_id in grouped:
            # hands tells the sizes apart, and one game of them, read back and checked, says what they are.
            one = self.game(first_id)
            sizes = [len(hand) for hand in one["deal"].split("/")]
            if sizes != hand_sizes(Deck.parse(one["deck"]).total, one["players"]):
                continue
            clause, args = where((f"{_HAND_SIZES} = ?", hands), status="loop", deck=deck, players=players, job=job)
            chosen = [row[0] for row in self.db.execute(
                f"SELECT id FROM games{clause} ORDER BY deal IN ({','.join('?' * len(first)) or 'NULL'}) DESC, "
                "id LIMIT ?", (*args, *map(str, first), per_table))]
            by_loop = self.db.execute(f"SELECT loop, count(*) FROM games{clause} GROUP BY loop "
                                      "ORDER BY count(*) DESC, min(id) LIMIT ?", (*args, loops_per_table)).fetchall()
            found.append({"deck": deck, "players": players, "hands": "/".join(str(size) for size in sizes),
                          "deals": deals, "loops": loops, "games": [self.game(game_id) for game_id in chosen],
                          "by_loop": by_loop})
        return found

    def kept_lengths(self, job_id, min_cards=0):
        """The games job `job_id` kept of `min_cards` cards or more, as (id,
        status, cards, driver, parent) by id: those whose family searches a
        job's odds count. Read by the index of lengths, so that a job that
        kept half a million short games costs only the long ones; checked in
        SQL, all at once."""
        bad = self.db.execute(
            "SELECT id FROM games WHERE cards >= ? AND job = ? AND NOT (status IN ('finished', 'loop', 'stopped') "
            "AND typeof(cards) = 'integer' AND cards BETWEEN 0 AND ? AND (driver IS NULL OR (typeof(driver) = 'text' "
            "AND length(driver) BETWEEN 1 AND ?)) AND (parent IS NULL OR (typeof(parent) = 'integer' "
            "AND parent >= 1))) LIMIT 1", (min_cards, job_id, MAX_COUNT, readback.MOST_NAME)).fetchone()
        if bad is not None:
            # The reader says what is wrong with it, column by column.
            self.game(bad[0])
            raise ArchiveFault(f"{self.path}: damaged: game {bad[0]}: its status, cards, driver or parent "
                               "make no sense")
        # Ordered here, not by SQLite: ORDER BY id would have it scan every game by id instead.
        return sorted(self.db.execute("SELECT id, status, cards, driver, parent FROM games WHERE cards >= ? "
                                      "AND job = ?", (min_cards, job_id)))

    def kept_length_counts(self, job_id):
        """The finished games job `job_id` kept, {cards: games} of those it
        played and of those family extension found. Counted by SQLite: a few
        thousand lengths, never every game."""
        played, extended = {}, {}
        for cards, by_extension, games in self.db.execute(
                "SELECT cards, driver IS 'extension', count(*) FROM games WHERE job = ? AND status = 'finished' "
                "GROUP BY 1, 2", (job_id,)):
            if isinstance(cards, bool) or not isinstance(cards, int) or not 0 <= cards <= MAX_COUNT:
                bad = self.db.execute("SELECT id FROM games WHERE job = ? AND status = 'finished' AND cards IS ? "
                                      "LIMIT 1", (job_id, cards)).fetchone()[0]
                self.game(bad)          # the reader says what is wrong with it
                raise ArchiveFault(f"{self.path}: damaged: game {bad}: its cards make no sense")
            (extended if by_extension else played)[cards] = games
        return played, extended

    def game(self, game_id):
        row = next(dicts(self.db.execute("SELECT * FROM games WHERE id = ?", (game_id,))), None)
        if row is None:
            raise ArchiveError(f"{self.path}: no game with id {game_id}")
        return self._game(row)

    def parent(self, game):
        """The game whose family search found `game`, or None: an ArchiveFault
        where it is not there (no game a family search started from is ever
        removed: the row that names it is damaged)."""
        if game["parent"] is None:
            return None
        try:
            return self.game(game["parent"])
        except ArchiveError:
            raise ArchiveFault(f"{self.path}: damaged: game {game['id']}: its parent names game {game['parent']}, "
                               "which the archive does not hold") from None

    def _game(self, row):
        return readback.read_game(self.path, {self._game_names.get(name, name): value for name, value in row.items()},
                                  self._empty_hands)

    def keep_longest(self, job_id, top):
        """Of the finished games census job `job_id` kept (each chunk keeps its
        own `top` longest), keep the job's `top` longest, the earlier rank
        first on a tie; returns how many were deleted. Called once the census
        is complete, so it ends with the same games whatever the order its
        chunks finished."""
        with self.transaction():
            cursor = self.db.execute(
                "DELETE FROM games WHERE job = ? AND driver = 'census' AND status = 'finished' AND id NOT IN "
                "(SELECT id FROM games WHERE job = ? AND driver = 'census' AND status = 'finished' "
                "ORDER BY cards DESC, length(rank), rank LIMIT ?)", (job_id, job_id, top))
            return cursor.rowcount
