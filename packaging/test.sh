#!/usr/bin/env bash
# Quick start, part two: install, build, and run every test tier. Each configuration is
# built once, and each test binary in one of them (CONTRIBUTING.md "Tests"):
#   1. release build (-Werror): the tuner binary only, then the lint (packaging/lint.sh:
#      clang-format on every file, clang-tidy on the files changed since origin/main,
#      with the compile commands the build exports)
#   2. on the release binary: integration (network namespaces), VM (qemu), package, lint
#   3. the sanitizer build (clang 14, AddressSanitizer + UndefinedBehaviorSanitizer): the
#      binary, the unit tests and the libFuzzer targets; there the unit tests, the
#      integration tests again (but those labelled release-only: the ones that assert a
#      benchmark's decision, and the Ansible collection's), and each fuzz target once
#      over its seed corpus
#   4. the oldest and newest Debian releases tuner builds on (Debian 11 and 13, in
#      debootstrap chroots): the quick start and the unit tests built and run there
#      (packaging/distro_test.sh, 23 minutes on a fresh machine). The portable
#      binary and the RPM (packaging/rpm_test.sh, 7 more) are by hand: CI's 90 minutes
#      would not hold both with margin (docs/building.md)
# Tests run side by side (ctest -j), but those that assert a benchmark's decision, which
# run alone (RUN_SERIAL: tests/CMakeLists.txt says why each is labelled as it is).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
"$src/packaging/install-deps.sh" --test

echo "== release build (the tuner binary, with the man page and changelog it packages)"
"$src/packaging/build.sh" --target tuner --target tuner_man --target tuner_changelog "$src/build"

echo "== lint"
# clang-tidy over every file takes ~45 min on 2 cores: CI checks what changed since the
# merge base with origin/main, or since .ci/tidy-base in a fresh clone (packaging/lint.sh).
"$src/packaging/lint.sh" --changed origin/main "$src/build"

echo "== tests on the release binary"
# The unit tests are the sanitizer tier's; the tests that need their binary
# (integration/nic_link_veth_test, part of numa_binding_test) run in full there.
(cd "$src/build" && ctest --output-on-failure -j"$jobs" -LE unit)

echo "== sanitizer build (clang 14, ASan + UBSan)"
# -O0 with line tables only (-g1): enough for the sanitizers' stack traces. clang compiles
# this configuration in 40% less time than GCC, and a second compiler's warnings come
# with it. The fuzz targets link against the same libraries: replaying the seeds needs no
# coverage (the coverage-guided build is fuzz/README.md's).
CC=clang-14 CXX=clang++-14 "$src/packaging/build.sh" "$src/build-asan" -DTUNER_SANITIZE=ON \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1
(cd "$src/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs" -L 'unit|integration|fuzz' -LE release-only)

echo "== other releases: Debian 11 and 13 chroots (packaging/distro_test.sh)"
t0=$SECONDS
bash "$src/packaging/distro_test.sh"
echo "== other releases: $((SECONDS - t0)) s"
