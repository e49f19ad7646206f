"""The reference engine: the rules of DESIGN.md section 1 written plainly in Python.

Slow and obviously right. It is the specification in code: the compiled engine
must give the same results, and every hit a search reports is replayed here.
Loop detection keeps every state at an empty table in a dictionary, which is
exact by construction.
"""

from collections import deque
from typing import NamedTuple

from .deal import Deal
from .batch import batch_array, check_batch, check_count, store_row
from .outcome import Outcome
from .rules import Rules
from .shuffle import check_seed

NAME = "reference"


class Trick(NamedTuple):
    """One trick: who led it, the pile in the order laid, who took it, and every
    hand (codes, top card first) once the pile was taken."""
    leader: int
    pile: tuple
    taker: int
    hands: tuple


def tricks(deal):
    """Yield the Trick records of a deal's game, to its finish or forever."""
    hands = [deque(hand) for hand in deal.hands]
    leader = 0
    while True:
        taker, pile = _play_trick(hands, leader)
        yield Trick(leader, pile, taker, tuple(bytes(hand) for hand in hands))
        leader = taker


def play(deal, rules=Rules()):
    """Play one deal under `rules` and return its Outcome."""
    cards = played = 0
    seen = {(tuple(bytes(hand) for hand in deal.hands), 0): (0, 0)}
    for trick in tricks(deal):
        cards += len(trick.pile)
        played += 1
        counts = tuple(len(hand) for hand in trick.hands)
        if counts[trick.taker] == sum(counts):
            return Outcome("finished", trick.taker, cards, played, counts, engine=NAME)
        if rules.detect_loops:
            # The state a loop repeats: every hand by rank, and who leads.
            state = (trick.hands, trick.taker)
            if state in seen:
                entry = seen[state]
                period = (played - entry[0], cards - entry[1])
                return Outcome("loop", None, cards, played, counts, entry, period, engine=NAME)
            seen[state] = (played, cards)
        if (rules.max_cards is not None and cards >= rules.max_cards) or \
                (rules.max_tricks is not None and played >= rules.max_tricks):
            most = max(counts)
            winner = counts.index(most) if counts.count(most) == 1 else None
            return Outcome("stopped", winner, cards, played, counts, engine=NAME)


def _play_trick(hands, leader):
    """Play one trick from an empty table; return (who took the pile, the pile)."""
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
        else:
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
    decks, splits = check_batch(decks, split)
    out = batch_array(len(decks))
    for i, (row, s) in enumerate(zip(decks, splits)):
        deal = Deal.from_codes((row[:s], row[s:]))
        store_row(out, i, play(deal, rules))
    return out


def sample(n_deals, seed=1, min_cards=3000, start=0):
    """Play deals start .. start+n_deals-1 of `seed` (26/26, see Deal.shuffled)
    and return [(deal, outcome)] for each game of at least `min_cards` cards or
    a loop."""
    check_seed(seed)
    check_count(n_deals, "n_deals")
    check_count(start, "start")
    check_count(min_cards, "min_cards")
    hits = []
    for index in range(start, start + n_deals):
        deal = Deal.shuffled(2, seed, index)
        outcome = play(deal)
        if outcome.status == "loop" or outcome.cards >= min_cards:
            hits.append((deal, outcome))
    return hits

