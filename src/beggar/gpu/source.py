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

#: The file every kernel is in; the headers are those it includes, and theirs.
KERNEL = "kernel.cu"

_INCLUDE = re.compile(r'^#include "([\w.]+)"$', re.MULTILINE)


def _read(name):
    return resources.files("beggar.gpu").joinpath(name).read_text()


def files():
    """{name: text} of kernel.cu, then each header it includes (theirs too),
    in the order they are first included, as shipped in the package."""
    texts = {}

    def take(name):
        if name in texts:
            return
        try:
            texts[name] = _read(name)
        except FileNotFoundError:
            raise ValueError(f"the kernels include {name}, which is not shipped in beggar/gpu") from None
        for included in _INCLUDE.findall(texts[name]):
            take(included)
    take(KERNEL)
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
