"""The kernels' source as shipped: kernel.cu and the headers it includes.

One body of code for every target (vendor.h holds their differences). NVRTC
takes the files by name, so that the machine code's line table names the
file each instruction comes from (benchmarks/gpu_kernel_model.py reads it);
an OpenCL compiler takes one text, the headers put in place of their
#include lines, so that nothing depends on a folder it would search.
"""

from __future__ import annotations

import re
from importlib import resources

#: kernel.cu, then the headers it includes, in the order they are included.
FILES = ("kernel.cu", "game.h", "vendor.h")

_INCLUDE = re.compile(r'^#include "([\w.]+)"$', re.MULTILINE)


def files():
    """{name: text} of FILES, as shipped in the package."""
    folder = resources.files("beggar.gpu")
    return {name: folder.joinpath(name).read_text() for name in FILES}


def inlined():
    """kernel.cu with each header's text in place of its first #include (a
    later one, already in, is dropped): one text for a compiler that is
    handed no files."""
    texts = files()
    done = set()

    def expand(text):
        def include(found):
            name = found.group(1)
            if name not in texts:
                raise ValueError(f"kernel.cu includes {name}, which is not one of the shipped {FILES}")
            if name in done:
                return ""
            done.add(name)
            return expand(texts[name])
        return _INCLUDE.sub(include, text)
    return expand(texts["kernel.cu"])
