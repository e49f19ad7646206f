"""Builds the compiled engine; everything else is in pyproject.toml.

BEGGAR_DEBUG=1 builds with bounds, wraparound and initialisation checks on
(the tests must pass under both builds); BEGGAR_ANNOTATE=1 also writes the
annotated HTML of the generated C next to the .pyx.
"""

import glob
import os

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

# Every .pyx of the package is one extension module; .pxd files are cimported.
extensions = [
    Extension(f"beggar.{os.path.basename(path)[:-4]}", [path],
              extra_compile_args=["-O0", "-g"] if debug else ["-O3"])
    for path in sorted(glob.glob("src/beggar/*.pyx"))
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives,
                            annotate=os.environ.get("BEGGAR_ANNOTATE") == "1"))
