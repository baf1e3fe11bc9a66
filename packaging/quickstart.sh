#!/usr/bin/env bash
# Quick start, part one: install the build packages, build the tuner binary (only it, with
# the man page and changelog the package needs, so that `cd build && cpack -G DEB` works
# next: the tests are part two's), and show what tuner would change on this machine (a dry
# run: `tuner plan` of the best-matching profile). Changes nothing on the machine.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/packaging/install-deps.sh"
"$src/packaging/build.sh" --target tuner "$src/build"
# Root reads no profile another user could have written. A git clone's are 0644, but a
# tree unpacked from a tarball by root keeps the archive's 0664: say so, and take the
# write bits of group and others off this tree's profiles and the folders above them in
# it, so that the dry run can read them.
mapfile -t writable < <(
  find "$src" "$src/profiles" -maxdepth 0 -perm /022 -print
  find "$src/profiles" -maxdepth 1 -name '*.toml' -perm /022 -print
)
if ((${#writable[@]})) && [[ $(id -u) -eq 0 ]]; then
  echo "quickstart: this tree's profiles are group- or world-writable (a tarball unpacked" \
    "by root?), and tuner refuses such profiles as root: chmod go-w on them" >&2
  chmod go-w "${writable[@]}"
fi
exec "$src/build/tuner" plan
