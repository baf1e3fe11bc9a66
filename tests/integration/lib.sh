# Helpers for the root-only integration tests of apply/rollback (sourced).
# Each test re-runs itself inside `unshare -n`: a private network namespace, where
# net.* sysctls are per-namespace, so the host is never touched.
# Usage at the top of a test:  source "$(dirname "$0")/lib.sh"; enter_netns "$@"

set -u

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "--- $*"; }

enter_netns() {
  TUNER=$(readlink -f "${1:?usage: $0 path/to/tuner}")
  [ -x "$TUNER" ] || fail "no tuner binary at $1"
  [ "$(id -u)" = 0 ] || skip "needs root (changes sysctls inside a private network namespace)"
  if [ -z "${TUNER_IN_NETNS:-}" ]; then
    unshare -n true 2>/dev/null || skip "unshare -n failed (no user/network namespaces here)"
    TUNER_IN_NETNS=1 exec unshare -n bash "$0" "$@"
  fi
  WORK=$(mktemp -d /tmp/tuner-it.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
  STATE="$WORK/state"
  export TUNER TUNER_TEST_WORK="$WORK"
}

# tuner with the test's state dir and colour off.
t() { "$TUNER" "$1" --state-dir "$STATE" --color never "${@:2}"; }

# Runs a command expecting exit status $1; keeps its output in $OUT.
expect_rc() {
  local want=$1; shift
  set +e
  OUT=$("$@" 2>&1)
  local rc=$?
  set -e
  [ "$rc" = "$want" ] || fail "expected exit $want, got $rc from: $*
$OUT"
}

# A profile of per-namespace sysctls, written to $WORK/$1.toml; reads "key = value"
# lines on stdin.
write_profile() {
  local name=$1 f="$WORK/$1.toml"
  { printf '[profile]\nname = "%s"\n\n[sysctl]\n' "$name"
    while IFS='=' read -r k v; do
      k=$(echo "$k" | xargs); v=$(echo "$v" | xargs)
      [ -n "$k" ] && printf '"%s" = "%s"\n' "$k" "$v"
    done; } > "$f"
  echo "$f"
}

sysctl_file() { echo "/proc/sys/$(echo "$1" | tr . /)"; }
sysctl_get() { cat "$(sysctl_file "$1")"; }

# Every readable value under /proc/sys/net, one "path:line" per line of each file;
# files the kernel will not let us read (write-only flush knobs) are left out. One grep
# reads them all (a cat per file took ~10 s on a loaded 2-core machine).
snapshot_net() {
  { grep -rs '' /proc/sys/net || true; } | LC_ALL=C sort  # grep: 2 for the unreadable ones
}

# A value different from the current one for a numeric sysctl (keeps it in range).
other_value() {
  local cur; cur=$(sysctl_get "$1")
  case "$cur" in
    0) echo 1 ;; 1) echo 0 ;; *) echo $((cur - 1)) ;;
  esac
}

# TCP crippled by tiny buffers, which a profile's larger ones measurably fix (the verify
# loop's real keep): tcp_buffers_init sets rmem and wmem (the sysctl names) and saves
# their values, in the test's own namespace; then cripple and uncripple.
tcp_buffers_init() {
  rmem=net.ipv4.tcp_rmem; wmem=net.ipv4.tcp_wmem
  orig_rmem=$(sysctl_get $rmem); orig_wmem=$(sysctl_get $wmem)
}
cripple() { echo "4096 4096 4096" > "$(sysctl_file $rmem)"; echo "4096 4096 4096" > "$(sysctl_file $wmem)"; }
uncripple() { echo "$orig_rmem" > "$(sysctl_file $rmem)"; echo "$orig_wmem" > "$(sysctl_file $wmem)"; }
