"""beggar gpu: where this machine stands with the GPU engines: every NVIDIA
GPU and every OpenCL device, and whether the kernels build and run there."""

import argparse
import re
import time

ARCH = re.compile(r"sm_[1-9][0-9]{1,2}[af]?")
#: Deals each device plays against the compiled engine to show that the kernels run there.
TRIAL_DEALS = 20_000


def arch(text):
    if not ARCH.fullmatch(text):
        raise argparse.ArgumentTypeError(f"must be an architecture such as sm_90, not {text[:40]!r}")
    return text


def run_gpu(args):
    from ..decks import STANDARD
    from ..gpu import cuda
    from ..gpu.engine import ring_of
    from ..gpu.launch import GpuFault

    if args.arch is not None:
        print(f"CUDA: {cuda.versions()}")
        start = time.perf_counter()
        cubin = cuda.compile_kernel(args.arch, ring_of(STANDARD), cuda.cards_of(STANDARD.total))
        print(f"kernel: compiles for {args.arch} ({len(cubin):,} bytes of machine code in "
              f"{time.perf_counter() - start:.1f} s); no device was used")
        return 0
    from .. import gpu
    running = {}    # engine: [whether it is a GPU, for each device that runs the kernels]
    reasons = []    # why the others do not
    for kind in gpu.KINDS:
        if not kind.on_device:
            continue
        module = kind.backends()
        try:
            print(f"{kind.title}: {module.versions()}")
            running[kind.name] = runs = []
            found = module.listing()
        except GpuFault as error:
            if kind.name not in running:        # no versions: its title alone
                print(f"{kind.title}:")
            print(f"  {error}")
            reasons.append(f"{kind.name}: {error}")
            continue
        for said, device in found:
            if isinstance(device, str):         # what it lacks
                print(f"  {said}: {device}")
                continue
            try:
                backend = device()
            except GpuFault as error:
                print(f"  {said}: {error}")
                continue
            print(f"  {said}: " + _trial(kind.name, backend))
            if not backend.closed:
                runs.append(backend.gpu)
        if not runs:
            reasons.append(f"{kind.name}: no device here runs the kernels")
    engines = [name for name, kinds in running.items() if kinds]
    if not engines:
        raise GpuFault("no GPU engine can run here (" + "; ".join(reasons) + ")")
    gpus = any(any(kinds) for kinds in running.values())
    print(f"{' and '.join(engines)} can run here (beggar search --engine {engines[0]}"
          + (", or --gpu)" if gpus else "); --gpu finds no GPU"))
    return 0


def _trial(name, backend):
    """Play TRIAL_DEALS standard deals on `backend` and hold them to the
    compiled engine: what to say of it. A backend that fails is closed."""
    from .. import _engine
    from ..gpu.engine import RangeEngine
    from ..gpu.launch import GpuFault
    engine = RangeEngine(name, lambda: backend)
    args = (TRIAL_DEALS, 1, 1000, 0)
    start = time.perf_counter()
    try:
        played = engine.sample_best(*args)
    except GpuFault as error:
        backend.close()
        return f"the kernels do not run: {error}"
    seconds = time.perf_counter() - start
    if played != _engine.sample_best(*args):
        backend.close()
        return (f"the kernels run, but {TRIAL_DEALS:,} deals do NOT give what the compiled engine gives: "
                "this is a bug in beggar or in the device's compiler; please report it")
    return (f"the kernels build and run here, {TRIAL_DEALS:,} deals as the compiled engine plays them "
            f"in {seconds:.1f} s, the build included")


def add(commands):
    gpu = commands.add_parser(
        "gpu", help="show the GPUs and OpenCL devices, and whether the kernels run there",
        description="Say where this machine stands with the GPU engines: NVIDIA's CUDA bindings, "
                    "NVRTC and driver, and every GPU (the engine gpu); pyopencl and every OpenCL "
                    "device of every platform (the engine opencl), with the numbers --devices "
                    "takes; and for each device whether the kernels build and run there, giving "
                    f"the compiled engine's results on {TRIAL_DEALS:,} deals. With --arch, compile the "
                    "CUDA kernels for that architecture only, without a device. Exit 0 when a GPU "
                    "engine can run here, 3 when none can (the reasons in one line).",
        epilog="Install the engines' dependencies with pip install '.[gpu]' (CUDA) or '.[opencl]' "
               "(OpenCL) in beggar's source folder (a clone, or its unpacked release).")
    gpu.add_argument("--arch", type=arch, metavar="SM", help="compile for this architecture (sm_90), no device")
    gpu.set_defaults(run=run_gpu)
