#!/usr/bin/env bash
# Configures and builds tuner.   build.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$src/build}
shift || true
cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTUNER_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)"
