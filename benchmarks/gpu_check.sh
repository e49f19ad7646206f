#!/usr/bin/env bash
# The device check, for a lent GPU machine with no package registry (the
# device tool's nvidia-h200: its image's python3, numpy, cuda-bindings and
# NVRTC of CUDA 13, pytest; nothing can be installed from outside). Run from
# a copy of this repository, with the wheels benchmarks/gpu_wheels.sh
# gathered into .whl/ carried beside it. Each step has its own timeout and
# the whole check ends within 8 minutes; a step whose time is gone, or that
# cannot run here, says so and the next goes on. Everything goes to $OUT
# (eight files: check.txt is the steps' summary).
#
#     bash benchmarks/gpu_check.sh            # OUT=folder, else /tmp/beggar-gpu-check
#
# The steps: where the machine stands (GPU, driver, the packages used); the
# build, with no registry (setup.py build_ext --inplace, Cython from .whl/
# where the image's is not 3.x); `beggar gpu`; the driver's figures for each
# kernel (registers, local and shared bytes, blocks a multiprocessor); one
# launch alone against the compiled engine on every CPU core, in the same
# run (benchmarks/gpu_speed.py); the whole half-deck census; the exactness
# tests on the device (pytest -m gpu); Nsight Compute's active threads per
# instruction, instructions executed and achieved occupancy, where `ncu` is.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
OUT=${OUT:-/tmp/beggar-gpu-check}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}"
python=${PYTHON:-python3}
budget=${BEGGAR_CHECK_SECONDS:-480}
began=$(date +%s)
summary="$OUT/check.txt"
: >"$summary"

say() { echo "$*" | tee -a "$summary"; }

# step NAME SECONDS FILE COMMAND...: COMMAND under a timeout of SECONDS (less
# where less of the budget is left), its output appended to $OUT/FILE.
step() {
    local name=$1 seconds=$2 file=$3
    shift 3
    local left=$((budget - ($(date +%s) - began)))
    if [ "$left" -lt 15 ]; then
        say "$name: skipped: the check's $budget s are spent"
        return 1
    fi
    [ "$seconds" -gt "$left" ] && seconds=$left
    local start=$(date +%s)
    echo "== $name (at most $seconds s)" >>"$OUT/$file"
    # A function of this script runs too: bash -c finds it exported.
    timeout --kill-after=5 "$seconds" bash -c '"$@"' step "$@" >>"$OUT/$file" 2>&1
    local status=$?
    local spent=$(($(date +%s) - start))
    case $status in
        0) say "$name: done in $spent s ($file)" ;;
        124|137) say "$name: stopped at its limit of $seconds s ($file)" ;;
        *) say "$name: failed, exit $status, after $spent s ($file: $(tail -n 1 "$OUT/$file"))" ;;
    esac
    return $status
}

cuda_here() {
    "$python" -c 'from beggar.gpu import cuda; cuda.count()' >/dev/null 2>&1
}

why_no_cuda() {
    "$python" -c 'from beggar.gpu import cuda
try:
    cuda.count()
except Exception as error:
    print(error)' 2>&1 | tail -n 1
}

environment() {
    uname -a
    nvidia-smi || echo "nvidia-smi: not here"
    "$python" --version
    "$python" -m pip list 2>/dev/null \
        | grep -iE "^(cuda-bindings|cuda-pathfinder|nvidia-cuda-nvrtc[a-z0-9-]*|numpy|cython|setuptools) " \
        || echo "pip list: nothing of the packages the check uses"
    command -v ncu nvdisasm cuobjdump nvcc || true
    nproc
}

build() {
    if ! "$python" -c 'import Cython, sys; sys.exit(int(Cython.__version__.split(".")[0]) < 3)' 2>/dev/null; then
        if ! ls .whl/[Cc]ython-*.whl >/dev/null 2>&1; then
            echo "no Cython 3 here and none in .whl/ (benchmarks/gpu_wheels.sh)"
            return 3
        fi
        "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/beggar-site \
            .whl/[Cc]ython-*.whl || return 3
        export PYTHONPATH="$PYTHONPATH:/tmp/beggar-site"
    fi
    "$python" setup.py -q build_ext --inplace
}

kernel_figures() {
    "$python" - <<'PY'
from beggar.decks import Deck
from beggar.gpu import cuda
from beggar.gpu.engine import ring_of
gpu = cuda.Device(0)
attribute = gpu.driver.CUfunction_attribute
print(f"{gpu.name}, {gpu.arch}, {gpu.multiprocessors} multiprocessors, driver CUDA {gpu.driver_version}, "
      f"NVRTC {cuda.nvrtc_version()}")
print(f"{'deck':10} {'kernel':10} {'regs':>5} {'local B':>8} {'shared B':>9} {'threads':>8} {'blocks/SM':>10}")
for name in ("standard", "camicia", "half"):
    deck = Deck.parse(name)
    for kernel, (function, blocks, threads) in gpu.kernels(ring_of(deck), cuda.cards_of(deck.total)).items():
        get = lambda what: gpu._check(gpu.driver.cuFuncGetAttribute(what, function), "cuFuncGetAttribute")
        print(f"{name:10} {kernel:10} {get(attribute.CU_FUNC_ATTRIBUTE_NUM_REGS):5} "
              f"{get(attribute.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES):8} "
              f"{get(attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES):9} "
              f"{threads:8} {blocks // gpu.multiprocessors:10}")
gpu.close()
PY
}

# Active threads per instruction, warp-instructions executed, achieved
# occupancy, the SM clock, the kernel's time.
NCU_METRICS=smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum
NCU_METRICS+=,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second
NCU_METRICS+=,gpu__time_duration.sum

NCU_DEALS=$((1 << 24))

ncu_figures() {
    # One launch of NCU_DEALS standard deals on the cuda engine, its kernel
    # profiled (the clocks left as they are), then a deal's worth beside the
    # issue model's figures.
    ncu --csv --clock-control none --kernel-name bg_sample --launch-count 1 --metrics "$NCU_METRICS" \
        "$python" -c "from beggar import engine; engine.sample_best($NCU_DEALS, 1, 10 ** 9, 0, 'cuda')" \
        >"$OUT/ncu.csv" || return
    "$python" benchmarks/ncu_figures.py "$OUT/ncu.csv" "$NCU_DEALS"
}

export OUT python root NCU_METRICS NCU_DEALS
export -f environment build kernel_figures ncu_figures
say "beggar device check, $(date -u '+%Y-%m-%d %H:%M UTC'), within $budget s; output in $OUT"
# The caps add up to the budget (480 s), the steps that settle the most
# first: exactness and Nsight Compute (the model's count against the
# machine's) before the speed and the census.
step "environment" 20 environment.txt environment
step "build" 140 build.txt build || { say "the build failed: nothing else can run"; exit 3; }
step "beggar gpu" 40 gpu.txt "$python" -m beggar gpu
if cuda_here; then
    step "kernel figures" 30 gpu.txt kernel_figures
    step "exactness on the device" 120 tests.txt "$python" -m pytest -q -n 0 -m gpu -p no:cacheprovider \
        tests/test_gpu_cuda.py
    if command -v ncu >/dev/null; then
        step "Nsight Compute" 60 ncu.txt ncu_figures
    else
        say "Nsight Compute: skipped: no ncu here"
    fi
    step "one launch against every core" 40 speed.txt "$python" benchmarks/gpu_speed.py --cpu-deals 1000000 \
        --gpu-seconds 2
    step "the whole half-deck census" 30 speed.txt "$python" -m beggar census half --engine cuda --quiet \
        --archive "$OUT/census.sqlite"
else
    reason=$(why_no_cuda)
    for name in "kernel figures" "exactness on the device" "Nsight Compute" "one launch against every core" \
            "the whole half-deck census"; do
        say "$name: skipped: CUDA cannot be used here ($reason)"
    done
fi
say "the check took $(($(date +%s) - began)) s"
rm -f "$OUT/census.sqlite"*
