"""The kernels' source as shipped: kernel.cu and the headers it includes.

The headers are found by name in the package's folders (FOLDERS): the game
in the warp's layout beside the kernels (gpu/), the leaves the compiled
engine shares with them in c/. One body of code for every target (vendor.h holds their differences). NVRTC
takes the files by name, so that the machine code's line table names the
file each instruction comes from (benchmarks/gpu_kernel_model.py reads it);
an OpenCL compiler takes one text, the headers put in place of their
#include lines, so that nothing depends on a folder it would search.
"""

from __future__ import annotations

import re
from importlib import resources

#: The file every kernel is in; the headers are those it includes, and theirs.
KERNEL = "kernel.cu"

#: The package's folders a header is looked for in, in order (setup.py's
#: include_dirs and the harnesses' -I flags name the same two).
FOLDERS = ("gpu", "c")

_INCLUDE = re.compile(r'^#include "([\w.]+)"$', re.MULTILINE)


def shipped(name):
    """The text of the kernels' file `name` as shipped in the package."""
    for folder in FOLDERS:
        path = resources.files("beggar").joinpath(folder, name)
        if path.is_file():
            return path.read_text()
    raise FileNotFoundError(name)


def files(read=shipped, first=KERNEL):
    """{name: text} of `first` (kernel.cu), then each header it includes (theirs too),
    in the order they are first included, each read by `read(name)` (which
    raises FileNotFoundError for a file it has not): as shipped in the
    package, or as a benchmark reads them at a git revision."""
    texts = {}

    def take(name):
        if name in texts:
            return
        try:
            texts[name] = read(name)
        except FileNotFoundError:
            raise ValueError(f"the kernels include {name}, which is in none of beggar's {', '.join(FOLDERS)}") from None
        for included in _INCLUDE.findall(texts[name]):
            take(included)
    take(first)
    return texts


def inlined():
    """kernel.cu with each header's text in place of its first #include (a
    later one, already in, is dropped): one text for a compiler that is
    handed no files."""
    texts = files()
    done = set()

    def expand(text):
        def include(found):
            name = found.group(1)
            if name in done:
                return ""
            done.add(name)
            return expand(texts[name])
        return _INCLUDE.sub(include, text)
    return expand(texts[KERNEL])
