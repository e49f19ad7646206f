"""The GPU engine: random deals and census blocks of two players on an NVIDIA GPU.

game.h     the game, one source for the device and the host (deal, play, count)
kernel.cu  the kernels that play ranges of deals with it
engine.py  the engine made of the kernels' launches, equal to the compiled engine
device.py  the launches on a GPU (NVRTC, the CUDA driver): the engine "gpu"
host.py    the launches on the CPU (beggar._gpu_host): the engine "gpu-host"
"""

_engines = {}


def get(name):
    """The engine "gpu" or "gpu-host", made once per process (the device's
    context and compiled kernels are kept once made, at its first launch)."""
    if name not in _engines:
        from .engine import RangeEngine
        if name == "gpu":
            from .device import Device as backend
        else:
            from .host import HostBackend as backend
        _engines[name] = RangeEngine(name, backend)
    return _engines[name]
