"""Both engines provide the functions of contract.Engine, with its signatures."""

import inspect

import pytest

from beggar import contract, engine


@pytest.mark.parametrize("name", contract.FUNCTIONS)
def test_every_engine_provides_the_contract(engine_name, name):
    module = engine.get(engine_name)
    stated = list(inspect.signature(getattr(contract.Engine, name)).parameters.values())[1:]
    given = list(inspect.signature(getattr(module, name)).parameters.values())
    assert [(p.name, p.default) for p in given] == [(p.name, p.default) for p in stated]


def test_the_contract_names_every_shared_function():
    assert set(contract.FUNCTIONS) == {"play", "play_batch", "sample", "sample_best", "climb", "census",
                                     "predecessors", "backward", "backward_to"}


@pytest.fixture(params=engine.ENGINES)
def engine_name(request):
    return request.param
