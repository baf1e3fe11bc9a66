#!/usr/bin/env bash
# Quick start, part one: install, build, and show what tuner would change on this
# machine (a dry run: `tuner plan` of the best-matching profile). Changes nothing.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/packaging/install-deps.sh"
"$src/packaging/build.sh" "$src/build"
exec "$src/build/tuner" plan
