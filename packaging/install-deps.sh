#!/usr/bin/env bash
# Installs what tuner needs from the distribution's packages: Debian 12 (bookworm), and
# for the build alone Debian 11 (bullseye) and 13 (trixie) too (README: Supported
# systems). Where the distribution has no toml++ package (Debian 11), the build takes a
# pinned copy instead (cmake/TomlPlusPlus.cmake). Run as root.
#   install-deps.sh          build dependencies
#   install-deps.sh --unit   plus what the unit tests run (the fixture tarballs' bzip2,
#                            ip and sysctl for the namespace tests): packaging/distro_test.sh
#   install-deps.sh --test   plus what the integration and VM tests, the fuzz targets
#                            (clang and libFuzzer: fuzz/README.md) and the lint need
#                            (ansible-core, ansible-test's sanity tools and ansible-lint:
#                            packaging/ansible)
set -euo pipefail

build_pkgs=(
  g++ cmake make ninja-build pkg-config
  libhwloc-dev libnuma-dev libmnl-dev libtomlplusplus-dev libboost-program-options-dev
  nlohmann-json3-dev libfmt-dev doctest-dev libre2-dev
)
unit_pkgs=(bzip2 iproute2 procps)
test_pkgs=(
  "${unit_pkgs[@]}" util-linux python3
  qemu-system-x86 busybox-static cpio kmod zstd xz-utils jq ethtool time
  nftables iperf3 fio debootstrap
  clang-format clang-tidy clang-14 libclang-rt-14-dev
  dpkg-dev lintian rpm rpmlint man-db groff-base systemd python3-prometheus-client python3-jsonschema
  prometheus chromium
  python3-seccomp
  ansible-core pylint python3-pycodestyle yamllint python3-voluptuous ansible-lint
)

pkgs=("${build_pkgs[@]}")
case "${1:-}" in
  --test) pkgs+=("${test_pkgs[@]}") ;;
  --unit) pkgs+=("${unit_pkgs[@]}") ;;
  "") ;;
  *) echo "install-deps: unknown option ${1} (--unit, --test)" >&2; exit 2 ;;
esac

if [[ $(id -u) -eq 0 ]] && ! apt-cache show libtomlplusplus-dev >/dev/null 2>&1; then
  # apt-cache knows only what the lists hold: update them once before deciding.
  [[ -n "$(find /var/lib/apt/lists -name '*Packages*' -print -quit 2>/dev/null)" ]] ||
    apt-get update -qq
  if ! apt-cache show libtomlplusplus-dev >/dev/null 2>&1; then
    echo "install-deps: this distribution has no libtomlplusplus-dev; the build downloads" \
      "Debian 12's, pinned by its SHA-256 (cmake/TomlPlusPlus.cmake)" >&2
    pkgs=("${pkgs[@]/libtomlplusplus-dev/}")
  fi
fi

missing=()
for p in "${pkgs[@]}"; do
  [[ -n "$p" ]] || continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "install-deps: missing packages: ${missing[*]} (run as root to install them)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
