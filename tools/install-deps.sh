#!/usr/bin/env bash
# Installs, with apt-get, the Debian 12 packages fabricsim builds with. Idempotent: when
# nothing is missing it prints nothing and touches nothing. Uses sudo when not root.
set -euo pipefail

packages=(
  g++ cmake make                  # toolchain (g++ 12, CMake 3.25 on Debian 12)
  libyaml-cpp-dev                 # scenario files (src/scenario/ only)
  libboost-graph-dev              # topology and routing
  libeigen3-dev                   # CPU flow solver
  libfmt-dev                      # formatting (g++ 12 has no <format>)
  libcli11-dev                    # command line
  nlohmann-json3-dev              # result.json
  libprotobuf-dev protobuf-compiler  # Chakra execution traces (third_party/chakra/et_def.proto, protoc at build time)
  catch2                          # tests (Catch2 v2)
  libbenchmark-dev                # micro-benchmarks in bench/
  chromium                        # headless: the HTML report's check and tools/screenshot.sh
  slurm-wlm                       # slurmctld, slurmd, sbatch: the sweep's job array under Slurm (ctest "slurm: ...")
  clang-format                    # tools/test.sh --lint: the C++ layout of .clang-format
  clang-tidy                      # tools/test.sh --lint: the checks of .clang-tidy
  python3-jsonschema python3-yaml  # tools/check_json_schema.py: the JSON Schema as an editor applies it
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "fabricsim: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
