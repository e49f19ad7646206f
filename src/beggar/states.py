"""The plain records both engines return: a trick of a traced game, a state
reached by backward play, the result of a census block; and the checks every
state given to an engine passes, in both engines alike. Neutral ground, so
that neither engine imports the other."""

from dataclasses import dataclass
from typing import NamedTuple

from .checks import MAX_COUNT, listed, seconds, whole
from .deal import MAX_CARDS, DealError, codes_of
from .errors import BadInput


class StateError(BadInput, ValueError):
    """A state (hands at an empty table and who leads), or a state's key,
    that cannot be played or read; the message says what and where."""


class Trick(NamedTuple):
    """One trick: who led it, the pile in the order laid, who took it, and every
    hand (codes, top card first) once the pile was taken."""
    leader: int
    pile: tuple
    taker: int
    hands: tuple


#: How a best-first backward search (backward_to) ranks the states it found:
#: all alike (breadth first), by the largest smallest hand, or by the fewest
#: cards away from the sizes it looks for.
GUIDES = ("breadth", "smallest", "balance")


class Reached(NamedTuple):
    """A state a backward search reached: hands (codes, top card first), who
    leads, and the cards and tricks from it to the search's root."""
    hands: tuple
    leader: int
    cards: int
    tricks: int


@dataclass(frozen=True)
class CensusBlock:
    """What playing the arrangements first .. first+deals-1 of a deck gave
    (census.py): games by status, the histograms of game lengths in cards and
    in tricks ({length: games}), the `top` longest finished games [(rank,
    Deal, Outcome)], longest first (the earlier rank first on a tie), and
    every loop deal [(rank, Deal, Outcome, canonical state key)] in rank order."""
    first: int
    deals: int
    statuses: dict
    cards: dict
    tricks: dict
    longest: list
    loops: list


def check_state(hands, leader, players=None, where="the state"):
    """(hands as tuples of codes, leader) when `hands` are 2-4 hands of codes
    0-4 (`players` of them, when given), an empty hand a player who is out,
    and `leader` the number of a hand that holds a card (he took the last
    trick); else StateError naming `where`."""
    try:
        hands = codes_of(hands)
    except DealError as error:
        raise StateError(f"{where}: {error}".replace("a deal has", "a state has")) from None
    if players is not None and len(hands) != players:
        raise StateError(f"{where}: a state of {len(hands)} players, not {players}")
    if isinstance(leader, bool) or not isinstance(leader, int) or not 0 <= leader < len(hands):
        raise StateError(f"{where}: the leader is the number of a hand, 0 to {len(hands) - 1}, not {leader!r}")
    if not hands[leader]:
        raise StateError(f"{where}: the leader's hand (hand {leader + 1}) is empty; he took the last trick, "
                         "so he holds a card")
    return hands, int(leader)


def check_search(roots, skips, players=None):
    """The roots and skips of a backward search, checked as both engines take
    them: ([(hands, leader)], [(hands, leader) or None]), every state of one
    table (`players` hands when given, else those of the first root) and of
    one number of cards, a skip for each root; StateError otherwise."""
    roots, skips = (listed(states, lambda: StateError("roots and skips are lists of states (hands, leader)"))
                    for states in (roots, skips))
    if not roots:
        raise StateError("a backward search needs a state to start from, and no root was given")
    if len(skips) != len(roots):
        raise StateError(f"a skip (a state or None) for each root: {len(skips)} skips for {len(roots)} roots")
    checked, total = [], None
    for number, (state, kind) in enumerate([(root, "root") for root in roots]
                                           + [(skip, "skip") for skip in skips]):
        where = f"{kind} {number % len(roots)}"
        if kind == "skip" and state is None:
            checked.append(None)
            continue
        try:
            hands, leader = state
        except (TypeError, ValueError):
            raise StateError(f"{where}: a state is (hands, leader), not {state!r:.60}") from None
        hands, leader = check_state(hands, leader, players, where)
        players = len(hands)
        cards = sum(len(hand) for hand in hands)
        if total is not None and cards != total:
            raise StateError(f"{where}: {cards} cards, not the {total} of root 0")
        total = cards
        checked.append((hands, leader))
    return checked[:len(roots)], checked[len(roots):]


def check_bounds(max_states, max_seconds):
    """A search's bounds as both engines take them: (states, seconds)."""
    return whole(max_states, "max_states", 0, MAX_COUNT), seconds(max_seconds, "max_seconds")


def check_sizes(sizes):
    """The hands' sizes a table's backward search looks for, from the leader
    on: one whole number for each of its 2 to 4 seats."""
    sizes = listed(sizes, lambda: StateError(f"sizes are the hands' sizes, one whole number a seat, "
                                             f"not {sizes!r:.60}"))
    if not 2 <= len(sizes) <= 4:
        raise StateError(f"sizes: a table has 2 to 4 seats, not {len(sizes)}")
    return [whole(size, "a hand's size", 0, MAX_CARDS) for size in sizes]
