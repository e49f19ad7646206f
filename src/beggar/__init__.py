"""beggar: hunt the longest and the never-ending deals of Beggar-My-Neighbour."""

__version__ = "0.1.0"

# The public names are imported when first used (PEP 562), so that importing
# the package costs nothing: the beggar command catches a Ctrl-C from its
# first instant only once its own code runs.
_HOMES = {"Deal": "deal", "DealError": "deal", "Deck": "decks", "DeckError": "decks", "EngineError": "engine",
          "Outcome": "outcome", "Rules": "rules", "Variant": "variant", "VariantError": "variant",
          "play": "engine", "play_batch": "engine", "sample": "engine"}
__all__ = list(_HOMES)


def __getattr__(name):
    if name not in _HOMES:
        raise AttributeError(f"module 'beggar' has no attribute {name!r}")
    from importlib import import_module
    value = getattr(import_module(f".{_HOMES[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
