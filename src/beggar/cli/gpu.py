"""beggar gpu: where this machine stands with the GPU engine."""

import argparse
import re
import time

from .options import whole_in

ARCH = re.compile(r"sm_[1-9][0-9]{1,2}[af]?")


def arch(text):
    if not ARCH.fullmatch(text):
        raise argparse.ArgumentTypeError(f"must be an architecture such as sm_90, not {text[:40]!r}")
    return text


def run_gpu(args):
    from ..gpu import device
    from ..gpu.engine import ring_of
    from ..decks import STANDARD

    print(f"bindings: cuda-bindings {_version('cuda-bindings')}, NVRTC {device.nvrtc_version()}")
    ring, cards = ring_of(STANDARD), device.cards_of(STANDARD.total)
    if args.arch is not None:
        start = time.perf_counter()
        cubin = device.compile_kernel(args.arch, ring, cards)
        print(f"kernel: compiles for {args.arch} ({len(cubin):,} bytes of machine code in "
              f"{time.perf_counter() - start:.1f} s); no device was used")
        return 0
    gpu = device.Device(args.device)
    print(f"driver: CUDA {gpu.driver_version}")
    print(f"GPU {args.device}: {gpu.name}, compute capability {gpu.capability[0]}.{gpu.capability[1]}, "
          f"{gpu.memory / 2 ** 30:.1f} GiB, {gpu.multiprocessors} multiprocessors")
    _, seconds = device.cached_kernel(gpu.arch, ring, cards=cards)
    gpu.kernels(ring, cards)
    said = f"compiled in {seconds:.1f} s" if seconds else "compiled before (cached)"
    print(f"kernel: {said} for {gpu.arch}, loaded; the gpu engine can run here "
          "(beggar search --gpu, BEGGAR_ENGINE=gpu)")
    return 0


def _version(package):
    from importlib import metadata
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "(version unknown)"


def add(commands):
    """Declare this command on the `beggar` parser's subcommands."""
    gpu = commands.add_parser(
        "gpu", help="show the GPUs, the CUDA versions and whether the kernel compiles",
        description="Say where this machine stands with the GPU engine: NVIDIA's CUDA bindings and "
                    "NVRTC, the driver, the GPU (name, compute capability, memory), and whether the "
                    "kernel compiles and loads. With --arch, compile the kernel for that "
                    "architecture only, without a device. Exit 0 when all is well, 3 when the "
                    "machine cannot run the GPU engine (no bindings, no driver, no GPU, a failed "
                    "compile).",
        epilog="Install the engine's dependencies with pip install '.[gpu]' in beggar's source "
               "folder (a clone, or its unpacked release).")
    gpu.add_argument("--arch", type=arch, metavar="SM", help="compile for this architecture (sm_90), no device")
    gpu.add_argument("--device", type=whole_in(0, 1023), default=0, metavar="N", help="which GPU (default 0)")
    gpu.set_defaults(run=run_gpu)
