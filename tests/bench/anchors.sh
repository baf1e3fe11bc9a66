#!/bin/bash
# tuner's host benchmarks beside the tools people already trust, on this machine, run
# alternately (tuner, anchor, tuner, anchor, ...) and summarised as medians and ratios:
#   membw    vs likwid-bench -t stream (a triad counted as 24 bytes per element, as membw
#            counts it), per NUMA node, same array size and threads per node
#   latency  vs cyclictest --laptop -m -p 80 -i 1000 -l 1000 on the same CPUs
#   tcp      vs iperf3 over loopback (the first metric of `tuner bench --json tcp`)
# It reads `tuner bench --json NAME`: {"schema":"tuner.bench/1","benchmarks":[{"name":..,
# "median":[{"name":..,"value":..,"unit":..,"direction":..}],"runs":[..]}]}, and assumes
# the benchmarks' defaults (probes/bench/README-host.md), which the anchors' options mirror.
# Needs root (SCHED_FIFO); a section whose tool is missing is skipped
# (apt-get install likwid rt-tests iperf3).
#   tests/bench/anchors.sh build/tuner [ROUNDS]
set -euo pipefail
TUNER=$(readlink -f "${1:?usage: $0 path/to/tuner [rounds]}")
ROUNDS=${2:-3}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (cyclictest -p, tuner latency SCHED_FIFO)"; exit 77; }
WORK=$(mktemp -d /tmp/tuner-anchors.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# metric FILE BENCH NAME: a metric's value from `tuner bench --json` output (a
# benchmark's "median" over its runs, one run here); "" if absent. NAME "@first" is the
# benchmark's main metric, printed as "VALUE UNIT NAME".
metric() {
  python3 - "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for b in doc.get("benchmarks", []):
    if b["name"] != sys.argv[2]: continue
    ms = b.get("median") or b.get("metrics") or []
    if sys.argv[3] == "@first" and ms:
        print(ms[0]["value"], ms[0]["unit"], ms[0]["name"])
    for m in ms:
        if m["name"] == sys.argv[3]: print(m["value"])
PY
}

# stats V...: "median (v1 v2 ...)".
stats() { python3 -c 'import sys,statistics as s; v=[float(x) for x in sys.argv[1:]]; print("%.2f (%s)" % (s.median(v), " ".join("%.2f" % x for x in v)))' "$@"; }
median() { python3 -c 'import sys,statistics as s; print(s.median(float(x) for x in sys.argv[1:]))' "$@"; }
# paired_ratio "A1 A2 ..." "B1 B2 ...": the median of A_r / B_r over rounds; each round
# ran both back to back, so load from elsewhere on the host cancels better than in a
# ratio of medians.
paired_ratio() {
  python3 -c 'import sys,statistics as s; a=sys.argv[1].split(); b=sys.argv[2].split(); r=s.median(float(x)/float(y) for x,y in zip(a,b)); print("%.3f" % r + ("  LOW" if r < 0.9 else ""))' "$1" "$2"
}

# columns_median "a b c" "d e f" ...: the median of each column, "x/y/z".
columns_median() {
  python3 -c 'import sys,statistics as s; rows=[[float(x) for x in a.split()] for a in sys.argv[1:]]; print("/".join("%.1f" % s.median(c) for c in zip(*rows)))' "$@"
}

nodes() { for d in /sys/devices/system/node/node[0-9]*; do [ -s "$d/cpulist" ] && [ -n "$(tr -d '\n' < "$d/cpulist")" ] && echo "${d##*node}"; done; }
# expand "0-3,8" into "0 1 2 3 8"
expand() { tr ',' '\n' <<< "$1" | while IFS=- read -r a b; do seq "$a" "${b:-$a}"; done | tr '\n' ' '; }
node_cpus() { expand "$(cat "/sys/devices/system/node/node$1/cpulist")"; }

# What membw does by default for node N (probes/bench/membw.h): one thread per core,
# arrays of 4 x the last-level cache of the node's CPUs, within [64 MiB, 1 GiB].
node_cores() {
  for c in $(node_cpus "$1"); do
    local t=/sys/devices/system/cpu/cpu$c/topology
    echo "$(cat "$t/physical_package_id")/$(cat "$t/core_id")"
  done | sort -u | wc -l
}
node_array_bytes() {
  local top=0 c i lvl
  for c in $(node_cpus "$1"); do
    for i in "/sys/devices/system/cpu/cpu$c"/cache/index*; do
      [ "$(cat "$i/type")" = Instruction ] && continue
      lvl=$(cat "$i/level"); [ "$lvl" -gt "$top" ] && top=$lvl
    done
  done
  for c in $(node_cpus "$1"); do
    for i in "/sys/devices/system/cpu/cpu$c"/cache/index*; do
      [ "$(cat "$i/type")" = Instruction ] && continue
      [ "$(cat "$i/level")" = "$top" ] && echo "$(cat "$i/shared_cpu_list") $(cat "$i/size")"
    done
  done | sort -u | awk '{ s = $2; m = 1
      if (s ~ /K$/) m = 1024; else if (s ~ /M$/) m = 1048576
      sub(/[KM]$/, "", s); total += s * m }
    END { b = 4 * total; if (b < 67108864) b = 67108864; if (b > 1073741824) b = 1073741824
          printf "%d\n", int(b / 64) * 64 }'
}

section_membw() {
  echo "== membw (triad, GB/s = 1e9 B/s, 24 B/element, best repetition) vs likwid-bench -t stream"
  command -v likwid-bench > /dev/null || { echo "SKIP: likwid-bench not installed"; return; }
  local n r
  declare -A ours_by_node theirs_by_node cmd_by_node
  for r in $(seq "$ROUNDS"); do
    "$TUNER" bench --json membw > "$WORK/membw.$r.json"
    for n in $(nodes); do
      ours_by_node[$n]+="$(metric "$WORK/membw.$r.json" membw "triad_local_node$n") "
      local kb=$(( 3 * $(node_array_bytes "$n") / 1024 )) threads
      threads=$(node_cores "$n")
      cmd_by_node[$n]="likwid-bench -t stream -w M$n:${kb}kB:$threads"
      # likwid reports MByte/s (1e6) over all its iterations: an average, not a best.
      theirs_by_node[$n]+="$(${cmd_by_node[$n]} 2>&1 | awk '/^MByte\/s:/ { print $2 / 1000 }') "
    done
  done
  for n in $(nodes); do
    # shellcheck disable=SC2086
    printf 'node %s  tuner %s  likwid %s  ratio %s\n    %s\n' "$n" "$(stats ${ours_by_node[$n]})" \
      "$(stats ${theirs_by_node[$n]})" "$(paired_ratio "${ours_by_node[$n]}" "${theirs_by_node[$n]}")" \
      "${cmd_by_node[$n]}"
  done
}

# cyclictest's -h histogram (one count column per thread, one row per microsecond) read
# with tuner's nearest-rank rule; prints the worst thread's "p50 p99 max". Wake-ups past
# the histogram (its "Overflows") count in the ranks and stand at that thread's max.
cyclictest_summary() {
  awk '
    /^[0-9]+ / { for (t = 2; t <= NF; t++) { h[t - 1, $1 + 0] = $t; n[t - 1] += $t; if ($1 + 0 > top) top = $1 + 0 }
                 threads = NF - 1; next }
    /^# Max Latencies:/ { for (t = 4; t <= NF; t++) { tmax[t - 3] = $t + 0; if ($t + 0 > max) max = $t + 0 } }
    /^# Histogram Overflows:/ { for (t = 4; t <= NF; t++) n[t - 3] += $t }
    function rank(p, c) { r = p / 100 * c; return (r == int(r)) ? r : int(r) + 1 }
    END {
      for (t = 1; t <= threads; t++) {
        seen = 0; a = -1; b = -1
        for (v = 0; v <= top; v++) {
          seen += h[t, v]
          if (a < 0 && seen >= rank(50, n[t])) a = v
          if (b < 0 && seen >= rank(99, n[t])) b = v
        }
        if (a < 0) a = tmax[t]; if (b < 0) b = tmax[t]
        if (a > p50) p50 = a; if (b > p99) p99 = b
      }
      print p50, p99, max
    }'
}

section_latency() {
  echo "== latency (timer wake-up, us) vs cyclictest"
  command -v cyclictest > /dev/null || { echo "SKIP: cyclictest not installed (rt-tests)"; return; }
  # tuner's default CPUs: the last CPU of each node.
  local cpus="" n r
  for n in $(nodes); do cpus+="$(node_cpus "$n" | awk '{ print $NF }'),"; done
  cpus=${cpus%,}
  local count
  count=$(tr ',' '\n' <<< "$cpus" | wc -l)
  # --laptop: cyclictest otherwise holds /dev/cpu_dma_latency at 0 (no deep C-states)
  # while it runs; tuner's benchmark measures the host as configured, C-states included.
  local cmd="cyclictest --laptop -m -p 80 -i 1000 -l 1000 -t $count -a $cpus -q -h 20000"
  printf '%-8s %-26s %-26s\n' round "tuner p50/p99/max" "cyclictest p50/p99/max"
  local ours=() theirs=()
  for r in $(seq "$ROUNDS"); do
    "$TUNER" bench --json latency > "$WORK/lat.$r.json"
    local t c
    t="$(metric "$WORK/lat.$r.json" latency wakeup_p50) $(metric "$WORK/lat.$r.json" latency wakeup_p99)"
    t+=" $(metric "$WORK/lat.$r.json" latency wakeup_max)"
    c=$($cmd 2>/dev/null | cyclictest_summary)
    ours+=("$t") theirs+=("$c")
    printf '%-8s %-26s %-26s\n' "$r" "$(read -r a b m <<< "$t"; printf '%.1f/%.1f/%.1f' "$a" "$b" "$m")" "${c// //}"
  done
  printf '%-8s %-26s %-26s\n' median "$(columns_median "${ours[@]}")" "$(columns_median "${theirs[@]}")"
  echo "    tuner: priority 80, mlockall, 1000 us x 1 s on CPUs $cpus (cyclictest rounds down to whole us)"
  echo "    $cmd"
}

section_tcp() {
  echo "== tcp (first metric of tuner bench tcp) vs iperf3 -c 127.0.0.1 -t 2"
  command -v iperf3 > /dev/null || { echo "SKIP: iperf3 not installed"; return; }
  local r port=5399 ours=() theirs=() first
  for r in $(seq "$ROUNDS"); do
    if ! "$TUNER" bench --json tcp > "$WORK/tcp.$r.json" 2> "$WORK/tcp.err"; then
      echo "SKIP: tuner bench tcp failed: $(head -1 "$WORK/tcp.err")"; return
    fi
    first=$(metric "$WORK/tcp.$r.json" tcp @first)
    ours+=("$(awk '{ print $1 }' <<< "$first")")
    timeout 20 iperf3 -s -1 -p $port > /dev/null 2>&1 &
    sleep 0.5
    theirs+=("$(timeout 20 iperf3 -c 127.0.0.1 -p $port -t 2 -J |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"])')")
    wait
  done
  printf 'tuner %.4g (%s)  iperf3 %.4g bit/s  ratio %s\n' "$(median "${ours[@]}")" \
    "$(awk '{ print $2, $3 }' <<< "$first")" "$(median "${theirs[@]}")" \
    "$(paired_ratio "${ours[*]}" "${theirs[*]}")"
}

echo "host: $(nproc) CPUs, $(nodes | wc -l) NUMA node(s), $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
section_membw
section_latency
section_tcp
