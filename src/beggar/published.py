"""The published deals shipped with beggar (data/published-deals.json): the
finished records and the loop, for the commands that compare with them."""

from __future__ import annotations

import json
from functools import lru_cache

from . import installed

#: The longest published finished game (Nessler 2022), standard deck, 26/26.
LONGEST_CARDS = 8344

#: The shortest published record (Paulhus 1999): `list --records` shows longer games.
RECORD_CARDS = 4791


@lru_cache(maxsize=None)
def deals():
    """The published deals as the data file gives them: [dict]."""
    return installed.read("published-deals.json", lambda text, where: json.loads(text))


def records():
    """(name, cards) of every published finished game, oldest first."""
    return [(game["name"], game["cards"]) for game in deals() if game["status"] == "finished"]


def is_standard_table(deal):
    """Whether a deal is of the table the published records are: the 52-card deck, 26/26."""
    return deal.players == 2 and [len(hand) for hand in deal.hands] == [26, 26] and deal.is_standard()
