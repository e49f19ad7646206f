"""The package's layers (docs/architecture.md), held by its imports: every
module imports only its own layer and those below it, lazy imports inside
functions included, so that no import runs back up."""

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "beggar"

#: The first name below beggar of each module, by layer (docs/architecture.md's table).
LAYERS = [
    {"errors", "checks", "cards", "decks", "shuffle", "deal", "rules", "outcome", "states", "lengths",
     "batch", "climbing", "census", "cycle", "published"},
    {"reference", "_game", "_engine", "_backward", "_census", "_loops", "_random", "_gpu_host", "gpu", "engine"},
    {"backward", "elimination", "loops", "savefile", "archive", "finds"},
    {"search"},
    {"reports"},
    {"cli", "__main__"},
]
LAYER = {name: number for number, names in enumerate(LAYERS) for name in names}

# A Cython module's imports and cimports, relative ones: "from .X import" / "from ._X cimport".
CYTHON_IMPORT = re.compile(r"^\s*from \.(\w+) c?import", re.MULTILINE)


def top_name(path):
    """The first name below beggar of the module at `path`."""
    return path.relative_to(PACKAGE).parts[0].split(".")[0]


def imported(path):
    """The first names below beggar that the module at `path` imports."""
    if path.suffix in (".pyx", ".pxd"):
        return set(CYTHON_IMPORT.findall(path.read_text()))
    depth = len(path.relative_to(PACKAGE).parts) - 1     # folders below beggar
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            if node.level <= depth:
                continue                # within its own folder (a package of one layer)
            parts = (node.module or "").split(".")
            names.add(parts[0] if parts[0] else None)
            if not parts[0]:            # from . import x, y: each a module
                names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("beggar."):
            names.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            names.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith("beggar."))
    return names - {None}


def test_every_module_has_a_layer():
    modules = {top_name(path) for path in PACKAGE.rglob("*") if path.suffix in (".py", ".pyx", ".pxd")}
    assert modules - {"__init__"} <= set(LAYER), sorted(modules - {"__init__"} - set(LAYER))


def test_no_import_runs_up_the_layers():
    upward = []
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix not in (".py", ".pyx", ".pxd") or path == PACKAGE / "__init__.py":
            continue        # the package's face imports its public names lazily, from every layer
        own = LAYER[top_name(path)]
        for name in sorted(imported(path)):
            if LAYER.get(name, own) > own:
                upward.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not upward, upward
