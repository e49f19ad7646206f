"""The GPU engines: two-player random deals, census blocks, perturbation
walks, batches and hill climbing on a GPU (or an OpenCL device, or the CPU).

c/*.h      what the compiled engine and the kernels compute alike, written once
           (docs/architecture.md lists them)
game.h     the game in the warp's layout, for every target (deal, play, count)
kernel.cu  the kernels that play ranges of deals with them
source.py  those files as shipped, for the compilers
engine.py  the engine made of the kernels' launches, equal to the compiled engine
abi.py     the kernels' structs and arguments, described once (held to the C by the tests)
launch.py  what the backends share: a launch marshalled from abi.py, build options, buffers
cuda.py    the launches on an NVIDIA GPU (NVRTC, the CUDA driver): the engine "cuda"
opencl.py  the launches on an OpenCL device (pyopencl): the engine "opencl"
host.py    the launches on the CPU (beggar._gpu_host): the engine "gpu-host"
several.py several devices as one backend
sizing.py  how many deals a launch plays

The kinds of backend are the rows of KINDS: adding one (HIP, Metal) is a
module with the functions a Kind calls, a block of vendor.h, and a row.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    """A kind of device the kernels play on, and the engine that plays there.

    Its module (in beggar.gpu) lists and opens its devices, numbered from 0:
    count() how many there are, default() the one used when none is named,
    gpus() those that are GPUs able to run the kernels (an on_device kind's), usable(numbers)
    GpuFault unless each of those can (returns whether all are GPUs), and
    open_device(number) a backend (launch.Backend) on one."""

    name: str               # the engine's name
    aliases: tuple          # older names of it, still taken (archives keep job specs that say them)
    module: str
    title: str              # the kind in words, as `beggar gpu` heads its devices
    device: str             # one of its devices, in words
    the_device: str         # what plays a job's chunks on one device, in words
    devices: str            # several of them
    on_device: bool         # its launches run on a device of their own, not on this process's cores

    def backends(self):
        """The module that lists and opens this kind's devices."""
        return importlib.import_module(f"{__name__}.{self.module}")


#: The kinds, in the order --gpu tries them.
KINDS = (
    Kind("cuda", ("gpu",), "cuda", "CUDA", "GPU", "the GPU", "GPUs", True),
    Kind("opencl", (), "opencl", "OpenCL", "OpenCL device", "the OpenCL device", "OpenCL devices", True),
    Kind("gpu-host", (), "host", "gpu-host", "gpu-host device (a core)", "the GPU kernels on one core",
         "cores of the GPU kernels", False),
)
#: The GPU engines' names, and every name they are taken by (aliases too).
NAMES = tuple(kind.name for kind in KINDS)
TAKEN = {name: kind for kind in KINDS for name in (kind.name, *kind.aliases)}
#: The engines whose launches play on devices of their own (a GPU's, or an OpenCL device's threads).
ON_DEVICE = tuple(kind.name for kind in KINDS if kind.on_device)

_engines = {}


def get(name, devices=None):
    """The engine `name` (a name or alias of KINDS) on `devices` (None: the
    default device; "all": every device of its kind; a tuple of device
    numbers), made once per process: the devices' contexts and compiled
    kernels are kept once made, at the first launch."""
    name = TAKEN[name].name
    devices = tuple(devices) if isinstance(devices, list) else devices
    key = (name, devices)
    if key not in _engines:
        from .engine import RangeEngine
        _engines[key] = RangeEngine(name, lambda: backend(name, devices))
    return _engines[key]


def numbers(name, devices):
    """The device numbers `devices` names for engine `name` (None: its
    default device; "all": every one): a list, or GpuFault naming a device
    that is not there."""
    from .launch import GpuFault
    row = TAKEN[name]
    module = row.backends()
    found = module.count()
    if devices is None:
        return [module.default()]
    if devices == "all":
        return list(range(found))
    missing = [number for number in devices if not 0 <= number < found]
    if missing:
        raise GpuFault(f"no {row.device} number {missing[0]}: there {'is' if found == 1 else 'are'} {found} "
                       f"(numbered from 0; beggar gpu lists them)")
    return list(devices)


def backend(name, devices=None):
    """The launches of engine `name` on `devices` (as get): one device's
    backend, or several.Several of them."""
    open_device = TAKEN[name].backends().open_device
    chosen = numbers(name, devices)
    if len(chosen) == 1:
        return open_device(chosen[0])
    from .several import Several
    made = []
    try:
        for number in chosen:
            made.append(open_device(number))
    except BaseException:
        if made:
            Several(made).close()       # those opened before the one that failed
        raise
    return Several(made)


def check(name, devices=None):
    """GpuFault unless engine `name` can play on `devices` here (its
    bindings, driver and devices, each with what the kernels need), checked
    without building a kernel: what a GPU job checks before it is stored.
    Returns whether every device is a GPU."""
    return TAKEN[name].backends().usable(numbers(name, devices))


def pick():
    """The engine `--gpu` means here: the first kind that plays on a device
    of its own and has a GPU that runs the kernels (CUDA, else OpenCL);
    else GpuFault saying why none can."""
    from .launch import GpuFault
    reasons = []
    for row in KINDS:
        if not row.on_device:
            continue
        try:
            if row.backends().gpus():
                return row.name
            reasons.append(f"{row.title}: no GPU here runs the kernels")
        except GpuFault as error:
            reasons.append(f"{row.title}: {error}")
    raise GpuFault(f"no GPU can be used here: {'; '.join(reasons)} (--engine opencl plays on an OpenCL CPU device)")
