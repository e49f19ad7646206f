"""Builds the compiled modules; everything else is in pyproject.toml.

Every src/beggar/*.pyx is built as the extension beggar.<name>. A .pxd beside
them can be cimported as `from beggar._name cimport ...` or `from ._name
cimport ...`. BEGGAR_DEBUG=1 builds with bounds, wraparound and initialisation
checks on (the tests must pass under both builds); BEGGAR_ANNOTATE=1 also
writes the annotated HTML of the generated C next to each .pyx.
"""

import os
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

debug = os.environ.get("BEGGAR_DEBUG") == "1"

directives = {
    "language_level": 3,
    "boundscheck": debug,
    "wraparound": debug,
    "initializedcheck": debug,
    "cdivision": not debug,
}

# Paths relative to the project root, as setuptools wants them in a source release.
extensions = [
    Extension(
        f"beggar.{source.stem}",
        [source.as_posix()],
        include_dirs=["src/beggar"],
        extra_compile_args=["-O0", "-g"] if debug else ["-O3"],
    )
    for source in sorted(Path("src/beggar").glob("*.pyx"))
]
if not extensions:
    raise SystemExit("setup.py: no src/beggar/*.pyx to build (run it from the project root)")

setup(ext_modules=cythonize(extensions, compiler_directives=directives, include_path=["src"],
                            annotate=os.environ.get("BEGGAR_ANNOTATE") == "1"))
