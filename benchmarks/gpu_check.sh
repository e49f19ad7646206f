#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: install beggar with the GPU and test
# extras into a fresh virtual environment, say where the machine stands, hold
# the GPU engine to the compiled engine (pytest -m gpu), and measure it.
#     bash benchmarks/gpu_check.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${BEGGAR_GPU_VENV:-/tmp/beggar-gpu-venv}
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet "$root[test]"
cd "$root"
"$venv/bin/beggar" gpu
"$venv/bin/python" -m pytest -q -n 0 -m gpu tests/test_gpu.py
"$venv/bin/python" -m pytest -q -n 0 tests/test_opencl.py
"$venv/bin/python" benchmarks/gpu_speed.py --cpu-deals 2000000 --full-half-census
