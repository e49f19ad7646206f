"""Builds the compiled modules; everything else is in pyproject.toml.

Every src/beggar/*.pyx is built as the extension beggar.<name>. A .pxd beside
them can be cimported as `from beggar._name cimport ...` or `from ._name
cimport ...`. BEGGAR_DEBUG=1 builds with bounds, wraparound and initialisation
checks on (the tests must pass under both builds); BEGGAR_SANITIZE=1 adds
AddressSanitizer and UndefinedBehaviorSanitizer, so that a read or write out
of a C array's bounds stops the process (load the sanitizer first:
LD_PRELOAD=$(cc -print-file-name=libasan.so)); BEGGAR_ANNOTATE=1 also
writes the annotated HTML of the generated C next to each .pyx. The C of
the modules compiles on every core at once.
"""

import os
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

debug = os.environ.get("BEGGAR_DEBUG") == "1"
sanitize = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"] \
    if os.environ.get("BEGGAR_SANITIZE") == "1" else []

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
        include_dirs=["src/beggar", "src/beggar/c"],
        extra_compile_args=(["-O0", "-g"] if debug else ["-O3"]) + sanitize,
        extra_link_args=sanitize,
    )
    for source in sorted(Path("src/beggar").glob("*.pyx"))
]
if not extensions:
    raise SystemExit("setup.py: no src/beggar/*.pyx to build (run it from the project root)")


class ParallelBuild(build_ext):
    """Compiles the modules' C on every core at once (pip gives no -j of its own)."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1


class ShipJobs(build_py):
    """Ships the job files of search/ in the package, as beggar/jobs, so that
    `beggar search sample` runs them from any folder (search/ stays their one
    copy in the source)."""

    def run(self):
        super().run()
        target = Path(self.build_lib, "beggar", "jobs")
        target.mkdir(parents=True, exist_ok=True)
        for job in sorted(Path("search").glob("*.toml")):
            self.copy_file(str(job), str(target / job.name))


setup(ext_modules=cythonize(extensions, compiler_directives=directives, include_path=["src"],
                            annotate=os.environ.get("BEGGAR_ANNOTATE") == "1"),
      cmdclass={"build_ext": ParallelBuild, "build_py": ShipJobs})
