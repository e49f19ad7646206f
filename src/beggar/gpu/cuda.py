"""The kernels on an NVIDIA GPU: compiled by NVRTC, launched through the CUDA driver.

What it installs and where it caches the machine code: docs/gpu.md. The
compile is the same call with or without a device (`compile_kernel`), so
the tests compile the kernel for named architectures on machines that have
no GPU. Everything here is the launch and the copies; the game is the headers'
and the results are made in gpu/engine.py.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import numpy as np

from . import source
from .abi import KERNELS
# The shared names are cuda.py's too: the tests, the benchmarks and `beggar gpu` find them here.
from .launch import BUFFER, SHARED, THREADS, TOTAL, Backend, GpuFault, block_threads, cards_of, defines  # noqa: F401

EXTRA = "'.[gpu]' in beggar's source folder"


def bindings():
    """(nvrtc, driver) from cuda-bindings, or GpuFault naming the extra."""
    try:
        from cuda.bindings import driver, nvrtc
    except ImportError as error:
        raise GpuFault(f"the GPU engine needs NVIDIA's CUDA bindings ({error}): pip install {EXTRA}") from None
    return nvrtc, driver


def nvrtc_version():
    """NVRTC's version as 'major.minor' (GpuFault if its library is missing)."""
    nvrtc, _ = bindings()
    result = _call_nvrtc(nvrtc, "nvrtcVersion", lambda: nvrtc.nvrtcVersion())
    return f"{result[0]}.{result[1]}"


def options(arch, ring, cards=TOTAL):
    """NVRTC's options for the kernels of `arch`, hands of `ring` pieces
    and decks of at most `cards` cards: what the machine code depends on
    besides the source and NVRTC."""
    return [f"--gpu-architecture={arch}", *defines(ring, cards, block_threads(ring)), "--std=c++14"]


def compile_program(arch, ring, extra=(), cards=TOTAL, texts=None):
    """(cubin, NVRTC's log) of the kernels for `arch` ('sm_90'), hands of
    `ring` pieces and decks of at most `cards` cards, with `extra` options
    after options(arch, ring, cards) (the benchmarks ask ptxas for its
    figures so): no device is needed. `texts` ({name: text}, kernel.cu
    first) is the source to compile, as shipped where not given (a
    benchmark compiles another revision's). GpuFault with NVRTC's first
    error line if it fails."""
    nvrtc, _ = bindings()
    texts = texts or source.files()
    kernel, *headers = texts
    program = _call_nvrtc(nvrtc, "nvrtcCreateProgram", lambda: nvrtc.nvrtcCreateProgram(
        texts[kernel].encode(), kernel.encode(), len(headers), [texts[name].encode() for name in headers],
        [name.encode() for name in headers]))[0]
    try:
        encoded = [option.encode() for option in [*options(arch, ring, cards), *extra]]
        result = nvrtc.nvrtcCompileProgram(program, len(encoded), encoded)
        if result[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            # The first line of NVRTC's log that says 'error', else its first line.
            lines = [line.strip() for line in _log(nvrtc, program).splitlines() if line.strip()]
            first = next((line for line in lines if "error" in line), lines[0] if lines else "")
            raise GpuFault(f"NVRTC {nvrtc_version()} cannot compile the kernel for {arch}: "
                           f"{first or _nvrtc_name(nvrtc, result[0])}")
        size = _call_nvrtc(nvrtc, "nvrtcGetCUBINSize", lambda: nvrtc.nvrtcGetCUBINSize(program))[0]
        cubin = b" " * size
        _call_nvrtc(nvrtc, "nvrtcGetCUBIN", lambda: nvrtc.nvrtcGetCUBIN(program, cubin))
        return cubin, _log(nvrtc, program)
    finally:
        nvrtc.nvrtcDestroyProgram(program)


def compile_kernel(arch, ring, cards=TOTAL):
    """compile_program's cubin, without its log."""
    return compile_program(arch, ring, cards=cards)[0]


def cache_key(version, compile_options, texts):
    """What a cached cubin was made from, as one hash: NVRTC's version, every
    compile option and the text of every source file, each part framed by its
    length so that no two lists of parts read alike."""
    digest = hashlib.sha256()
    for part in (version, *compile_options, "", *texts):
        data = part.encode()
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()[:32]


def cache_path(arch, ring, cards=TOTAL):
    """Where the cubin for `arch`, `ring` and `cards` is cached, named by cache_key."""
    key = cache_key(nvrtc_version(), options(arch, ring, cards), source.files().values())
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "beggar" / "gpu"
    return folder / f"kernel-{arch}-ring{ring}-cards{cards}-{key}.cubin"


#: A cached cubin's file: this line, the SHA-256 of the cubin, the cubin.
CACHE_MAGIC = b"beggar gpu cubin 1\n"


def cached_kernel(arch, ring, fresh=False, cards=TOTAL):
    """compile_kernel, cached on disk by cache_key: (cubin, seconds spent
    compiling, 0 when it was cached). A cached file that is damaged (its
    checksum is wrong, or it is cut short) is compiled again and replaced,
    and so is any when `fresh` (a cubin the driver refused to load)."""
    path = cache_path(arch, ring, cards)
    try:
        data = b"" if fresh else path.read_bytes()
    except OSError:
        data = b""
    head = len(CACHE_MAGIC)
    cubin = data[head + 32:]
    if cubin and data[:head] == CACHE_MAGIC and data[head:head + 32] == hashlib.sha256(cubin).digest():
        return cubin, 0.0
    start = time.perf_counter()
    cubin = compile_kernel(arch, ring, cards)
    seconds = time.perf_counter() - start
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.part")
        partial.write_bytes(CACHE_MAGIC + hashlib.sha256(cubin).digest() + cubin)
        partial.replace(path)
    except OSError:
        pass        # no cache where it cannot be written: compiled again next time
    return cubin, seconds


def check():
    """GpuFault unless the bindings, a driver and a GPU are there: what a
    GPU job checks before it is stored, without making a context. Returns
    how many GPUs the driver sees."""
    _, driver = bindings()
    try:
        error = driver.cuInit(0)[0]
    except Exception as failure:        # the bindings raise their own kind when libcuda is absent
        raise GpuFault(f"no NVIDIA driver could be loaded ({failure})") from None
    if error == driver.CUresult.CUDA_SUCCESS:
        error, found = driver.cuDeviceGetCount()
        if error == driver.CUresult.CUDA_SUCCESS and found == 0:
            raise GpuFault("the NVIDIA driver sees no GPU")
    if error != driver.CUresult.CUDA_SUCCESS:
        raise GpuFault(f"the NVIDIA driver cannot be used ({getattr(error, 'name', error)})")
    nvrtc_version()
    return found


class Device(Backend):
    """One GPU and its primary context: what `beggar gpu` shows, and the
    backend of the engine "cuda" (gpu/engine.py). How it holds the context
    (current per thread, blocking while a launch runs, reset after a failed
    one: a kernel's errors are sticky) is docs/gpu.md's The device path.
    Every other Device of this process on that GPU shares the primary
    context: it retains the new one at its next call, its modules and memory
    gone with the old (_RESETS)."""

    def __init__(self, ordinal=0):
        driver = self.driver = bindings()[1]
        self.ordinal = ordinal
        found = count()
        if not 0 <= ordinal < found:
            raise GpuFault(f"no GPU number {ordinal}: the driver sees {found}")
        self.device = self._check(driver.cuDeviceGet(ordinal), "cuDeviceGet")
        attribute = driver.CUdevice_attribute
        self.capability = (self._attribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                           self._attribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))
        self.multiprocessors = self._attribute(attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        name = self._check(driver.cuDeviceGetName(128, self.device), "cuDeviceGetName")
        self.name = bytes(name).split(b"\0", 1)[0].decode(errors="replace").strip()
        self.memory = self._check(driver.cuDeviceTotalMem(self.device), "cuDeviceTotalMem")
        version = self._check(driver.cuDriverGetVersion(), "cuDriverGetVersion")
        self.driver_version = f"{version // 1000}.{version % 1000 // 10}"
        # The flags of a primary context another Device of this process holds
        # are set already (set again, a driver before CUDA 11 refuses).
        blocking = int(driver.CUctx_flags.CU_CTX_SCHED_BLOCKING_SYNC)
        flags, active = self._check(driver.cuDevicePrimaryCtxGetState(self.device), "cuDevicePrimaryCtxGetState")
        if not active or int(flags) & blocking != blocking:
            self._check(driver.cuDevicePrimaryCtxSetFlags(self.device, blocking), "cuDevicePrimaryCtxSetFlags")
        self._modules = {}
        self._buffers = {}
        self._retains = 0
        self._retain()
        self._current()
        self.arch = f"sm_{self.capability[0]}{self.capability[1]}"

    def _retain(self):
        """Retain the GPU's primary context as it is now."""
        self.context = self._check(self.driver.cuDevicePrimaryCtxRetain(self.device), "cuDevicePrimaryCtxRetain")
        self._retains += 1
        self._resets = _RESETS.get(self.ordinal, 0)

    # ------------------------------------------------------------ driver calls

    def _check(self, result, what):
        error, *values = result if isinstance(result, tuple) else (result,)
        if error != self.driver.CUresult.CUDA_SUCCESS:
            raise GpuFault(f"CUDA {what} failed on GPU {self.ordinal}: {getattr(error, 'name', error)}")
        return values[0] if len(values) == 1 else tuple(values) if values else None

    def _current(self):
        """Make the context current in the calling thread."""
        if self.closed:
            raise GpuFault("this GPU's context was reset after a failed launch; make a new Device")
        if _RESETS.get(self.ordinal, 0) != self._resets:
            # Another Device reset the context this one held: what was in it is gone.
            self._modules.clear()
            self._buffers.clear()
            self._retain()
        self._check(self.driver.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")

    def _attribute(self, attribute):
        return self._check(self.driver.cuDeviceGetAttribute(attribute, self.device), "cuDeviceGetAttribute")

    def _buffer(self, name, size):
        held = self._buffers.get(name)
        if held is None or held[1] < size:
            if held is not None:
                self._check(self.driver.cuMemFree(held[0]), "cuMemFree")
            held = (int(self._check(self.driver.cuMemAlloc(max(size, 8)), "cuMemAlloc")), size)
            self._buffers[name] = held
        return held[0]

    def _to_device(self, name, array):
        pointer = self._buffer(name, array.nbytes)
        self._check(self.driver.cuMemcpyHtoD(pointer, array.ctypes.data, array.nbytes), "cuMemcpyHtoD")
        return pointer

    def _zeros(self, name, size):
        pointer = self._buffer(name, size)
        self._check(self.driver.cuMemsetD8(pointer, 0, size), "cuMemsetD8")
        return pointer

    def _to_host(self, array, name, size):
        self._check(self.driver.cuMemcpyDtoH(array.ctypes.data, self._buffers[name][0], size), "cuMemcpyDtoH")

    def kernels(self, ring, cards=TOTAL):
        """The module for hands of `ring` pieces and decks of at most `cards`
        cards: {kernel name: (function, blocks, threads a block)}."""
        self._current()
        key = (ring, cards)
        if key not in self._modules:
            module, image = loaded(self._load, self.arch, ring, cards)
            functions = {}
            threads = block_threads(ring)
            for name in KERNELS:
                function = self._check(self.driver.cuModuleGetFunction(module, name.encode()),
                                       "cuModuleGetFunction")
                per_unit = self._check(self.driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                    function, threads, 0), "cuOccupancyMaxActiveBlocksPerMultiprocessor")
                functions[name] = (function, max(per_unit, 1) * self.multiprocessors, threads)
            self._modules[key] = (module, image, functions)
        return self._modules[key][2]

    def _load(self, cubin):
        image = np.frombuffer(cubin, np.uint8)
        return self._check(self.driver.cuModuleLoadData(image.ctypes.data), "cuModuleLoadData"), image

    def _launch(self, kernel, variant, arguments):
        """Launch `kernel` of `variant` over every multiprocessor, device
        pointers passed as uint64, and wait for it. The kernel is compiled
        for exactly its block's threads (its shared memory has a column each)."""
        function, blocks, threads = self.kernels(*variant)[kernel]
        values = [np.array([value], np.uint64 if dtype is BUFFER else dtype) for value, dtype in arguments]
        pointers = np.array([value.ctypes.data for value in values], np.uint64)
        self._check(self.driver.cuLaunchKernel(function, blocks, 1, 1, threads, 1, 1, 0, 0,
                                               pointers.ctypes.data, 0), "cuLaunchKernel")
        self._check(self.driver.cuCtxSynchronize(), "the kernel " + kernel)

    def close(self):
        """Release the context and reset it, so that a new Device starts on a
        clean one: after a failed launch nothing in it can be used again."""
        if self.closed:
            return
        self.closed = True
        self._modules.clear()
        self._buffers.clear()
        for _ in range(self._retains):
            self.driver.cuDevicePrimaryCtxRelease(self.device)
        self.driver.cuDevicePrimaryCtxReset(self.device)
        _RESETS[self.ordinal] = _RESETS.get(self.ordinal, 0) + 1


#: How many times each GPU's primary context was reset in this process
#: (Device.close): a Device that held it before retains it again.
_RESETS = {}


def loaded(load, arch, ring, cards=TOTAL):
    """load(cubin) of the kernels for `arch`, `ring` and `cards`, their
    cubin cached (cached_kernel): one the driver refuses from the cache
    (written by another NVRTC, or damaged where the checksum cannot tell) is
    compiled again and the cache replaced; one just compiled that it refuses
    is the fault (GpuFault), not compiled twice."""
    cubin, seconds = cached_kernel(arch, ring, cards=cards)
    try:
        return load(cubin)
    except GpuFault:
        if seconds:
            raise
        return load(cached_kernel(arch, ring, fresh=True, cards=cards)[0])


# ---------------------------------------------------------------- the kind's devices (gpu.Kind)

def default():
    """The GPU the engine plays on when none is named: the first the driver numbers."""
    return 0


def gpus():
    """The GPUs that can run the kernels: every one the driver sees (GpuFault where CUDA cannot be used)."""
    return list(range(count()))


def usable(numbers):
    """GpuFault unless CUDA can be used here (the bindings, a driver that sees
    GPUs, NVRTC); then GPUs `numbers` (counted by numbers()) can: all GPUs."""
    check()
    return True


def open_device(number):
    return Device(number)


def versions():
    """The bindings' and NVRTC's versions, in words (GpuFault where they cannot be used)."""
    from importlib import metadata
    bindings()
    try:
        version = metadata.version("cuda-bindings")
    except metadata.PackageNotFoundError:
        version = "(version unknown)"
    return f"cuda-bindings {version}, NVRTC {nvrtc_version()}"


def listing():
    """What `beggar gpu` says of each GPU here: [(the GPU in words, a call
    that gives its Device)]; GpuFault where CUDA cannot be used."""
    found = []
    for ordinal in range(count()):
        gpu = Device(ordinal)
        found.append((f"GPU {ordinal}: {gpu.name}, compute capability {gpu.capability[0]}.{gpu.capability[1]}, "
                      f"{gpu.memory / 2 ** 30:.1f} GiB, {gpu.multiprocessors} multiprocessors, driver CUDA "
                      f"{gpu.driver_version}", lambda gpu=gpu: gpu))
    return found


#: GPUs the NVIDIA driver sees (GpuFault where it cannot be used, or sees none).
count = check


def _call_nvrtc(nvrtc, what, call):
    try:
        result = call()
    except Exception as error:          # NVRTC's library missing, or the bindings' own errors
        raise GpuFault(f"NVRTC cannot be used ({error}): pip install {EXTRA}") from None
    error, *values = result
    if error != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise GpuFault(f"NVRTC {what} failed: {_nvrtc_name(nvrtc, error)}")
    return values


def _nvrtc_name(nvrtc, error):
    name = nvrtc.nvrtcGetErrorString(error)
    return bytes(name[1]).decode() if name[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS else str(error)


def _log(nvrtc, program):
    """NVRTC's log of a program (ptxas's figures when asked for), as text."""
    size = nvrtc.nvrtcGetProgramLogSize(program)
    if size[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS or size[1] <= 1:
        return ""
    log = b" " * size[1]
    nvrtc.nvrtcGetProgramLog(program, log)
    return log.decode(errors="replace").rstrip("\0")
