#!/usr/bin/env bash
# README command 1: install what is missing, build Release, run the quick-start scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target fabricsim -j "$(nproc)"
./build/fabricsim run scenarios/quickstart.yaml "$@"
