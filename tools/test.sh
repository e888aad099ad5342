#!/usr/bin/env bash
# README command 2: install what is missing, build Release with the tests, run the whole
# suite with ctest. `tools/test.sh --sanitize` does the same in build-asan/ with ASan+UBSan.
# `tools/test.sh --lint` only checks the C++ layout against .clang-format (nothing is built).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--lint" ]; then
  # Every tracked C++ and CUDA file but the vendored ones; exits non-zero naming each file
  # clang-format would change.
  git ls-files -z '*.cpp' '*.hpp' '*.cu' ':!:src/report/vendor/*' | xargs -0 clang-format --dry-run --Werror
  echo "lint: every C++ file matches .clang-format"
  exit 0
fi
tools/install-deps.sh

dir=build
flags=(-DCMAKE_BUILD_TYPE=Release)
if [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan
  flags=(-DCMAKE_BUILD_TYPE=Debug -DFABRICSIM_SANITIZE=ON -DFABRICSIM_BENCH=OFF)
  shift
fi
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j "$(nproc)"
cd "$dir"
ctest --output-on-failure -j "$(nproc)" "$@"
