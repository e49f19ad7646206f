#!/usr/bin/env bash
# Here, where pip reaches PyPI: gather into .whl/ (git ignores it) the wheels
# that benchmarks/gpu_check.sh needs on a lent GPU machine beyond what its
# image carries (the device tool's KINDS.md lists that image's packages:
# Python 3.12, numpy, cuda-bindings and NVRTC of CUDA 13, pytest and
# pytest-xdist, Cython, setuptools, tqdm). Only Cython is carried, at the
# version this project builds with, so that the build does not depend on
# which Cython the image has; everything else is the image's own.
#     bash benchmarks/gpu_wheels.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
rm -rf .whl
mkdir -p .whl
python=${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}
cython=$("$python" -c 'import Cython; print(Cython.__version__)')
"$python" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d .whl "Cython==$cython"
ls -l .whl
