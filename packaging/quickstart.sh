#!/usr/bin/env bash
# Quick start, part one: install the build packages, build the tuner binary (only it:
# the tests are part two's), and show what tuner would change on this machine (a dry
# run: `tuner plan` of the best-matching profile). Changes nothing.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/packaging/install-deps.sh"
"$src/packaging/build.sh" --target tuner "$src/build"
exec "$src/build/tuner" plan
