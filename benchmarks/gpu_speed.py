"""The GPU engines' speed against every CPU core, measured side by side in one run.

    python3 benchmarks/gpu_speed.py [--cpu-deals N] [--gpu-seconds S] [--full-half-census]

Prints the devices, then for random two-player deals of the standard deck
(26/26), camicia (20/20) and the half deck (13/13): deals per second on the
GPU (engine "cuda"), on the OpenCL device (engine "opencl": PoCL's CPU
device where no OpenCL GPU is installed, the kernels' cost on a CPU, not a
goal), on every CPU core at once with the compiled engine (one worker
process a core), on one core, with "gpu-host" (the kernels' own code on one
core), and the ratios of the GPU's; then census deals per second of the half
deck and of camicia blocks, and what the whole census of the half deck
(3,936,933,000 deals) takes on each (--full-half-census plays it on the GPU
and times it). Where a machine has several GPUs, standard deals on each
alone and on all at once (--devices all), and all against the sum of each
alone. Every game runs to its end with loop detection on and none is kept
(min_cards is out of reach), so the figures are the engines' alone. An
engine that cannot run here prints "-" and says why.
"""

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor

from beggar import _engine as compiled
from beggar import census as enumeration
from beggar import engine
from beggar.decks import Deck

NEVER = 10 ** 9
SEED = 1
DECKS = ("standard", "camicia", "half")


def rate(run, deals):
    start = time.perf_counter()
    run()
    return deals / (time.perf_counter() - start)


def _cpu_sample(job):
    deck, start, deals = job
    compiled.sample(deals, SEED, NEVER, start, Deck.parse(deck))
    return deals


def _cpu_census(job):
    deck, first, deals = job
    compiled.census(first, deals, Deck.parse(deck), 2, None, 10)
    return deals


def on_every_core(pool, work, deck, first, deals, cores):
    """Deals per second of `cores` processes playing `deals` deals each."""
    jobs = [(deck, first + k * deals, deals) for k in range(cores)]
    start = time.perf_counter()
    total = sum(pool.map(work, jobs))
    return total / (time.perf_counter() - start)


def device_rate(call, seconds, deals=1 << 24):
    """Deals per second of `call(n)` on a device, n doubled from `deals` until
    a call takes `seconds`, after a first call that builds its kernels."""
    call(1 << 10)
    while True:
        start = time.perf_counter()
        call(deals)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds or deals >= 1 << 36:
            return deals / elapsed
        deals *= 2


def ready(name, devices=None):
    """Engine `name` on `devices`, its kernels built (and, on a GPU, its
    context made), and what it plays on in words; (None, why) where it cannot run."""
    from beggar import gpu as engines
    try:
        made = engines.get(name, devices)
        made.sample(1 << 12, SEED, NEVER)
    except (engine.EngineError, engine.EngineFault) as error:
        return None, f"none measured ({error})"
    backend = made.backend
    found = getattr(backend, "backends", [backend])
    return made, "; ".join(f"{getattr(one, 'name', 'the kernels on one core')}" for one in found)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpu-deals", type=int, default=1_000_000, help="deals per core (default 10^6)")
    parser.add_argument("--gpu-seconds", type=float, default=2.0, help="length of a device measurement")
    parser.add_argument("--full-half-census", action="store_true", help="play the whole half-deck census on the GPU")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    gpu, said = ready("cuda")
    print(f"GPU (engine cuda): {said}")
    opencl, said = ready("opencl")
    print(f"OpenCL (engine opencl): {said}")
    host = engine.get("gpu-host")
    print(f"CPU: {cores} cores; compiled engine, one worker process a core; gpu-host: the kernels on one core")
    print()
    columns = (f"{'GPU':>14} {'OpenCL':>12} {'all cores':>14} {'one core':>12} {'gpu-host':>12} "
               f"{'GPU/cores':>10} {'GPU/core':>10}")
    print(f"{'random deals':20} {columns}")
    with ProcessPoolExecutor(cores) as pool:
        for name in DECKS:
            deck = Deck.parse(name)
            every = on_every_core(pool, _cpu_sample, name, 0, args.cpu_deals, cores)
            one = rate(lambda: compiled.sample(args.cpu_deals, SEED, NEVER, 0, deck), args.cpu_deals)
            twin = rate(lambda: host.sample(args.cpu_deals // 4, SEED, NEVER, 0, deck), args.cpu_deals // 4)
            on_gpu = device_rate(lambda n: gpu.sample(n, SEED, NEVER, 0, deck), args.gpu_seconds) if gpu else None
            on_opencl = device_rate(lambda n: opencl.sample(n, SEED, NEVER, 0, deck), args.gpu_seconds,
                                    1 << 16) if opencl else None
            print(row(f"{name} {'/'.join(map(str, half_sizes(deck)))}", on_gpu, on_opencl, every, one, twin))
        print()
        print(f"{'census blocks':20} {columns}")
        for name in ("half", "camicia"):
            deck = Deck.parse(name)
            first = enumeration.count(deck) // 3      # past the first ranks, whose plain cards lie on top
            every = on_every_core(pool, _cpu_census, name, first, args.cpu_deals, cores)
            one = rate(lambda: compiled.census(first, args.cpu_deals, deck, 2, None, 10), args.cpu_deals)
            twin = rate(lambda: host.census(first, args.cpu_deals // 4, deck, 2, None, 10), args.cpu_deals // 4)
            on_gpu = device_rate(lambda n: gpu.census(first, n, deck, 2, None, 10), args.gpu_seconds) \
                if gpu else None
            on_opencl = device_rate(lambda n: opencl.census(first, n, deck, 2, None, 10), args.gpu_seconds,
                                    1 << 16) if opencl else None
            print(row(name, on_gpu, on_opencl, every, one, twin))
            if name == "half":
                half, whole = every, enumeration.count(deck)
                print(f"  the whole half-deck census ({whole:,} deals): {whole / half / 60:,.1f} minutes on "
                      f"{cores} cores" + (f", {whole / on_gpu:,.1f} s on the GPU at this rate" if gpu else ""))
    if gpu and args.full_half_census:
        deck = Deck.parse("half")
        start = time.perf_counter()
        result = gpu.census(0, enumeration.count(deck), deck, 2, None, 10)
        print(f"  played on the GPU: {time.perf_counter() - start:.1f} s, {result.statuses['loop']} loop deals, "
              f"longest {result.longest[0][2].cards} cards")
    if gpu:
        several_gpus(args.gpu_seconds)


def several_gpus(seconds):
    """Standard deals on each GPU alone and on all at once (the engine cuda on --devices all)."""
    from beggar.gpu import cuda
    count = cuda.count()
    if count < 2:
        return
    print()
    print(f"{count} GPUs, standard 26/26 deals")
    alone = []
    for number in range(count):
        made, said = ready("cuda", (number,))
        alone.append(device_rate(lambda n: made.sample(n, SEED, NEVER), seconds))
        print(f"  GPU {number} alone ({said}): {alone[-1]:,.0f} deals/s")
    together, _ = ready("cuda", "all")
    every = device_rate(lambda n: together.sample(n, SEED, NEVER), seconds)
    print(f"  all {count} at once: {every:,.0f} deals/s, {every / sum(alone):.2f} of the sum of each alone")


def half_sizes(deck):
    return (deck.total - deck.total // 2, deck.total // 2)


def row(name, on_gpu, on_opencl, every, one, twin):
    shown = f"{on_gpu:14,.0f}" if on_gpu else f"{'-':>14}"
    shown += f" {on_opencl:12,.0f}" if on_opencl else f" {'-':>12}"
    ratios = f"{on_gpu / every:9,.0f}x {on_gpu / one:9,.0f}x" if on_gpu else f"{'-':>10} {'-':>10}"
    return f"{name:20} {shown} {every:14,.0f} {one:12,.0f} {twin:12,.0f} {ratios}"


if __name__ == "__main__":
    main()
