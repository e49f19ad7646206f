"""An engine made of the GPU kernels' launches: "cuda", "opencl" and "gpu-host".

The kernels play ranges of deals and hand back what a launch can count on the
device (histograms, the longest game, the games worth a look as hits); this
module turns those into contract.Engine's results, equal to the compiled
engine's bit for bit (docs/gpu.md, How it works, says how: loops and capped
games played again by the compiled engine, an overflowing launch in parts, a
census block cut so that the device unranks in 64 bits). A backend is a
launch.Backend (gpu/sizing.py sizes its launches); one whose call fails with an
EngineFault is closed and forgotten: after a kernel's fault a GPU's context
cannot be used again, so the next call makes a new one.
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from dataclasses import replace

import numpy as np

from .. import census as census_order
from .. import lengths
from ..census import _arrangements
from ..climbing import check_climb
from ..cards import CODES
from ..deal import Deal
from ..decks import STANDARD, Deck, check_table, deal_out, hand_sizes
from ..contract import EngineError, EngineFault
from ..outcome import STATUSES, Outcome
from ..rules import Rules
from ..shuffle import check_sample
from ..states import CensusBlock
from . import abi
from .launch import close_quietly
from .sizing import LaunchSizes

FINISHED, LOOP, CAPPED = 0, 1, 2
#: Tricks after which a game is handed to the compiled engine: far above the
#: longest finished game known (1164 tricks), and small enough that its cards
#: fit bg_best_key's 24 bits.
CAP_TRICKS = 1 << 15
#: Arrangements of a census suffix unranked on the device stay below this.
SUFFIX_LIMIT = 1 << 63


class GpuRequestError(EngineError, ValueError):
    """A request the GPU engine does not play (a wrong request: exit 2)."""


def ring_of(deck):
    """Places in a hand's ring for `deck`: a power of two above its court cards."""
    return _power_above(len(deck.courts) + 1)


def shape_of(deck, split, total):
    """game.h's bg_shape of `deck` dealt with `split`, for a build of `total` cards: one row."""
    shape = np.zeros(1, abi.shape(total))
    shape["total"], shape["n_courts"], shape["ring"] = deck.total, len(deck.courts), ring_of(deck)
    shape["steps"] = steps_between(deck, split)
    shape["split"] = 0 if split is None else -1 if split == "random" else split
    shape["courts"][0, :len(deck.courts)] = deck.courts
    return shape


@functools.lru_cache(maxsize=None)
def steps_between(deck, split=None):
    """Tricks a block plays between its barriers for `deck` dealt with
    `split` (kernel.cu's bg_flat; docs/gpu.md, How it works): the largest
    power of two at most the mean tricks of 1,024 of its random deals, 4 to
    16, so that a queue of one game a thread, refilled when half of it is
    free, does not run dry between two barriers."""
    from .. import _engine
    rows = np.array([_engine.shuffled_deck(2026, index, deck) for index in range(1024)], np.uint8)
    first = split if isinstance(split, int) else None
    mean = float(_engine.play_batch(rows, first)["tricks"].mean())
    return min(16, max(4, 1 << max(int(mean), 1).bit_length() - 1))


def _counts(cards):
    return [sum(1 for card in cards if card == code) for code in range(CODES)]


class RangeEngine:
    """contract.Engine's sample, sample_best, census, play_batch and climb
    on a backend's launches, for two players, and perturbation walks
    (perturb); the one-game calls (play, backward play) are the compiled
    engine's, and their outcomes say so; climbing by anneal is refused."""

    def __init__(self, name, make_backend):
        self.NAME = name
        self._make_backend = make_backend
        self._backend = None
        self.sizes = None
        self._climbs = {}       # the walks of the last group climbed, not yet asked for

    @property
    def backend(self):
        """The launches, made at the first call that needs them: the one-game
        calls, which are the compiled engine's, never touch a device."""
        if self._backend is None:
            backend = self._make_backend()
            self.sizes = LaunchSizes(backend.LAUNCH, backend.LARGEST, backend.CAPACITY, backend.SECONDS)
            self._backend = backend
        return self._backend

    def _run(self, kernel, *arguments):
        """One launch of `kernel` on the backend: (hits, n_hits, seconds),
        (results, None, seconds) for a batch, (hits, decks, n_hits, seconds)
        for a climb. A backend that fails is closed and forgotten (the next
        call makes a new one): after a kernel's fault its context is dead."""
        backend = self.backend
        start = time.perf_counter()
        try:
            result = getattr(backend, kernel)(*arguments)
        except EngineFault:
            self._backend = None
            close_quietly(backend)
            raise
        seconds = time.perf_counter() - start
        return (*result, seconds) if isinstance(result, tuple) else (result, None, seconds)

    # ------------------------------------------------------------ the compiled engine's calls

    @staticmethod
    def _compiled():
        from .. import _engine
        return _engine

    def _replayed(self, deal):
        """The game of `deal` played by the compiled engine, its outcome this engine's."""
        return replace(self._compiled().play(deal), engine=self.NAME)

    def __getattr__(self, name):
        from ..contract import FUNCTIONS
        if name in FUNCTIONS:
            return getattr(self._compiled(), name)
        raise AttributeError(name)

    def play_batch(self, decks, split=None, rules=Rules()):
        """Rows of card codes as two-player deals (contract.Engine.play_batch),
        played by the kernel bg_batch; a game that did not finish there, or
        that a limit of `rules` may have stopped first, is played again by the
        compiled engine, which finds its loop or its stop exactly."""
        from ..batch import batch_array, check_batch
        decks, splits = check_batch(decks, split)
        self._trick(rules.lay_on)
        out = batch_array(len(decks))
        if not len(decks):
            return out
        total = decks.shape[1]
        courts = int((decks != 0).sum(axis=1).max())
        ring = _power_above(courts + 1)
        if ring > self.backend.RING or total > self.backend.TOTAL:
            raise GpuRequestError(f"the {self.NAME} engine plays deals of at most {self.backend.TOTAL} cards and "
                                  f"{self.backend.RING - 1} court cards, not {total} and {courts}")
        max_cards = rules.max_cards if rules.max_cards is not None else 2 ** 62
        max_tricks = rules.max_tricks if rules.max_tricks is not None else 2 ** 62
        rows, cuts = decks.reshape(-1), splits.astype(np.int32)
        again = []
        step = self.sizes.size(("batch", total))
        for first in range(0, len(decks), step):
            last = min(first + step, len(decks))
            results, _, _ = self._run("batch", rows[first * total:last * total], cuts[first:last], total, ring,
                                      CAP_TRICKS)
            finished = (results["status"] == FINISHED) & (results["cards"] < max_cards) & \
                (results["tricks"] < max_tricks)
            kept = out[first:last]
            kept["status"][finished] = STATUSES.index("finished")
            for name in ("winner", "cards", "tricks"):
                kept[name][finished] = results[name][finished]
            for p, count in enumerate(("count0", "count1")):
                kept[count][finished] = np.where(results["winner"][finished] == p, total, 0)
            for name in ("entry_tricks", "entry_cards", "period_tricks", "period_cards"):
                kept[name][finished] = -1
            again.extend(first + np.flatnonzero(~finished))
        if again:
            again = np.array(again)
            out[again] = self._compiled().play_batch(decks[again], splits[again], rules)
        return out

    def perturb(self, states, deck, seed, index, tries, *, changes=2, reach=3, known=()):
        """Perturbation walk `index` of `seed` (beggar._loops.perturb), its
        tries played by the kernel bg_perturb: the compiled engine's walk, its
        loops played again there. Two-player states of `deck`."""
        from .. import _loops
        deck = self._fits(Deck.parse(deck))
        ring = ring_of(deck)
        key = ("perturb", deck)

        def launcher(pool, n_pool, total, walk_seed, first, most, known):
            def tried(first, count, part=False):
                """What the kernel hands back of tries first .. first + count - 1
                (TRIED rows, their tries absolute)."""
                rows, n, seconds = self._run("perturb", pool, n_pool, total, ring, changes, reach, walk_seed,
                                             known, first, count, CAP_TRICKS)
                if not part:
                    self.sizes.record(key, count, seconds, n)
                if n > len(rows):
                    return np.concatenate([tried(first + offset, size, True)
                                           for offset, size in _parts(count, n, len(rows))])
                rows["offset"] += np.uint64(first)
                return rows

            count = min(most, self.sizes.size(key))
            return count, once(tried(first, count))
        return _loops.perturb(states, deck, seed, index, tries, changes=changes, reach=reach, known=known,
                              launcher=launcher)

    def climb(self, seed, index, steps, min_cards, rules, deck=STANDARD, players=2, split=None, lay_on=False):
        """Walk `index` of `seed` of the hill climber (contract.Engine.climb),
        the compiled engine's walk bit for bit, played by the kernel bg_climb
        with the walks beside it: a call plays walks index .. index + WALKS - 1
        of their group (WALKS aligned, the backend's CLIMB_WALKS), and keeps the
        others for the calls that ask for them next (a job asks for its walks
        in order). Anneal's draws need the host's exp: it climbs on the
        compiled engine."""
        deck, players, split = check_climb(seed, index, steps, min_cards, rules, deck, players, split)
        deck, split = self._table(deck, players, split, lay_on)
        if rules.accept == "anneal":
            raise GpuRequestError(f"the {self.NAME} engine does not climb by anneal (its draws need the host's exp): "
                                  "anneal climbs on the compiled engine (engine = \"compiled\")")
        if not steps:
            return self._compiled().climb(seed, index, 0, min_cards, rules, deck, 2, split)
        key = (seed, steps, min(min_cards, 2 ** 62), rules, deck, split)
        walks = self.backend.CLIMB_WALKS
        first = index - index % walks
        if self._climbs.get("key") != key or index not in self._climbs.get("walks", {}):
            self._climbs = {"key": key, "walks": _Climbing(self, key, first, walks).walks()}
        return self._climbs["walks"].pop(index)

    # ------------------------------------------------------------ random deals

    def _table(self, deck, players, split, lay_on):
        deck, players, split = check_table(deck, players, split)
        if players != 2:
            raise GpuRequestError(f"the {self.NAME} engine plays two-player deals; {players} players "
                                  "play on the compiled engine (engine = \"compiled\")")
        self._trick(lay_on)
        return self._fits(deck), split

    def _trick(self, lay_on):
        if lay_on:
            raise GpuRequestError(f"the {self.NAME} engine's kernels play the standard trick; a variant that lays on "
                                  "plays on the compiled engine (engine = \"compiled\")")

    def _fits(self, deck):
        """`deck`, GpuRequestError unless the kernels' build holds it."""
        if len(deck.courts) + 1 > self.backend.RING or deck.total > self.backend.TOTAL:
            raise GpuRequestError(f"the {self.NAME} engine plays decks of at most {self.backend.TOTAL} cards, "
                                  f"not deck {deck} ({deck.total})")
        return deck

    def sample(self, n_deals, seed=1, min_cards=3000, start=0, deck=STANDARD, players=2, split=None, lay_on=False):
        return self.sample_best(n_deals, seed, min_cards, start, deck, players, split, lay_on)[0]

    def sample_best(self, n_deals, seed=1, min_cards=3000, start=0, deck=STANDARD, players=2, split=None,
                    lay_on=False):
        check_sample(n_deals, seed, min_cards, start)
        deck, split = self._table(deck, players, split, lay_on)
        shape = shape_of(deck, split, self.backend.TOTAL)
        sampled = _Sampled(self, seed, min(min_cards, 2 ** 62), deck, split)
        done = 0
        while done < n_deals:
            count = min(n_deals - done, self.sizes.size(sampled.key))
            sampled.launch(shape.view(np.uint8), start + done, count)
            done += count
        return sampled.result()

    # ------------------------------------------------------------ census

    def census(self, first, deals, deck=STANDARD, players=2, split=None, top=10, lay_on=False):
        deck, players, split, sizes = census_order.check_block(first, deals, deck, players, split, top)
        self._table(deck, players, split, lay_on)
        counted = _Counted(self, deck, split, sizes, top)
        done = 0
        while done < deals:
            cards = census_order.unrank(first + done, deck)
            # The longest suffix whose arrangements stay below 2^63: the
            # block runs to its last arrangement (or the census's end), the
            # prefix fixed meanwhile.
            suffix = 1
            while suffix < deck.total and _arrangements(_counts(cards[-suffix - 1:])) < SUFFIX_LIMIT:
                suffix += 1
            tail = cards[-suffix:]
            arrangements = _arrangements(_counts(tail))
            suffix_first = census_order.rank(tail)
            size = min(deals - done, arrangements - suffix_first)
            counted.play_block(cards, suffix, suffix_first, arrangements, first + done, size)
            done += size
        return counted.result(first, deals)


class _Sampled:
    """What the launches of one sample_best call add up to."""

    def __init__(self, engine, seed, min_cards, deck, split):
        self.engine = engine
        self.seed = seed
        self.min_cards = min_cards
        self.deck = deck
        self.split = split
        self.key = ("sample", deck, split)
        self.lengths = np.zeros(lengths.BINS, np.uint64)
        self.hits = []
        self.best = None        # (cards, -index, index, Outcome or None)

    def deal(self, index):
        return Deal.shuffled(2, self.seed, index, self.deck, self.split)

    def launch(self, shape, first, count, part=False):
        counts = np.zeros(lengths.BINS, np.uint64)
        best = np.zeros(1, np.uint64)
        hits, n_hits, seconds = self.engine._run("sample", shape, self.seed, first, count,
                                                 self.min_cards, CAP_TRICKS, counts, best)
        if not part:
            self.engine.sizes.record(self.key, count, seconds, n_hits)
        if n_hits > len(hits):
            for offset, size in _parts(count, n_hits, len(hits)):
                self.launch(shape, first + offset, size, part=True)
            return
        self.lengths += counts
        if best[0]:
            cards = int(best[0]) >> 40
            index = first + (1 << 40) - 1 - (int(best[0]) & ((1 << 40) - 1))
            self._consider(cards, index, None)
        for hit in np.sort(hits[:n_hits], order="offset"):
            index = first + int(hit["offset"])
            if hit["status"] == FINISHED:
                outcome = _finished(hit, self.deck.total, self.engine.NAME)
            else:
                outcome = self.engine._replayed(self.deal(index))
                self.lengths[lengths.bin_of(outcome.cards)] += 1
                self._consider(outcome.cards, index, outcome)
                if outcome.status == "finished" and outcome.cards < self.min_cards:
                    continue
            self.hits.append((self.deal(index), outcome))
            if self.best and self.best[2] == index and self.best[3] is None:
                self.best = self.best[:3] + (outcome,)

    def _consider(self, cards, index, outcome):
        candidate = (cards, -index, index, outcome)
        if self.best is None or candidate[:2] > self.best[:2]:
            self.best = candidate

    def result(self):
        best = None
        if self.best is not None:
            cards, _, index, outcome = self.best
            if outcome is None:
                outcome = self.engine._replayed(self.deal(index))
                if outcome.cards != cards:
                    raise EngineMismatch(f"deal {index} of seed {self.seed}: the {self.engine.NAME} engine "
                                         f"played {cards} cards, the compiled engine {outcome.cards}")
            best = (self.deal(index), outcome)
        return self.hits, best, lengths.Lengths(tuple(int(c) for c in self.lengths))


class _Climbing:
    """A group of walks of the hill climber, played on a backend's launches
    (bg_climb) until each has played its steps: a step whose game does not
    finish on the device (a loop, the cap) is played by the compiled engine
    and taken by climb.h's own code on the host (beggar._gpu_host.climb_accept);
    a walk whose long games found no room among a launch's hits is played
    again, whole, by the compiled engine."""

    def __init__(self, engine, key, first, count):
        from .. import _gpu_host
        from ..climbing import ACCEPTS
        self.engine, self.host = engine, _gpu_host
        self.backend = engine.backend
        self.seed, self.steps, self.min_cards, self.rules, self.deck, self.split = key
        self.first, self.count = first, count
        self.total = self.deck.total
        self.cards = self.backend.walk_cards(self.total)
        rules = self.rules
        self.climb_rules = np.zeros(1, abi.CLIMB_RULES)
        self.climb_rules[0] = (ACCEPTS.index(rules.accept), rules.fitness == "cards", rules.history,
                               rules.swap_percent, rules.patience, self.min_cards, self.steps)
        self.shape = shape_of(self.deck, self.split, self.backend.TOTAL)
        self.key = ("climb", self.deck, self.split)

    def walks(self):
        """{index: climbing.Climb} of the group's walks."""
        from ..shuffle import Stream
        walks = np.zeros(self.count, abi.walk(self.cards))
        walks["rng"] = [Stream(self.seed, self.first + k).state for k in range(self.count)]
        walks["restarts"] = -1
        walks["best_value"] = -1
        history = np.zeros(self.count * self.rules.history, np.int64)
        counted = np.zeros(self.count * lengths.BINS, np.uint32)
        found = [[] for _ in range(self.count)]        # each walk's hits: (step, Deal, Outcome)
        while not ((walks["played"] >= self.steps) | (walks["lost"] != 0)).all():
            budget = max(1, self.engine.sizes.size(self.key) // self.count)
            hits, decks, n_hits, seconds = self.engine._run(
                "climb", self.shape.view(np.uint8), self.climb_rules.view(np.uint8), walks, history, counted,
                budget, CAP_TRICKS)
            self.engine.sizes.record(self.key, budget * self.count, seconds, n_hits)
            for hit, deck in zip(hits[:min(n_hits, len(hits))], decks):
                deal = self._deal(deck, hit["first"])
                found[int(hit["walk"])].append((int(hit["step"]), deal, _finished(hit, self.total, self.engine.NAME)))
            for walk in np.flatnonzero(walks["waiting"]):
                self._host_step(walks, history, counted, int(walk), found[walk])
        climbs = {}
        compiled = self.engine._compiled()
        for k in range(self.count):
            index = self.first + k
            if walks[k]["lost"]:
                # Its long games outgrew a launch's hits: played again whole, exactly.
                climbs[index] = compiled.climb(self.seed, index, self.steps, self.min_cards, self.rules, self.deck,
                                               2, self.split)
            else:
                climbs[index] = self._climb(walks[k], found[k], counted[k * lengths.BINS:(k + 1) * lengths.BINS])
        return climbs

    def _deal(self, cards, first):
        """The deal of a walk's `cards`, its first hand `first` of them."""
        first = int(first)
        return Deal.from_codes([list(cards[:first]), list(cards[first:self.total])])

    def _host_step(self, walks, history, counted, walk, found):
        """The step of walk `walk` whose candidate's game the device left to
        the host: played by the compiled engine, taken by climb.h's code."""
        record = walks[walk]
        deal = self._deal(record["candidate"], record["sizes"][0])
        outcome = self.engine._replayed(deal)
        counted[walk * lengths.BINS + lengths.bin_of(outcome.cards)] += 1
        if outcome.status == "loop" or outcome.cards >= self.min_cards:
            found.append((int(record["played"]), deal, outcome))
        # climb.h's step, on the host build's layout of a walk (its cards are BG_TOTAL long).
        host = np.zeros(1, abi.walk(self.host.TOTAL))
        places = {name: (0, slice(self.cards)) if record.dtype[name].shape[:1] == (self.cards,) else 0
                  for name in record.dtype.names}
        for name, at in places.items():
            host[name][at] = record[name]
        rows = history[walk * self.rules.history:(walk + 1) * self.rules.history]
        status = STATUSES.index(outcome.status)
        self.host.climb_accept(host.view(np.uint8), rows, self.climb_rules.view(np.uint8), self.total, status,
                               -1 if outcome.winner is None else outcome.winner, outcome.cards, outcome.tricks)
        for name, at in places.items():
            walks[name][walk] = host[name][at]

    def _climb(self, record, found, counted):
        """The climbing.Climb of a walk played to its end."""
        from ..climbing import Climb
        found.sort(key=lambda hit: hit[0])
        best = None
        if record["played"]:
            deal = self._deal(record["best"], record["best_sizes"][0])
            if record["best_status"] == FINISHED:
                outcome = _finished({"winner": record["best_winner"], "cards": record["best_cards"],
                                     "tricks": record["best_tricks"]}, self.total, self.engine.NAME)
            else:
                outcome = self.engine._replayed(deal)
            best = (deal, outcome)
        return Climb([(deal, outcome) for _, deal, outcome in found], best, max(int(record["restarts"]), 0),
                     lengths.Lengths(tuple(int(c) for c in counted)))


class EngineMismatch(EngineFault):
    """The GPU engine and the compiled engine disagree on a game: a bug to report."""


def _finished(hit, total, name):
    winner = int(hit["winner"])
    counts = tuple(total if p == winner else 0 for p in range(2))
    return Outcome("finished", winner, int(hit["cards"]), int(hit["tricks"]), counts, engine=name)


class _Counted:
    """What the launches of one census call add up to."""

    def __init__(self, engine, deck, split, sizes, top):
        self.engine = engine
        self.backend = engine.backend
        self.deck = deck
        self.split = split
        self.key = ("census", deck, split)
        self.top = top
        histogram = self.backend.HISTOGRAM
        self.cards = np.zeros(histogram, np.uint64)
        self.tricks = np.zeros(histogram, np.uint64)
        self.long_cards = Counter()       # lengths the device's histograms do not hold
        self.long_tricks = Counter()
        self.statuses = {"finished": 0, "loop": 0, "stopped": 0}
        self.longest = []       # (cards, rank, Deal or None, Outcome), longest first, earlier on a tie
        self.loops = []
        block = np.zeros(1, abi.block(self.backend.TOTAL))
        block["total"] = deck.total
        block["first_hand"] = sizes[0]
        block["ring"] = ring_of(deck)
        block["steps"] = steps_between(deck, split)
        # Deal the card numbers themselves: slot s of the deal gets card number n.
        target = [0] * deck.total
        for slot, number in enumerate(n for hand in deal_out(range(deck.total), sizes) for n in hand):
            target[number] = slot
        block["target"][0, :deck.total] = target
        self.block = block

    def threshold(self):
        if self.top == 0:
            return 2 ** 62
        if len(self.longest) < self.top:
            return 0
        return self.longest[-1][0] + 1

    def play_block(self, cards, suffix, suffix_first, arrangements, rank, size):
        block = self.block
        block["suffix"] = suffix
        block["suffix_arrangements"] = arrangements
        block["suffix_counts"][0] = _counts(cards[-suffix:])
        block["prefix"][0, :self.deck.total - suffix] = cards[:-suffix]
        done = 0
        while done < size:
            # While the longest games are not yet known every finished game
            # is a candidate: launch no more than the buffer holds.
            limit = self.engine.sizes.size(self.key)
            if not self.threshold():
                limit = min(limit, self.backend.CAPACITY)
            count = min(size - done, limit)
            self._launch(suffix_first + done, rank + done, count)
            done += count

    def _launch(self, suffix_first, rank, count, part=False):
        self.block["suffix_first"] = suffix_first
        cards = np.zeros(self.backend.HISTOGRAM, np.uint64)
        tricks = np.zeros(self.backend.HISTOGRAM, np.uint64)
        threshold = self.threshold()
        hits, n_hits, seconds = self.engine._run("census", self.block.view(np.uint8), count,
                                                 threshold, CAP_TRICKS, cards, tricks)
        if not part:
            self.engine.sizes.record(self.key, count, seconds, n_hits)
        if n_hits > len(hits):
            for offset, size in _parts(count, n_hits, len(hits)):
                self._launch(suffix_first + offset, rank + offset, size, part=True)
            return
        self.cards += cards
        self.tricks += tricks
        # Finished games the device counted; the others are hits.
        self.statuses["finished"] += int(cards.sum())
        hits = np.sort(hits[:n_hits], order="offset")
        finished = hits["status"] == FINISHED
        histogram = self.backend.HISTOGRAM
        for hit in hits[finished & ((hits["cards"] >= histogram) | (hits["tricks"] >= histogram))]:
            self.statuses["finished"] += 1
            self.long_cards[int(hit["cards"])] += 1
            self.long_tricks[int(hit["tricks"])] += 1
        for hit in hits[~finished]:
            self._replay(rank + int(hit["offset"]))
        if self.top:
            candidates = hits[finished & (hits["cards"] >= threshold)]
            for hit in candidates[np.lexsort((candidates["offset"], -candidates["cards"]))[:self.top]]:
                self._candidate(int(hit["cards"]), rank + int(hit["offset"]), None,
                                _finished(hit, self.deck.total, self.engine.NAME))

    def _replay(self, rank):
        """A loop or capped game, played again by the compiled engine's census."""
        played = self.engine._compiled().census(rank, 1, self.deck, 2, self.split, 1)
        for status, n in played.statuses.items():
            self.statuses[status] += n
        self.long_cards.update(played.cards)
        self.long_tricks.update(played.tricks)
        name = self.engine.NAME
        self.loops.extend((r, deal, replace(outcome, engine=name), key) for r, deal, outcome, key in played.loops)
        for r, deal, outcome in played.longest:
            self._candidate(outcome.cards, r, deal, replace(outcome, engine=name))

    def _candidate(self, cards, rank, deal, outcome):
        if self.top == 0:
            return
        self.longest.append((cards, rank, deal, outcome))
        self.longest.sort(key=lambda game: (-game[0], game[1]))
        del self.longest[self.top:]

    def result(self, first, deals):
        cards = Counter({int(n): int(self.cards[n]) for n in np.flatnonzero(self.cards)}) + self.long_cards
        tricks = Counter({int(n): int(self.tricks[n]) for n in np.flatnonzero(self.tricks)}) + self.long_tricks
        longest = [(rank, deal if deal is not None else _census_deal(rank, self.deck, self.split), outcome)
                   for _, rank, deal, outcome in self.longest]
        return CensusBlock(first, deals, dict(self.statuses), dict(cards), dict(tricks), longest, list(self.loops))


def once(tried):
    """The tries to play again of TRIED rows (absolute tries): each new
    cycle's earliest, and every game that reached the cap; sorted."""
    capped = tried["offset"][tried["cycle"] == 0]
    cycles = tried[tried["cycle"] != 0]
    cycles = cycles[np.lexsort((cycles["offset"], cycles["cycle"]))]
    first = np.ones(len(cycles), bool)
    first[1:] = cycles["cycle"][1:] != cycles["cycle"][:-1]
    return sorted(int(t) for t in np.concatenate([capped, cycles["offset"][first]]))


def _parts(count, n_hits, capacity):
    """A launch of `count` deals whose `n_hits` hits overflowed a buffer of
    `capacity`, cut into parts that each fit it with room to spare:
    [(offset, deals)]."""
    parts = min(count, -(-2 * n_hits // capacity))
    edges = [count * k // parts for k in range(parts + 1)]
    return [(a, b - a) for a, b in zip(edges, edges[1:]) if b > a]


def _power_above(n):
    """The least power of two, at least 2, that is n or more."""
    return max(2, 1 << (int(n) - 1).bit_length())


def _census_deal(rank, deck, split):
    return Deal.from_codes(deal_out(census_order.unrank(rank, deck), hand_sizes(deck.total, 2, split)))
