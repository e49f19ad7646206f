"""Every published figure and every Camicia canonical case, on both engines."""

import pytest

from beggar import Deal, play
from helpers import load_data

PUBLISHED = load_data("published-deals.json")
CAMICIA = load_data("camicia-canonical-data.json")["cases"]


@pytest.mark.parametrize("record", PUBLISHED, ids=[r["name"] for r in PUBLISHED])
def test_published_deal(record, engine):
    deal = Deal.parse(f"{record['p1']}/{record['p2']}", deck="standard")
    outcome = play(deal, engine=engine)
    assert outcome.engine == engine
    assert (outcome.status, outcome.cards, outcome.tricks) == \
        (record["status"], record["cards"], record["tricks"])
    if record["status"] == "loop":
        assert outcome.winner is None
        assert outcome.loop_entry == (record["loop_entry"]["tricks"], record["loop_entry"]["cards"])
        assert outcome.loop_period == (record["loop_period"]["tricks"], record["loop_period"]["cards"])
    else:
        assert outcome.loop_entry is None and outcome.loop_period is None
        assert outcome.counts[outcome.winner] == 52


@pytest.mark.parametrize("case", CAMICIA, ids=[c["description"] for c in CAMICIA])
def test_camicia_case(case, engine):
    deal = Deal([case["input"]["playerA"], case["input"]["playerB"]])
    outcome = play(deal, engine=engine)
    expected = case["expected"]
    assert (outcome.status, outcome.cards, outcome.tricks) == \
        (expected["status"], expected["cards"], expected["tricks"])
    assert sum(outcome.counts) == deal.total


def test_the_record_bounds_are_the_published_records():
    from beggar import published
    cards = [cards for _, cards in published.records()]
    assert (published.RECORD_CARDS, published.LONGEST_CARDS) == (min(cards), max(cards))
