"""The hill climber: every engine takes the same walk, step for step
(tests/engines.py's harness)."""

import pytest

from beggar import Deal, play
from beggar.climbing import ACCEPTS, FITNESSES, ClimbRules
from beggar.decks import STANDARD
from beggar.engine import climb
from engines import agree


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("fitness", FITNESSES)
def test_engines_take_the_same_walk(accept, fitness):
    rules = ClimbRules(fitness=fitness, accept=accept, patience=250, temperature=40.0, history=9,
                       swap_percent=60)
    compiled = agree("climb", 7, 4, 1500, 1000, rules, STANDARD, 2, None)
    assert compiled.restarts >= 1 and compiled.hits
    assert all(o.cards >= 1000 or o.status == "loop" for _, o in compiled.hits)
    deal, outcome = compiled.best
    assert play(deal, engine="reference") == outcome
    assert sorted(c for hand in deal.hands for c in hand) == sorted(c for hand in Deal.shuffled(2, 1).hands
                                                                     for c in hand)


def test_a_walk_starts_from_the_deal_of_its_number():
    walk = climb(9, 3, 1, 0)
    assert walk.best[0] == Deal.shuffled(2, 9, 3) and walk.hits == [walk.best] and walk.restarts == 0
    assert climb(9, 3, 0, 0).best is None


@pytest.mark.parametrize("field, value, message", [
    ("accept", "greedy", "accept must be one of strict, equal, anneal, late"),
    ("fitness", "pile", "fitness must be one of cards, tricks"),
    ("patience", 0, "patience must be a whole number from 1"),
    ("swap_percent", 101, "swap_percent must be a whole number from 0 to 100"),
    ("temperature", -1.0, "temperature must be a number above 0"),
])
def test_bad_climb_rules(field, value, message):
    with pytest.raises(ValueError, match=message):
        ClimbRules(**{field: value})
