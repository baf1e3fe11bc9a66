#!/usr/bin/env bash
# How long `tuner report` takes over a fleet's reports: N (default 1000) tuner.run/1
# documents, each with this machine's real node facts (tuner probe --json) and the
# groups of a network-throughput run, three of them with an older BIOS. Prints the
# median of 5 runs' wall time and the peak RSS of one. With "shaped", the fleet of
# tests/bench/fleet_synth.py instead (run and status reports, failures, two profiles, a
# kernel minority with its NIC drivers: docs/fleet-report.md's example).
#   bash tests/bench/fleet_report.sh build/tuner [N [shaped]]
set -euo pipefail
tuner=$(realpath "${1:?usage: fleet_report.sh PATH/TO/tuner [N [shaped]]}")
n=${2:-1000}
shape=${3:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$tuner" probe --json >"$dir/probe.json"
if [ "$shape" = shaped ]; then
  /usr/bin/python3 "$(dirname "$0")/fleet_synth.py" "$dir" "$n" "$dir/probe.json"
  rm "$dir/probe.json"
else
/usr/bin/python3 - "$dir" "$n" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
node = json.load(open(d + "/probe.json"))["node"]
groups = [{"name": g, "decision": dec, "changes": [
            {"knob": "sysctl:net.core.somaxconn", "before": "4096", "after": "8192",
             "status": "applied"}] * 3,
           "stats": {"bench": "tcp", "effect": 0.03, "ci": [0.01, 0.05], "p": 0.01}}
          for g, dec in [("queues", "kept"), ("sysctl", "kept"), ("napi", "rolled_back"),
                         ("irq", "kept"), ("cpu", "rolled_back"), ("vm", "applied")]]
for i in range(n):
    facts = dict(node, hostname="node-%04d" % i)
    if i in (17, 442, 903):
        facts["bios_version"] = "1.9.0"
    doc = {"schema": "tuner.run/1", "run_id": "20261201T000000Z-%04x" % i, "changed": True,
           "profiles": ["network-throughput"], "groups": groups, "errors": [], "node": facts}
    json.dump(doc, open("%s/node-%04d.json" % (d, i), "w"), indent=2)
PY
rm "$dir/probe.json"
fi
times=()
for _ in 1 2 3 4 5; do
  t0=$(date +%s.%N)
  "$tuner" report "$dir" >/dev/null
  times+=("$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
rss=$(/usr/bin/time -f %M "$tuner" report "$dir" 2>&1 >/dev/null | tail -1)
echo "tuner report over $n ${shape:+shaped }nodes' reports ($(du -sh "$dir" | cut -f1)): median ${median} s of 5, peak RSS ${rss} KiB"
"$tuner" report --color never "$dir" | grep -A2 -E '^(failures|  bios_version)' || true
