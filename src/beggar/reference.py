"""The reference engine: the rules of docs/rules.md written plainly in Python.

Slow and obviously right. It is the specification in code: the compiled engine
must give the same results, and every hit a search reports is replayed here.
Loops are found by Brent's method over the states at an empty table, which
keeps one state however long the game: its memory is the deal's, never the
game's. The loop it finds is then located exactly by replaying the deal.
"""

import itertools
import heapq
import math
import time
from collections import Counter, deque

from .cards import CODES
from .deal import Deal, check_play
from .outcome import STATUSES, Outcome
from .rules import Rules
from .climbing import SECONDARY_BITS, Climb, check_climb, fitness
from .lengths import Lengths
from .states import GUIDES, CensusBlock, Reached, Trick, check_bounds, check_search, check_sizes, check_state
from .census import check_block, next_arrangement, unrank
from .cycle import state_key, walk
from .decks import STANDARD, check_table, deal_out
from .shuffle import Stream, check_sample, deal_from

NAME = "reference"


class _Game:
    """A game in play: every hand (top card first), who leads the next trick,
    and the cards and tricks played so far, under the standard trick or lay-on (Rules)."""

    def __init__(self, deal, lay_on=False):
        self.hands = [deque(hand) for hand in deal.hands]
        self.lay_on = lay_on
        self.leader = 0
        self.cards = self.tricks = 0
        self.total = deal.total

    def trick(self):
        """Play the next trick from the empty table; return its pile."""
        taker, pile = _play_trick(self.hands, self.leader, self.lay_on)
        self.leader = taker
        self.cards += len(pile)
        self.tricks += 1
        return pile

    def finished(self):
        """One player holds every card."""
        return len(self.hands[self.leader]) == self.total

    def same_state(self, other):
        """The same state at the empty table: every hand, card by card, and who leads."""
        return self.leader == other.leader and self.hands == other.hands

    def counts(self):
        return tuple(len(hand) for hand in self.hands)

    def copy(self):
        game = _Game.__new__(_Game)
        game.hands = [deque(hand) for hand in self.hands]
        game.leader, game.cards, game.tricks, game.total = self.leader, self.cards, self.tricks, self.total
        game.lay_on = self.lay_on
        return game


def tricks(deal, lay_on=False):
    """Yield the Trick records of a deal's game, to its finish or forever."""
    game = _Game(deal, lay_on)
    while True:
        leader = game.leader
        pile = game.trick()
        yield Trick(leader, pile, game.leader, tuple(bytes(hand) for hand in game.hands))
        if game.finished():
            return


def play(deal, rules=Rules()):
    """Play one deal under `rules` and return its Outcome."""
    check_play(deal, rules)
    game = _Game(deal, rules.lay_on)
    # Brent's method: keep one state, the snapshot (at first the deal itself).
    # A game that comes back to it loops, and the tricks since it was taken
    # are the loop's period. The snapshot moves on to the state of the moment
    # after 1, 2, 4, 8 ... tricks, so a loop is met within twice its entry
    # and period, and no other state is ever kept.
    snapshot, since, power = game.copy(), 0, 1
    while True:
        game.trick()
        if game.finished():
            return Outcome("finished", game.leader, game.cards, game.tricks, game.counts(), engine=NAME)
        if rules.detect_loops:
            since += 1
            if game.same_state(snapshot):
                return _loop(deal, since, rules.lay_on)
            if since == power:
                snapshot, since, power = game.copy(), 0, 2 * power
        if (rules.max_cards is not None and game.cards >= rules.max_cards) or \
                (rules.max_tricks is not None and game.tricks >= rules.max_tricks):
            loop = _loop_by_now(deal, game) if rules.detect_loops else None
            if loop is not None:
                return loop
            counts = game.counts()
            most = max(counts)
            winner = counts.index(most) if counts.count(most) == 1 else None
            return Outcome("stopped", winner, game.cards, game.tricks, counts, engine=NAME)


def _loop(deal, period, lay_on):
    """The loop of a deal whose period (in tricks) is known. Replay the game
    twice, one period apart: the first state they share is where the loop is
    entered, and the game ahead is then at the loop's first repeat, where a
    loop is counted."""
    entry, repeat = _Game(deal, lay_on), _Game(deal, lay_on)
    for _ in range(period):
        repeat.trick()
    while not repeat.same_state(entry):
        entry.trick()
        repeat.trick()
    return Outcome("loop", None, repeat.cards, repeat.tricks, repeat.counts(), (entry.tricks, entry.cards),
                   (period, repeat.cards - entry.cards), engine=NAME)


def _loop_by_now(deal, game):
    """A game at its limit, T tricks in, before Brent's method met a loop: it
    is a loop if some state has repeated by trick T. Then the state at T is on
    the loop, and comes back within T tricks: play on from it that far, and
    if it comes back, the loop counts when its first repeat is no later than
    T. The loop's Outcome, or None."""
    ahead = game.copy()
    for period in range(1, game.tricks + 1):
        ahead.trick()
        if ahead.finished():
            return None
        if ahead.same_state(game):
            loop = _loop(deal, period, game.lay_on)
            return loop if loop.tricks <= game.tricks else None
    return None


def _play_trick(hands, leader, lay_on=False):
    """Play one trick from an empty table; return (who took the pile, the pile).
    Under lay-on the player to move lays on until he turns up a court card."""
    still_in = [len(hand) > 0 for hand in hands]
    pile = []
    player = leader
    owed = 0            # penalty cards still to pay; 0 when none is running
    court_player = None  # who laid the court card being paid for
    while True:
        if not hands[player]:
            # He must lay a card and has none: he is out. The next player still
            # in carries on, taking over whatever was still owed.
            still_in[player] = False
            if still_in.count(True) == 1:
                taker = still_in.index(True)
                break
            player = _next_in(still_in, player)
            continue
        card = hands[player].popleft()
        pile.append(card)
        if card:
            owed = card
            court_player = player
            player = _next_in(still_in, player)
        elif owed:
            owed -= 1
            if owed == 0:
                taker = court_player
                break
        elif not lay_on:
            player = _next_in(still_in, player)
    hands[taker].extend(pile)
    return taker, tuple(pile)


def _next_in(still_in, player):
    n = len(still_in)
    player = (player + 1) % n
    while not still_in[player]:
        player = (player + 1) % n
    return player


def play_batch(decks, split=None, rules=Rules()):
    """Play many two-player deals given as rows of card codes.

    decks: uint8 array (n, total) of codes 0-4. split: cards in the first
    hand, an int or an array of n ints (default total // 2). Returns the
    structured array of batch.BATCH_DTYPE, one row per deal.
    """
    from .batch import batch_array, check_batch, store_row     # NumPy only where batches are used
    decks, splits = check_batch(decks, split)
    out = batch_array(len(decks))
    for i, (row, s) in enumerate(zip(decks, splits)):
        deal = Deal.from_codes((row[:s], row[s:]))
        store_row(out, i, play(deal, rules))
    return out


def sample(n_deals, seed=1, min_cards=3000, start=0, deck=STANDARD, players=2, split=None, lay_on=False):
    """Play deals start .. start+n_deals-1 of `seed` (Deal.shuffled of `deck`,
    `players` and `split`) and return [(deal, outcome)] for each game of at
    least `min_cards` cards or a loop."""
    return sample_best(n_deals, seed, min_cards, start, deck, players, split, lay_on)[0]


def sample_best(n_deals, seed=1, min_cards=3000, start=0, deck=STANDARD, players=2, split=None, lay_on=False):
    """sample(), the longest game played and the lengths of all: (hits, (deal,
    outcome) or None, lengths.Lengths). The earliest deal wins a tie."""
    check_sample(n_deals, seed, min_cards, start)
    deck, players, split = check_table(deck, players, split)
    hits, best, played = [], None, []
    rules = Rules(lay_on=bool(lay_on))     # any truth value, as the compiled engine's bint reads it
    for index in range(start, start + n_deals):
        deal = Deal.shuffled(players, seed, index, deck, split)
        outcome = play(deal, rules)
        played.append(outcome.cards)
        if outcome.status == "loop" or outcome.cards >= min_cards:
            hits.append((deal, outcome))
        if best is None or outcome.cards > best[1].cards:
            best = (deal, outcome)
    return hits, best, Lengths.of(played)


def climb(seed, index, steps, min_cards, rules, deck=STANDARD, players=2, split=None, lay_on=False):
    """Walk `index` of `seed`: `steps` deals of `deck`, `players` and `split`
    played by a hill climber under ClimbRules `rules` (see climbing.py);
    returns a Climb."""
    deck, players, split = check_climb(seed, index, steps, min_cards, rules, deck, players, split)
    stream = Stream(seed, index)
    played_under = Rules(lay_on=bool(lay_on))
    hits, best, restarts = [], None, -1
    played = 0
    sizes = None
    lengths = []

    def evaluate(cards):
        nonlocal best, played
        ends = list(itertools.accumulate(sizes))
        deal = Deal.from_codes([cards[end - size:end] for size, end in zip(sizes, ends)])
        outcome = play(deal, played_under)
        played += 1
        lengths.append(outcome.cards)
        if outcome.status == "loop" or outcome.cards >= min_cards:
            hits.append((deal, outcome))
        value = fitness(outcome, rules.fitness)
        if best is None or value > best[0]:
            best = (value, deal, outcome)
        return value, outcome

    while played < steps:
        # A fresh walk: a random deal, and its fitness as the one to beat.
        restarts += 1
        # Its hands are dealt as Deal.shuffled deals them, and kept one after
        # another: mutations move cards within and across hands, sizes stay.
        hands = deal_from(stream, deck, players, split)
        sizes = [len(hand) for hand in hands]
        current = [card for hand in hands for card in hand]
        current_value, current_outcome = evaluate(current)
        walk_best, stale, k = current_value, 0, 0
        history = [current_value] * rules.history
        while played < steps and stale < rules.patience:
            candidate = list(current)
            _mutate(candidate, stream, rules.swap_percent)
            value, outcome = evaluate(candidate)
            k += 1
            if _accepts(rules, value, current_value, outcome, current_outcome, history, k, stream):
                current, current_value, current_outcome = candidate, value, outcome
            if rules.accept == "late":
                history[k % rules.history] = current_value
            if current_value > walk_best:
                walk_best, stale = current_value, 0
            else:
                stale += 1
    return Climb(hits, best[1:] if best else None, max(restarts, 0), Lengths.of(lengths))


def _mutate(deck, stream, swap_percent):
    """Swap two cards of different rank, or move a court card elsewhere."""
    if stream.below(100) < swap_percent:
        i = stream.below(len(deck))
        j = stream.below(len(deck))
        while deck[j] == deck[i]:
            j = stream.below(len(deck))
        deck[i], deck[j] = deck[j], deck[i]
    else:
        courts = [position for position, card in enumerate(deck) if card]
        i = courts[stream.below(len(courts))]
        j = stream.below(len(deck) - 1)
        if j >= i:
            j += 1          # never back to where it was
        card = deck.pop(i)
        deck.insert(j, card)


def _accepts(rules, value, current_value, outcome, current_outcome, history, k, stream):
    if value >= current_value:
        return rules.accept != "strict" or value > current_value
    if rules.accept == "anneal":
        worse = (current_value >> SECONDARY_BITS) - (value >> SECONDARY_BITS)
        temperature = rules.temperature / (1 + k / rules.patience)
        return stream.next32() < math.exp(-worse / temperature) * 4294967296.0
    if rules.accept == "late":
        return value >= history[k % rules.history]
    return False


def predecessors(hands, leader):
    """Every state at an empty table whose next trick leads to (hands,
    leader): [(hands, leader, cards laid in that trick)]. 2 to 4 players;
    an empty hand is a player who is out.

    That trick's pile is a suffix of the leader's hand (he took it). For each
    suffix length, each player who may have led the trick and each set of the
    players now out who may still have been in before it (each laid at least
    one card, his last, in that trick), the suffix is laid again by the trick
    rules: a predecessor when the trick ends exactly on its last card with the
    leader of now taking it, either because the penalty is paid and he laid
    the last court card, or because every other player ran out. A player now
    out who was in may, at each of his turns after his first card, have run
    out instead of laying: both are followed, running out first. Each player's
    cards from the trick go back on top of his hand. The order is by suffix
    length, then the trick's leader, then the set of players now out who were
    in (as a bit mask, ascending), then running out before laying.
    """
    return _predecessors(*check_state(hands, leader))


def _predecessors(hands, taker):
    """predecessors() of a checked state (states.check_state)."""
    hands = list(hands)
    players = len(hands)
    mine = hands[taker]
    out = [p for p in range(players) if not hands[p]]
    found = []
    for size in range(1, len(mine) + 1):
        pile = mine[len(mine) - size:]
        for first in range(players):
            for mask in range(1 << len(out)):
                back_in = [p for bit, p in enumerate(out) if mask >> bit & 1]
                still_in = [bool(hands[p]) or p in back_in for p in range(players)]
                if not still_in[first] or sum(still_in) < 2:
                    continue
                for laid in _lay_again(pile, first, taker, still_in, back_in):
                    before = [tuple(laid[p]) + hand for p, hand in enumerate(hands)]
                    before[taker] = tuple(laid[taker]) + mine[:len(mine) - size]
                    if before[taker]:
                        found.append((tuple(before), first, size))
    return found


def _lay_again(pile, first, taker, still_in, back_in):
    """Every way to lay `pile` by the trick rules, `first` leading, the
    players `still_in` at its start, those of `back_in` (now out) each laying
    at least one card and running out or ending the trick with none: each
    player's cards in the order laid, one list per way, when the trick ends
    exactly with the pile and `taker` takes it."""
    ways = []

    def lay(k, player, owed, court_player, still_in, laid):
        while True:
            if player in back_in and laid[player]:
                # He may have had no card left: he is out, and the next player
                # still in carries on (taking over what was owed).
                gone = list(still_in)
                gone[player] = False
                if gone.count(True) == 1:
                    if k == len(pile) and gone[taker]:
                        _keep_way(laid)
                else:
                    lay(k, _next_in(gone, player), owed, court_player, gone, [list(cards) for cards in laid])
            if k == len(pile):
                return
            card = pile[k]
            laid[player].append(card)
            k += 1
            if card:
                owed, court_player = card, player
                player = _next_in(still_in, player)
            elif owed:
                owed -= 1
                if owed == 0:
                    if k == len(pile) and court_player == taker:
                        _keep_way(laid)
                    return
            else:
                player = _next_in(still_in, player)

    def _keep_way(laid):
        if all(laid[p] for p in back_in):
            ways.append([list(cards) for cards in laid])

    lay(0, first, 0, None, still_in, [[] for _ in still_in])
    return ways


def backward(roots, skips, max_states, max_seconds):
    """Breadth-first over every state that leads to one of `roots` (states as
    (hands, leader)); skips[i] (a state, or None) is a predecessor of roots[i]
    not to follow. Returns (states visited, [Reached] of the balanced ones, with
    cards and tricks to their root, stopped_by): stopped_by is None when the
    search is complete, else "states" or "time" (processor seconds), the bound
    that stopped it first."""
    roots, skip = check_search(roots, skips, 2)
    visited, balanced, stopped_by, _ = _search(roots, skip, _GUIDE_RANKS["breadth"], None, max_states, max_seconds,
                                               lambda found: found[0] == found[1])
    return visited, balanced, stopped_by


def backward_to(roots, skips, sizes, guide, max_states, max_seconds):
    """Best first over every state, of any number of players, that leads to
    one of `roots` (states as (hands, leader)); skips[i] (a state, or None) is
    a predecessor of roots[i] not to follow. The next state visited is the
    one the `guide` (states.GUIDES) ranks first, the earliest found on a tie:
    "breadth" ranks them all alike (breadth first), "smallest" prefers the
    larger smallest hand, "balance" the fewer cards away from `sizes` (the
    hands' sizes counted from the leader). Returns (states visited, [Reached]
    of the states whose hands have `sizes` from the leader, stopped_by (as
    backward), the Reached visited with every player in and the largest
    smallest hand, the earliest on a tie, or None)."""
    if not isinstance(guide, str) or guide not in GUIDES:
        raise ValueError(f"guide must be one of {', '.join(GUIDES)}, not {guide!r}")
    sizes = check_sizes(sizes)
    players = len(sizes)
    roots, skip = check_search(roots, skips, players)
    return _search(roots, skip, _GUIDE_RANKS[guide], sizes, max_states, max_seconds,
                   lambda found: found == sizes)


def _search(roots, skip, rank, sizes, max_states, max_seconds, wanted):
    """backward_to() over checked roots and skips: the next state visited the
    one `rank` ranks first, the earliest found on a tie (breadth first when
    it ranks all alike); a state is kept when `wanted(its hands' sizes from
    the leader)`."""
    max_states, max_seconds = check_bounds(max_states, max_seconds)
    heap, made = [], 0
    for hands, leader in roots:
        state = Reached(hands, leader, 0, 0)
        heapq.heappush(heap, (rank(state.hands, state.leader, sizes), made, state))
        made += 1
    visited, hits, best, most = 0, [], None, 0
    deadline = time.process_time() + max_seconds
    while heap:
        if visited == max_states:
            return visited, hits, "states", best
        if visited % 4096 == 0 and time.process_time() > deadline:
            return visited, hits, "time", best
        _, number, state = heapq.heappop(heap)
        visited += 1
        smallest = min(len(hand) for hand in state.hands)
        if smallest > most:
            best, most = state, smallest
        players = len(state.hands)
        if wanted([len(state.hands[(state.leader + i) % players]) for i in range(players)]):
            hits.append(state)
        for hands, leader, size in _predecessors(state.hands, state.leader):
            if number < len(skip) and (hands, leader) == skip[number]:
                continue
            heapq.heappush(heap, (rank(hands, leader, sizes), made,
                                  Reached(hands, leader, state.cards + size, state.tricks + 1)))
            made += 1
    return visited, hits, None, best


_GUIDE_RANKS = {
    "breadth": lambda hands, leader, sizes: 0,
    "smallest": lambda hands, leader, sizes: -min(len(hand) for hand in hands),
    "balance": lambda hands, leader, sizes: sum(abs(len(hands[(leader + i) % len(hands)]) - size)
                                                for i, size in enumerate(sizes)),
}


def census(first, deals, deck=STANDARD, players=2, split=None, top=10, lay_on=False):
    """Play the arrangements of `deck` with ranks first .. first+deals-1
    (census.py), dealt to `players` (and `split`); returns a states.CensusBlock."""
    deck, players, split, sizes = check_block(first, deals, deck, players, split, top)
    statuses = dict.fromkeys(STATUSES, 0)
    cards_seen, tricks_seen = Counter(), Counter()
    longest, loops = [], []
    cards = unrank(first, deck)
    rules = Rules(lay_on=bool(lay_on))
    for offset in range(deals):
        if offset:
            next_arrangement(cards)
        deal = Deal.from_codes(deal_out(cards, sizes))
        outcome = play(deal, rules)
        statuses[outcome.status] += 1
        cards_seen[outcome.cards] += 1
        tricks_seen[outcome.tricks] += 1
        if outcome.status != "loop":
            longest.append((first + offset, deal, outcome))
            if len(longest) > 2 * top + 64:     # keep the list short as it grows
                longest = _longest(longest, top)
        else:
            loops.append((first + offset, deal, outcome, _loop_key(deal, outcome, rules.lay_on)))
    return CensusBlock(first, deals, statuses, dict(cards_seen), dict(tricks_seen), _longest(longest, top), loops)


def _longest(games, top):
    return sorted(games, key=lambda game: (-game[2].cards, game[0]))[:top]


def _loop_key(deal, outcome, lay_on=False):
    """The least state on the deal's cycle (cycle.state_key), from this
    engine's own trace: the key the compiled engine's census is held to."""
    return min(state_key(hands, leader) for hands, leader in _cycle(deal, outcome, lay_on))


def _cycle(deal, outcome, lay_on=False):
    """The states on the cycle of a looping deal's game, from this engine's own trace."""
    period = outcome.loop_period[0]
    return walk(deal, tricks(deal, lay_on), outcome.loop_entry[0], period)[:period]


# ---------------------------------------------------------------- the loop factory's leaves

# Written from docs/loops.md's words, apart from the C that the compiled engine
# and the kernels share (c/perturb.h, c/hash.h): the tests hold that C to these.

_FNV_START, _FNV_PRIME, _MASK64 = 0xCBF29CE484222325, 0x100000001B3, (1 << 64) - 1


#: The kinds of change a perturbation walk's moves draw from, as (the first
#: kind, how many): "small", the four of _change; "wide", those and the three
#: of _wide_change; each kind alone by its name.
MOVES = {"small": (0, 4), "wide": (0, 7), "swap": (0, 1), "move": (1, 1), "court": (2, 1), "split": (3, 1),
         "block": (4, 1), "turn": (5, 1), "splice": (6, 1)}


def perturbed(pool, walk_seed, t, changes=2, reach=3, moves="small"):
    """Try `t` of a perturbation walk whose pool is `pool` (states as (cards,
    n0): the deal a state stands for, its leader's n0 cards first): from the
    stream of (walk_seed, t), a state of the pool drawn, then how many
    changes (1 to `changes`), then each change, of the first kind of
    MOVES[moves] plus a draw from range(its kinds). Returns the try's (cards, n0); it is a game when
    both hands hold a card."""
    stream = Stream(walk_seed, t)
    cards, n0 = pool[stream.below(len(pool))]
    cards = list(cards)
    for _ in range(1 + stream.below(changes)):
        first, kinds = MOVES[moves]
        kind = first + stream.below(kinds)
        if kind < 4:
            n0 = _change(stream, cards, n0, reach, kind)
        else:
            _wide_change(stream, cards, reach, kind, pool)
    return cards, n0


def _wide_change(stream, cards, reach, kind, pool):
    """One wide change of the cards (the split kept), of kind 4 to 6."""
    n = len(cards)
    if kind == 4:
        # A block of 2 to reach + 1 cards taken out and put back elsewhere.
        length = min(2 + stream.below(reach), n - 1)
        i, j = stream.below(n - length + 1), stream.below(n - length + 1)
        block = cards[i:i + length]
        del cards[i:i + length]
        cards[j:j] = block
    elif kind == 5:
        # A segment of 2 to 2 * reach + 1 cards turned: its r-th card first.
        length = min(2 + stream.below(2 * reach), n)
        i = stream.below(n - length + 1)
        r = 1 + stream.below(length - 1)
        cards[i:i + length] = cards[i + r:i + length] + cards[i:i + r]
    else:
        # Spliced with another state of the pool: a run kept, the other
        # places filled with the other state's cards in its order, each rank
        # as many times as the run leaves of the deck's.
        other = pool[stream.below(len(pool))][0]
        length = 1 + stream.below(n - 1)
        i = stream.below(n - length + 1)
        left = [list(other).count(rank) - cards[i:i + length].count(rank) for rank in range(CODES)]
        fill = []
        for card in other:
            if left[card]:
                left[card] -= 1
                fill.append(card)
        cards[:i], cards[i + length:] = fill[:i], fill[i:]


def _change(stream, cards, n0, reach, kind):
    """One small change of the state (cards, n0), of kind 0 to 3; the cards
    change in place, the new n0 is returned."""
    n = len(cards)
    if kind == 0:
        # Two cards of different rank swapped: up to 64 draws of two places.
        for _ in range(64):
            i, j = stream.below(n), stream.below(n)
            if cards[i] != cards[j]:
                cards[i], cards[j] = cards[j], cards[i]
                break
    elif kind == 1:
        # A card moved into the other hand, at one of its places, its top to its bottom.
        i = stream.below(n)
        card = cards.pop(i)
        if i < n0:
            n0 -= 1
            cards.insert(n0 + stream.below(n - n0), card)
        else:
            cards.insert(stream.below(n0 + 1), card)
            n0 += 1
    elif kind == 2:
        # A court card (places drawn until one holds one) moved 1 to `reach`
        # places later (a draw of 1) or earlier (0), within the deal.
        i = stream.below(n)
        while not cards[i]:
            i = stream.below(n)
        d = 1 + stream.below(reach)
        j = min(max(i + d if stream.below(2) else i - d, 0), n - 1)
        cards.insert(j, cards.pop(i))
    else:
        # The split shifted by 1 to 3 cards: the leader given more (a draw of 1) or fewer (0).
        d = 1 + stream.below(3)
        n0 = min(max(n0 + d if stream.below(2) else n0 - d, 1), n - 1)
    return n0


def state_hash(cards, n0):
    """A two-player state's hash (the deal it stands for: the leader's n0
    cards first): 64-bit FNV-1a over each hand's pieces in turn, a piece
    being a run of plain cards and the court card that ends it (run * 8 +
    court; the trailing plain cards a last piece of court 0), each hand
    followed by the mark 0xFFFF."""
    h = _FNV_START
    for hand in (cards[:n0], cards[n0:]):
        run = 0
        pieces = []
        for card in hand:
            if card:
                pieces.append(run * 8 + card)
                run = 0
            else:
                run += 1
        for word in [*pieces, run * 8, 0xFFFF]:
            h = ((h ^ word) * _FNV_PRIME) & _MASK64
    return h


def cycle_hash(deal):
    """A two-player loop's identity: the least state_hash of the states of the
    cycle that `deal`'s game falls into (ValueError if it does not loop)."""
    outcome = play(deal)
    if outcome.status != "loop":
        raise ValueError(f"deal {deal}: its game does not loop")
    return min(state_hash([*hands[leader], *hands[1 - leader]], len(hands[leader]))
               for hands, leader in _cycle(deal, outcome))
