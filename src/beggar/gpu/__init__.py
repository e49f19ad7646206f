"""The GPU engines: random deals and census blocks of two players on a GPU.

vendor.h   what differs between the targets the kernels compile for
sizes.h    the sizes a build is compiled for
random.h, hash.h, perturb.h, climb.h, census.h, lengths.h
           what the compiled engine and the kernels compute alike, written once:
           the random stream, the hashes, a perturbation's changes, the
           climber's step, the census's order, the length bins (the compiled
           engine's modules bind them through cdef extern)
game.h     the game in the warp's layout, for every target (deal, play, count)
kernel.cu  the kernels that play ranges of deals with them
source.py  those files as shipped, for the compilers
engine.py  the engine made of the kernels' launches, equal to the compiled engine
launch.py  what the device backends share: build options, arguments, buffers
device.py  the launches on an NVIDIA GPU (NVRTC, the CUDA driver): the engine "gpu"
opencl.py  the launches on an OpenCL device (pyopencl): the engine "opencl"
host.py    the launches on the CPU (beggar._gpu_host): the engine "gpu-host"
several.py several devices as one backend
sizing.py  how many deals a launch plays
"""

import os

#: The GPU engines, and what each plays on.
NAMES = ("gpu", "opencl", "gpu-host")

_engines = {}


def get(name, devices=None):
    """The engine "gpu", "opencl" or "gpu-host" on `devices` (None: the
    default device; "all": every device of its kind; a tuple of device
    numbers), made once per process: the devices' contexts and compiled
    kernels are kept once made, at the first launch."""
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
    if name == "gpu":
        from .device import count
        found = count()
    elif name == "opencl":
        from .opencl import default_number, devices as listed
        found_devices = listed()
        found = len(found_devices)
        if devices is None:
            return [default_number(found_devices)]
    else:
        found = os.cpu_count() or 1
    if devices is None:
        return [0]
    if devices == "all":
        return list(range(found))
    missing = [number for number in devices if not 0 <= number < found]
    if missing:
        kind = {"gpu": "GPU", "opencl": "OpenCL device"}.get(name, "gpu-host device (a core)")
        raise GpuFault(f"no {kind} number {missing[0]}: there {'is' if found == 1 else 'are'} {found} "
                       f"(numbered from 0; beggar gpu lists them)")
    return list(devices)


def backend(name, devices=None):
    """The launches of engine `name` on `devices` (as get): one device's
    backend, or several.Several of them."""
    if name == "gpu":
        from .device import Device as one
    elif name == "opencl":
        from .opencl import OpenClDevice as one
    else:
        from .host import HostBackend

        def one(number):
            return HostBackend()
    chosen = numbers(name, devices)
    if len(chosen) == 1:
        return one(chosen[0])
    from .several import Several
    made = []
    try:
        for number in chosen:
            made.append(one(number))
    except BaseException:
        if made:
            Several(made).close()       # those opened before the one that failed
        raise
    return Several(made)


def check(name, devices=None):
    """GpuFault unless engine `name` can play on `devices` here (its
    bindings, driver and devices, each with what the kernels need), checked
    without building a kernel: what a GPU job checks before it is stored.
    Returns whether every device is a GPU (gpu-host: no)."""
    if name == "gpu":
        from .device import check as check_driver
        check_driver()
        numbers(name, devices)
        return True
    if name == "opencl":
        from .launch import GpuFault
        from .opencl import devices as listed, is_gpu, lacks
        found = listed()
        chosen = numbers(name, devices)
        for number in chosen:
            device = found[number][1]
            missing = lacks(device)
            if missing:
                raise GpuFault(f"OpenCL device {number} ({device.name.strip()}) lacks {missing}, "
                               "which the kernels need")
        return all(is_gpu(found[number][1]) for number in chosen)
    numbers(name, devices)
    return False


def pick():
    """The engine `--gpu` means here: "gpu" where an NVIDIA GPU and the CUDA
    bindings can be used, else "opencl" where OpenCL has a GPU with what the
    kernels need; else GpuFault saying why neither."""
    from .launch import GpuFault
    try:
        check("gpu")
        return "gpu"
    except GpuFault as error:
        cuda = str(error)
    try:
        from .opencl import devices as listed, is_gpu, lacks
        usable = [device for _, device in listed() if is_gpu(device) and not lacks(device)]
        opencl = None if usable else "OpenCL lists no GPU with 64-bit atomics"
    except GpuFault as error:
        opencl = str(error)
    if opencl is None:
        return "opencl"
    raise GpuFault(f"no GPU can be used here: CUDA: {cuda}; OpenCL: {opencl} "
                   "(--engine opencl plays on an OpenCL CPU device)")
