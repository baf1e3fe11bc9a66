#!/bin/bash
# Apply plus rollback of 100 sysctls, timed. Runs inside a fresh private network
# namespace (net.ipv4/ipv6.conf.{default,lo}.* are per-namespace), so the host is not
# touched. Needs root; hyperfine is used when installed (apt-get install hyperfine).
#   tests/bench/apply_rollback_100.sh build/tuner
set -euo pipefail
TUNER=$(readlink -f "${1:?usage: $0 path/to/tuner}")
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
if [ -z "${TUNER_IN_NETNS:-}" ]; then
  TUNER_IN_NETNS=1 exec unshare -n bash "$0" "$@"
fi
WORK=$(mktemp -d /tmp/tuner-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
STATE=$WORK/state

# 100 boolean keys of the namespace's default and lo interfaces, each flipped. "all"
# is left out: some of its writes propagate to every interface.
{
  printf '[profile]\nname = "bench-100"\n\n[sysctl]\n'
  for f in /proc/sys/net/ipv4/conf/{default,lo}/* /proc/sys/net/ipv6/conf/{default,lo}/*; do
    case ${f##*/} in forwarding|mc_forwarding|disable_ipv6|stable_secret|disable_policy) continue ;; esac
    v=$(cat "$f" 2>/dev/null) || continue
    case "$v" in 0|1) ;; *) continue ;; esac
    [ -w "$f" ] || continue
    k=${f#/proc/sys/}
    printf '"%s" = "%s"\n' "${k//\//.}" $((1 - v))
  done > "$WORK/keys"
  head -100 "$WORK/keys"
} > "$WORK/bench-100.toml"
n=$(grep -c '^"' "$WORK/bench-100.toml")
[ "$n" = 100 ] || { echo "only $n suitable keys found"; exit 1; }

snap() { find /proc/sys/net -type f | sort | while read -r f; do v=$(cat "$f" 2>/dev/null) && printf '%s\t%s\n' "$f" "$v"; done; }
snap > "$WORK/before"
"$TUNER" apply --state-dir "$STATE" --profile "$WORK/bench-100.toml" --no-verify --yes --json > "$WORK/run.json"
changed=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(c["status"]=="applied" for g in r["groups"] for c in g["changes"]))' "$WORK/run.json")
[ "$changed" = 100 ] || { echo "apply changed $changed, expected 100"; exit 1; }
"$TUNER" rollback --state-dir "$STATE" --last > /dev/null
snap > "$WORK/after"
diff "$WORK/before" "$WORK/after" > /dev/null || { echo "rollback did not restore every value"; exit 1; }
echo "check: 100 sysctls applied and restored byte-for-byte"

cmd="$TUNER apply --state-dir $STATE --profile $WORK/bench-100.toml --no-verify --yes >/dev/null && $TUNER rollback --state-dir $STATE --last >/dev/null"
if command -v hyperfine >/dev/null; then
  hyperfine --warmup 3 --runs "${RUNS:-30}" "$cmd"
else
  start=$(date +%s%N)
  for _ in $(seq 1 20); do eval "$cmd"; done
  echo "mean apply+rollback: $(( ($(date +%s%N) - start) / 20000000 )) ms"
fi
# Peak memory of each half.
"$TUNER" rollback --state-dir "$STATE" --last >/dev/null 2>&1 || true
/usr/bin/time -v "$TUNER" apply --state-dir "$STATE" --profile "$WORK/bench-100.toml" --no-verify --yes 2>&1 >/dev/null \
  | grep -E "Maximum resident|Elapsed" | sed 's/^\s*/apply:    /'
/usr/bin/time -v "$TUNER" rollback --state-dir "$STATE" --last 2>&1 >/dev/null \
  | grep -E "Maximum resident|Elapsed" | sed 's/^\s*/rollback: /'
