"""The one error family: every error class of the package is bad input or a fault."""

import importlib
import inspect
import pkgutil

import beggar
from beggar.errors import BadInput, Fault


def _modules():
    for info in pkgutil.walk_packages(beggar.__path__, "beggar."):
        if info.name != "beggar.__main__":       # importing it would run the command
            yield importlib.import_module(info.name)


def test_every_error_class_is_bad_input_or_a_fault():
    classes = [(module.__name__, name, value) for module in _modules()
               for name, value in vars(module).items()
               if inspect.isclass(value) and issubclass(value, BaseException)
               and value.__module__ == module.__name__]
    assert len(classes) > 15        # the walk found the package's errors at all
    strays = [f"{module}.{name}" for module, name, value in classes
              if value not in (BadInput, Fault) and not issubclass(value, (BadInput, Fault))]
    assert not strays, f"error classes under neither BadInput nor Fault: {strays}"
    assert not [name for _, name, value in classes if issubclass(value, BadInput) and issubclass(value, Fault)]


def test_older_bases_stay():
    from beggar.deal import DealError
    from beggar.engine import EngineError, EngineFault
    assert issubclass(DealError, ValueError) and issubclass(EngineError, RuntimeError)
    assert issubclass(EngineFault, RuntimeError)
