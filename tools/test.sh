#!/usr/bin/env bash
# README command 2: install what is missing, build Release with the tests, run the whole
# suite with ctest. `tools/test.sh --sanitize` does the same in build-asan/ with ASan+UBSan.
# `tools/test.sh --lint [--all]` checks the C++ layout against .clang-format and runs
# clang-tidy (.clang-tidy) on the files changed since main, or on all (nothing is built).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--lint" ]; then
  # Every tracked C++ and CUDA file but the vendored ones; exits non-zero naming each file
  # clang-format would change.
  git ls-files -z '*.cpp' '*.hpp' '*.cu' ':!:src/report/vendor/*' | xargs -0 clang-format --dry-run --Werror
  echo "lint: every C++ file matches .clang-format"
  # clang-tidy (.clang-tidy) takes 5-10 s of a core per file: by default only the .cpp files
  # changed since the merge base with main (committed or not), with `--all` every one; in
  # parallel, one per core. It needs a configured tree for the compile commands (not a build).
  cmake -S . -B build-lint -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
  if [ "${2:-}" = "--all" ]; then
    files=$(git ls-files '*.cpp' ':!:src/report/vendor/*' ':!:tests/cuda/*')
  else
    base=$(git merge-base HEAD main 2>/dev/null || git rev-parse HEAD)
    files=$( (git diff --name-only "$base" -- '*.cpp'; git ls-files --others --exclude-standard '*.cpp') |
      grep -v -e '^src/report/vendor/' -e '^tests/cuda/' | sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done)
  fi
  # Only files this configuration compiles (CUDA sources need a CUDA build).
  files=$(for f in $files; do grep -qF "\"$PWD/$f\"" build-lint/compile_commands.json && echo "$f"; done)
  if [ -n "$files" ]; then
    # (clang's "N warnings generated." counts what the filters above leave out: not shown)
    echo "$files" | xargs -P "$(nproc)" -n 1 clang-tidy -p build-lint --quiet 2> >(grep -v 'warnings* generated\.$' >&2)
    echo "lint: clang-tidy finds nothing in $(echo "$files" | wc -l) files"
  fi
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
