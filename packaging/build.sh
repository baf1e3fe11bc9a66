#!/usr/bin/env bash
# Configures and builds tuner.   build.sh [--target T]... [BUILD_DIR] [extra cmake args...]
# Without --target: everything (the binary, the test binaries, the simulator).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
targets=()
while [[ "${1:-}" == --target ]]; do
  targets+=(--target "${2:?--target needs a name}")
  shift 2
done
dir=${1:-$src/build}
shift || true
# -O2 as RelWithDebInfo, without its debug information: a third less compile time on 2
# cores, and the package strips it anyway. To debug, configure a build directory of
# your own with -DCMAKE_BUILD_TYPE=RelWithDebInfo.
# Ninja where it is installed (install-deps.sh installs it): it compiles a layer's files
# while the layers below still link, where make waits for them. A build directory keeps
# the generator it was first configured with.
generator=()
if [[ ! -f "$dir/CMakeCache.txt" ]] && command -v ninja >/dev/null; then
  generator=(-G Ninja)
fi
cmake -S "$src" -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DTUNER_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)" "${targets[@]}"
