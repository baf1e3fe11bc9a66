#!/usr/bin/env bash
# What the portable binary (-DTUNER_PORTABLE=ON, packaging/portable.sh) needs of the
# system it runs on, from its ELF headers: every NEEDED library is one that EL8, EL9,
# Debian 11+ and Ubuntu 20.04+ install with the base system, no C++ runtime version is
# asked for (libstdc++ and libgcc are linked in), and no glibc symbol version is newer
# than GLIBC_MAX (default 2.28: EL8's; tuner/cli/glibc_compat.cc keeps a build on Debian
# 11's 2.31 within it). It prints both, and whether EL8's glibc 2.28 is enough.
#   portable_check.sh BINARY [GLIBC_MAX]     (no root; exit 77 without objdump)
set -uo pipefail
bin=${1:?usage: portable_check.sh BINARY [GLIBC_MAX]}
max=${2:-2.28}
fail() { echo "FAIL: package/portable: $*"; exit 1; }
command -v objdump >/dev/null || { echo "SKIP: package/portable: no objdump (binutils)"; exit 77; }
[[ -f "$bin" ]] || fail "no $bin"

# glibc's libraries (libdl and libpthread are stubs since 2.34, still installed), the
# kernel netlink helper that iproute2 needs (libmnl), and systemd's libudev (hwloc).
allowed=(ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1
  libmnl.so.0 libudev.so.1)
needed=$(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }')
[[ -n "$needed" ]] || fail "$bin has no NEEDED entries: not a dynamic ELF binary?"
extra=""
for lib in $needed; do
  [[ " ${allowed[*]} " == *" $lib "* ]] || extra+=" $lib"
done
echo "NEEDED: $(echo $needed)"
[[ -z "$extra" ]] || fail "needs libraries outside the portable set:$extra"

# Version references: objdump -T lists each dynamic symbol with its version.
versions=$(objdump -T "$bin" | grep -o '(\?\(GLIBC\|GLIBCXX\|CXXABI\|GCC\)_[0-9.]*' | tr -d '(' | sort -u)
cxx=$(grep -v '^GLIBC_' <<<"$versions" | paste -sd' ' -)
[[ -z "$cxx" ]] || fail "asks the system for a C++ runtime or libgcc version: $cxx"
glibc_max=$(grep '^GLIBC_' <<<"$versions" | sed 's/^GLIBC_//' | sort -V | tail -n 1)
[[ -n "$glibc_max" ]] || fail "no GLIBC_ symbol version found"
echo "highest glibc symbol version: GLIBC_$glibc_max ($(objdump -T "$bin" |
  grep -F "(GLIBC_$glibc_max)" | awk '{ print $NF }' | sort -u | paste -sd' ' -))"
newest=$(printf '%s\n%s\n' "$glibc_max" "$max" | sort -V | tail -n 1)
[[ "$newest" == "$max" ]] || fail "needs GLIBC_$glibc_max, above $max"
if [[ $(printf '%s\n2.28\n' "$glibc_max" | sort -V | tail -n 1) == 2.28 ]]; then
  echo "runs on glibc 2.28 (EL8) and later"
else
  echo "does not run on EL8 (glibc 2.28): needs GLIBC_$glibc_max"
fi
echo "PASS: package/portable: NEEDED within the portable set, glibc at most $max"
