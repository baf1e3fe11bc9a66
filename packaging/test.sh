#!/usr/bin/env bash
# Quick start, part two: install, build, and run every test tier:
#   1. release build (-Werror), then the lint (packaging/lint.sh: clang-format on every
#      file, clang-tidy on the files changed since origin/main, with the compile
#      commands the build exports)
#   2. on the release build: unit, integration (network namespaces), VM (qemu)
#   3. AddressSanitizer + UndefinedBehaviorSanitizer build: unit and integration
#   4. the libFuzzer targets (clang 14): each over its seed corpus once (fuzz/README.md)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/packaging/install-deps.sh" --test

echo "== release build"
"$src/packaging/build.sh" "$src/build"

echo "== lint"
# clang-tidy over every file takes ~45 min on 2 cores: CI checks what changed since the
# merge base with origin/main, or since .ci/tidy-base in a fresh clone (packaging/lint.sh).
"$src/packaging/lint.sh" --changed origin/main "$src/build"

echo "== tests"
(cd "$src/build" && ctest --output-on-failure)

echo "== sanitizer build (ASan + UBSan)"
# Line tables only (-g1): enough for the sanitizers' stack traces, a fifth faster than -g.
"$src/packaging/build.sh" "$src/build-asan" -DTUNER_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG=-g1
(cd "$src/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -L 'unit|integration')

echo "== fuzz targets (clang 14, libFuzzer, ASan + UBSan): every seed corpus once"
# Only the targets and the libraries they feed (fuzz/README.md gives the build's time);
# the seeds run in seconds. The long runs behind docs/measurements.md are not CI's.
CC=clang-14 CXX=clang++-14 cmake -S "$src" -B "$src/build-fuzz" -DTUNER_FUZZ=ON \
  -DTUNER_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$src/build-fuzz" -j"$(nproc)" --target fuzz
(cd "$src/build-fuzz" && ctest --output-on-failure -L fuzz)
