"""The package's layers (docs/architecture.md), held by its imports: every
module imports only its own layer and those below it, lazy imports inside
functions included, so that no import runs back up. The C is held too: a
Cython module's `cdef extern from` and a header's `#include` are its imports. And the page's table
of where each part is tested: every test module is in it, every part of the
package has a row."""

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "beggar"

#: The first name below beggar of each module, by layer (docs/architecture.md's table).
LAYERS = [
    {"errors", "checks", "cards", "decks", "shuffle", "deal", "rules", "variant", "outcome", "states", "lengths",
     "batch", "climbing", "census", "cycle", "family", "published", "contract", "records", "installed"},
    {"reference", "_game", "_engine", "_backward", "_census", "_loops", "_random", "_gpu_host", "c", "kernels", "gpu",
     "engine"},
    {"backward", "elimination", "loops", "savefile", "archive", "finds"},
    {"search"},
    {"reports"},
    {"cli", "__main__"},
]
LAYER = {name: number for number, names in enumerate(LAYERS) for name in names}

# A Cython module's imports and cimports, relative ones: "from .X import" / "from ._X cimport".
CYTHON_IMPORT = re.compile(r"^\s*from \.(\w+) c?import", re.MULTILINE)
# A Cython module's C, by its path below beggar ("c/random.h"), and a C file's
# headers, by name: looked for beside it, then in the folders setup.py's
# include_dirs and the kernels' compilers search (gpu/source.py's FOLDERS).
CYTHON_EXTERN = re.compile(r'^\s*cdef extern from "([\w./]+)"', re.MULTILINE)
C_INCLUDE = re.compile(r'^#include "([\w.]+)"$', re.MULTILINE)
C_FOLDERS = ("gpu", "c")
#: The files the layers hold: Python, Cython and C.
SOURCES = (".py", ".pyx", ".pxd", ".h", ".cu")


def top_name(path):
    """The first name below beggar of the module at `path`; "kernels" for
    gpu/'s C, which its Python (the GPU engines) drives but never imports."""
    return layer_key(path.relative_to(PACKAGE).as_posix())


def layer_key(part):
    """The layer table's name of a file by its path below beggar."""
    top = part.split("/")[0].split(".")[0]
    return "kernels" if top == "gpu" and part.endswith((".h", ".cu")) else top


def imported(path):
    """The first names below beggar that the module at `path` imports."""
    if path.suffix in (".pyx", ".pxd"):
        text = path.read_text()
        return set(CYTHON_IMPORT.findall(text)) | {layer_key(bound) for bound in CYTHON_EXTERN.findall(text)}
    if path.suffix in (".h", ".cu"):
        return {top_name(next(folder for folder in (path.parent, *(PACKAGE / name for name in C_FOLDERS))
                              if (folder / header).is_file()) / header)
                for header in C_INCLUDE.findall(path.read_text())}
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
    modules = {top_name(path) for path in PACKAGE.rglob("*") if path.suffix in SOURCES}
    assert modules - {"__init__"} <= set(LAYER), sorted(modules - {"__init__"} - set(LAYER))


def test_no_import_runs_up_the_layers():
    upward = []
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix not in SOURCES or path == PACKAGE / "__init__.py":
            continue        # the package's face imports its public names lazily, from every layer
        own = LAYER[top_name(path)]
        for name in sorted(imported(path)):
            if LAYER.get(name, own) > own:
                upward.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not upward, upward


def import_graph():
    """{first name below beggar: the first names its modules import}, a
    package's imports within itself left out."""
    graph = {}
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix not in SOURCES or path == PACKAGE / "__init__.py":
            continue
        own = top_name(path)
        graph.setdefault(own, set()).update(imported(path) - {own})
    return graph


def test_no_two_modules_import_each_other_round_a_circle():
    # Within a layer too: the engine switch and its GPU plug-ins take the
    # contract and its errors from `contract`, below both, not from each other.
    graph = import_graph()
    circles = []

    def visit(name, path):
        for after in sorted(graph.get(name, ())):
            if after in path:
                circles.append(" -> ".join(path[path.index(after):] + [after]))
            elif after not in done:
                visit(after, path + [after])
        done.add(name)

    done = set()
    for name in sorted(graph):
        if name not in done:
            visit(name, [name])
    assert not circles, circles


def test_the_drivers_stand_side_by_side():
    # Each driver's module stands on what drivers share (base, walks, its own
    # helpers such as aim), never on another driver's: drivers/__init__.py alone knows them all.
    from beggar.search import drivers
    own = {type(driver).__module__.rsplit(".", 1)[1] for driver in drivers.ALL}
    leaning = []
    for name in sorted(own):
        for node in ast.walk(ast.parse((PACKAGE / "search" / "drivers" / f"{name}.py").read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names = {node.module} if node.module else {alias.name for alias in node.names}
                leaning += [f"{name} imports {other}" for other in sorted(names & own)]
    assert own >= {"sampling", "factory", "hunt", "eliminate"} and not leaning, leaning


def test_the_compiled_engine_binds_the_shared_c_and_only_the_host_build_the_kernels():
    # c/ holds what both compiled engines compute alike; gpu/ the kernels and
    # the game in the warp's layout, which only their host build (_gpu_host) compiles.
    bound = {path.name: {layer_key(name) for name in CYTHON_EXTERN.findall(path.read_text())}
             for path in PACKAGE.glob("*.p[yx][xd]")}
    assert {name for name, nodes in bound.items() if "kernels" in nodes} == {"_gpu_host.pyx"}
    assert all(imported(path) <= {"c"} for path in (PACKAGE / "c").iterdir() if path.suffix == ".h")

# ---------------------------------------------------------------- the table of tests

TESTS = Path(__file__).resolve().parent


def table_of_tests():
    """docs/architecture.md's table of where each part is tested: [(the parts
    named, the test modules named)], a row each."""
    page = (PACKAGE.parents[1] / "docs" / "architecture.md").read_text()
    section = page.split("\n## Where each part is tested\n")[1]
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:]     # the header left out
    return [(re.findall(r"`([^`]+)`", row.split(" | ")[0]), re.findall(r"`(test_\w+\.py)`", row.split(" | ")[-1]))
            for row in rows]


def test_the_table_of_tests_names_every_test_module_and_every_part_of_the_package():
    rows = table_of_tests()
    named = {test for _, tests in rows for test in tests}
    assert named == {path.name for path in TESTS.glob("test_*.py")}, \
        sorted(named ^ {path.name for path in TESTS.glob("test_*.py")})
    root = PACKAGE.parents[1]
    parts = [part for parts, _ in rows for part in parts]
    for part in parts:         # a module by its name, or a path in the package or the repository
        assert any(PACKAGE.glob(part)) or any(PACKAGE.glob(part + ".py")) or \
            (part.startswith(("src/", "benchmarks/", "docs/")) and any(root.glob(part))), \
            f"the table names {part}: no such file"
    tops = {layer_key(part.removeprefix("src/beggar/")) for part in parts
            if not part.startswith(("benchmarks/", "docs/"))}
    every = {top_name(path) for path in PACKAGE.rglob("*") if path.suffix in SOURCES} - {"__init__"}
    assert every <= tops, sorted(every - tops)
    assert all(tests for _, tests in rows)
