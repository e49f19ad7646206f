"""The loops table's queries (a mixin of store.Archive): keeping loops and
their basin searches, and listing them, each row read back checked
(readback.read_loop)."""

from ..checks import cut
from ..decks import Deck
from . import readback
from .faults import ArchiveError, ArchiveFault
from .sql import batched, dicts, guarded, now, where


@guarded
class Loops:
    def add_loop(self, loop, job=None, driver=None, chunk=None):
        """Keep a loops.Loop (inside a transaction). Returns (id, new): a loop
        already kept keeps its first finder."""
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO loops (key, deck, players, period_tricks, period_cards, states, balanced, "
            "job, driver, chunk, found_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (loop.hex, loop.deck, loop.players, *loop.period, len(loop.states), int(loop.balanced), job,
             driver, chunk, now()))
        if cursor.rowcount:
            return cursor.lastrowid, True
        return self.loop_id(loop.deck, loop.hex), False

    def loop_id(self, deck, key):
        """The id of the loop of `deck` with canonical state `key` (hex), or None."""
        row = self.db.execute("SELECT id FROM loops WHERE deck = ? AND key = ?", (deck, key)).fetchone()
        return None if row is None else row[0]

    def basin_searched(self, deck, key):
        """Whether the loop of `deck` and `key` is kept with its basin searched."""
        row = self.db.execute("SELECT basin_states FROM loops WHERE deck = ? AND key = ?", (deck, key)).fetchone()
        return row is not None and row[0] is not None

    def known_loops(self, deck, keys):
        sql = "SELECT key FROM loops WHERE deck = ? AND key IN ({})"
        return {row[0] for row in batched(self.db, sql, (deck,), keys)}

    def loop_games_by_table(self, deck, job):
        """{(loop key, players): (games of job `job`, of any job)} of the kept
        games of status loop of `deck`: what a hunt's seats are checked against."""
        return {(key, players): (mine, every) for key, players, mine, every in self.db.execute(
            "SELECT loop, players, sum(job IS ?), count(*) FROM games WHERE deck = ? AND status = 'loop' "
            "AND loop IS NOT NULL GROUP BY loop, players ORDER BY loop, players", (job, deck))}

    def set_basin(self, loop_id, states, deals, stopped_by):
        self.db.execute("UPDATE loops SET basin_states = ?, basin_deals = ?, basin_stopped_by = ? WHERE id = ?",
                        (states, deals, stopped_by, loop_id))

    def loops(self, deck=None, job=None, limit=None, loop_id=None):
        """Kept loops as dicts, best first: those with balanced deals found,
        then those with a balanced state, then the shortest periods. Each has
        `games`: how many kept games fall into it, at any table."""
        clause, args = where(id=loop_id, deck=None if deck is None else str(Deck.parse(deck)), job=job)
        sql = ("SELECT *, (SELECT count(*) FROM games WHERE games.deck = loops.deck AND games.loop = loops.key) "
               "AS games FROM loops" + clause
               + " ORDER BY (coalesce(basin_deals, 0) > 0 OR EXISTS (SELECT 1 FROM games WHERE games.deck = loops.deck "
               "AND games.players > 2 AND games.loop = loops.key)) DESC, balanced DESC, period_tricks, id")
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [readback.read_loop(self.path, row, self._empty_hands) for row in dicts(self.db.execute(sql, args))]

    def check_loop_games(self, job=None):
        """ArchiveFault unless every kept game of status loop falls into a loop
        the archive holds: a loop row is kept with the first game that falls
        into it and never removed, so a game naming a key no row holds is
        damage, which would drop the loop out of a report, unsaid."""
        clause, args = where(("loop IS NOT NULL",), ("NOT EXISTS (SELECT 1 FROM loops WHERE loops.deck = games.deck "
                                                     "AND loops.key = games.loop)",), job=job)
        row = self.db.execute(f"SELECT id, loop FROM games{clause} ORDER BY id LIMIT 1", args).fetchone()
        if row is not None:
            raise ArchiveFault(f"{self.path}: damaged: game {row[0]} falls into the loop of key {cut(row[1])}, and "
                               "the archive holds no loop of that key")

    def count_loops(self, deck=None, job=None):
        clause, args = where(deck=None if deck is None else str(Deck.parse(deck)), job=job)
        return self.db.execute("SELECT count(*) FROM loops" + clause, args).fetchone()[0]

    def loop(self, loop_id):
        found = self.loops(loop_id=loop_id)
        if not found:
            raise ArchiveError(f"{self.path}: no loop with id {loop_id}")
        row = found[0]
        row["deals"] = [self._game(game) for game in dicts(self.db.execute(
            "SELECT * FROM games WHERE deck = ? AND loop = ? ORDER BY id", (row["deck"], row["key"])))]
        return row
