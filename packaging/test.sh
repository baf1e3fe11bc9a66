#!/usr/bin/env bash
# Quick start, part two: install, build, and run every test tier:
#   1. release build (-Werror): unit, integration (network namespaces), VM (qemu)
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build: unit and integration
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/packaging/install-deps.sh" --test

echo "== release build"
"$src/packaging/build.sh" "$src/build"
(cd "$src/build" && ctest --output-on-failure)

echo "== sanitizer build (ASan + UBSan)"
"$src/packaging/build.sh" "$src/build-asan" -DTUNER_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
(cd "$src/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -L 'unit|integration')
