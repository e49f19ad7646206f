"""The kernels on an OpenCL device: built by the device's own OpenCL compiler
through pyopencl (source.inlined with launch.defines, once per device, ring and
cards; pyopencl caches the program on disk), launched on its queue. The backend
of the engine "opencl", on any OpenCL 1.2 device with 64-bit atomics (NEEDED;
docs/gpu.md, Install and check). Everything here is the launch and the copies;
the results are made in gpu/engine.py.
"""

from __future__ import annotations

import re
import warnings

import numpy as np

from . import source
from .abi import KERNELS
from .launch import BUFFER, SHARED, THREADS, TOTAL, Backend, GpuFault, block_threads, defines

EXTRA = "'.[opencl]' in beggar's source folder"
#: What the kernels need of a device beyond OpenCL 1.2, and what it is for.
NEEDED = {"cl_khr_int64_base_atomics": "64-bit atomic additions",
          "cl_khr_int64_extended_atomics": "64-bit atomic maxima"}
#: Work-groups a launch has per compute unit (docs/gpu.md, The device path):
#: a CPU's unit runs one at a time, a few balance the end.
GROUPS_PER_UNIT = {"gpu": 8, "other": 2}


def bindings():
    """pyopencl, or GpuFault naming the extra."""
    try:
        import pyopencl
    except ImportError as error:
        raise GpuFault(f"the opencl engine needs pyopencl ({error}): pip install {EXTRA}") from None
    return pyopencl


def devices():
    """Every OpenCL device of every platform, in the order `beggar gpu` numbers
    them: [(platform, device)] (GpuFault where no platform can be listed)."""
    cl = bindings()
    try:
        platforms = cl.get_platforms()
    except cl.Error as error:
        raise GpuFault(f"no OpenCL platform can be listed ({error}): install a device's OpenCL driver, "
                       "or PoCL for the CPU (pip install pocl-binary-distribution)") from None
    found = []
    for platform in platforms:
        try:
            found.extend((platform, device) for device in platform.get_devices())
        except cl.Error:
            continue        # a platform whose devices are all gone (its driver unloaded)
    if not found:
        raise GpuFault("OpenCL lists no device")
    return found


def is_gpu(device):
    return bool(device.type & bindings().device_type.GPU)


def lacks(device):
    """What the kernels need and `device` lacks, in words, or None."""
    extensions = set(device.extensions.split())
    missing = [f"{name} ({use})" for name, use in NEEDED.items() if name not in extensions]
    return ", ".join(missing) if missing else None


def _checked(number, device):
    """`device`, OpenCL's number `number`; GpuFault if it lacks what the kernels need."""
    missing = lacks(device)
    if missing:
        raise GpuFault(f"OpenCL device {number} ({device.name.strip()}) lacks {missing}, which the kernels need")
    return device


# ---------------------------------------------------------------- the kind's devices (gpu.Kind)

def count():
    """Devices OpenCL lists (GpuFault where it lists none)."""
    return len(devices())


def default():
    """The device the engine plays on when none is named: the first GPU, else the first device."""
    return next((number for number, (_, device) in enumerate(devices()) if is_gpu(device)), 0)


def gpus():
    """The GPUs that can run the kernels: OpenCL's GPUs with what they need."""
    return [number for number, (_, device) in enumerate(devices()) if is_gpu(device) and not lacks(device)]


def usable(numbers):
    """GpuFault unless each of devices `numbers` has what the kernels need;
    then whether every one is a GPU."""
    found = devices()
    checked = [_checked(number, found[number][1]) for number in numbers]
    return all(is_gpu(device) for device in checked)


def open_device(number):
    return OpenClDevice(number)


def versions():
    """pyopencl's version, in words (GpuFault where it is not installed)."""
    return f"pyopencl {bindings().VERSION_TEXT}"


def listing():
    """What `beggar gpu` says of each OpenCL device here: [(the device in
    words, a call that opens it as an OpenClDevice, or what it lacks)]."""
    cl = bindings()
    found = []
    for number, (platform, device) in enumerate(devices()):
        kind = "GPU" if is_gpu(device) else "CPU" if device.type & cl.device_type.CPU else "device"
        said = (f"device {number}: {platform.name.strip()}: {device.name.strip()} ({kind}, "
                f"{device.max_compute_units} compute units, {device.version.strip()})")
        missing = lacks(device)
        found.append((said, f"lacks {missing}, which the kernels need" if missing
                      else lambda number=number: OpenClDevice(number)))
    return found


class OpenClDevice(Backend):
    """One OpenCL device: its context, queue and built kernels. `capacity`
    (hits a launch holds), `launch` (the first launch's deals) and
    `climb_walks` (walks climbed together) smaller than the defaults are for
    the tests."""

    def __init__(self, number=None, capacity=None, launch=None, climb_walks=None):
        cl = self.cl = bindings()
        number = default() if number is None else number
        found = devices()
        if not 0 <= number < len(found):
            raise GpuFault(f"no OpenCL device number {number}: OpenCL lists {len(found)}")
        self.number = number
        self.platform, self.device = found[number]
        self.name = _checked(number, self.device).name.strip()
        self.gpu = is_gpu(self.device)
        if not self.gpu:
            self.CLIMB_WALKS = 256      # a CPU's work-groups: a few walks a thread are enough
        # Shared memory for a block: the device's local memory, up to what a
        # CUDA block may have statically (the kernels are sized alike).
        self.shared = min(SHARED, self.device.local_mem_size)
        try:
            self.context = cl.Context([self.device])
            self.queue = cl.CommandQueue(self.context)
        except cl.Error as error:
            raise GpuFault(f"OpenCL device {number} ({self.name}) cannot be opened: {error}") from None
        self._programs = {}
        self._buffers = {}
        for name, value in (("CAPACITY", capacity), ("LAUNCH", launch), ("CLIMB_WALKS", climb_walks)):
            if value is not None:
                setattr(self, name, value)

    def kernels(self, ring, cards=TOTAL):
        """The kernels for hands of `ring` pieces and decks of at most `cards`
        cards, built at the first call: {name: (kernel, work-groups, threads a group)}."""
        key = (ring, cards)
        if key not in self._programs:
            cl = self.cl
            threads = min(block_threads(ring, self.shared), THREADS, self.device.max_work_group_size)
            try:
                with warnings.catch_warnings():
                    # A compiler's remarks are not the build's failure.
                    warnings.simplefilter("ignore", cl.CompilerWarning)
                    program = cl.Program(self.context, source.inlined()).build(
                        options=defines(ring, cards, threads))
            except cl.Error as error:
                raise GpuFault(f"OpenCL device {self.number} ({self.name}) cannot build the kernels: "
                               f"{build_failure(str(error))}") from None
            groups = self.device.max_compute_units * GROUPS_PER_UNIT["gpu" if self.gpu else "other"]
            self._programs[key] = (program, {name: (getattr(program, name), groups, threads) for name in KERNELS})
        return self._programs[key][1]

    def _buffer(self, name, size):
        held = self._buffers.get(name)
        if held is None or held.size < size:
            held = self.cl.Buffer(self.context, self.cl.mem_flags.READ_WRITE, max(size, 8))
            self._buffers[name] = held
        return held

    def _to_device(self, name, array):
        buffer = self._buffer(name, array.nbytes)
        self.cl.enqueue_copy(self.queue, buffer, array)
        return buffer

    def _zeros(self, name, size):
        buffer = self._buffer(name, size)
        self.cl.enqueue_fill_buffer(self.queue, buffer, np.uint8(0), 0, size)
        return buffer

    def _to_host(self, array, name, size):
        self.cl.enqueue_copy(self.queue, array.view(np.uint8)[:size], self._buffers[name])

    def _launch(self, kernel, variant, arguments):
        function, groups, threads = self.kernels(*variant)[kernel]
        values = [value if dtype is BUFFER else dtype(value) for value, dtype in arguments]
        try:
            function(self.queue, (groups * threads,), (threads,), *values)
            self.queue.finish()
        except self.cl.Error as error:
            raise GpuFault(f"OpenCL device {self.number} ({self.name}): the kernel {kernel} failed: {error}") \
                from None

    def close(self):
        """Forget the device's kernels and memory; a new OpenClDevice starts afresh."""
        self.closed = True
        self._programs.clear()
        self._buffers.clear()


#: The compiler's temporary file of the kernels' source, as a build log names it.
_TEMPORARY = re.compile(r"[^\s:]+\.cl(?=:)")


def build_failure(text):
    """A failed build, as pyopencl says it, in one line: the call and its code
    once (pyopencl repeats them, once for each of its layers), then the
    build log's first error, the compiler's temporary file named as what it
    holds."""
    head, _, log = text.partition("\n")
    call = head.split(" - ")[0].strip()
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    first = next((line for line in lines if re.search(r"\berror\b", line, re.IGNORECASE)), None)
    return call if first is None else f"{call}: {_TEMPORARY.sub('the kernels', first)}"
