#!/usr/bin/env bash
# The CUDA backend of the flow model on a machine with a GPU, in one go (docs/BENCHMARKS.md):
# builds with CUDA required, runs the CUDA tests (CPU vs CUDA rates to 1e-6 on 10^3..10^6
# flows), then times one rate solve on one core and on the device at 10^5 and 10^6 flows, and
# one DCQCN fluid step (bench/fluid_step.cpp) likewise.
# Prints everything; exit status non-zero on the first failure.
#
#   bench/cuda.sh [build-dir]        (default: build-cuda)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build-cuda}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DFABRICSIM_CUDA=ON -DFABRICSIM_BENCH=ON >/dev/null
cmake --build "$dir" -j"$(nproc)" --target cuda_tests flow_solve fluid_step
echo "== CUDA tests (a skip here means no usable device) =="
"$dir/tests/cuda_tests"
echo "== rate solve: one core vs the device =="
"$dir/bench/flow_solve" --cuda 100000 1000000
echo "== DCQCN fluid step: one core vs the device =="
"$dir/bench/fluid_step" --cuda 100000 1000000
