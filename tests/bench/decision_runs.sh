#!/bin/bash
# The verify loop's decision through the real binary: RUNS applies of a one-knob
# profile whose exec benchmark knows the truth. It reads the live knob
# (net.ipv4.tcp_keepalive_probes, in a private network namespace) and reports
# 1000 x (1 + EFFECT when the candidate value is live) x noise, so every run is a
# replication with a known effect, through the same schedule, flips, journal and
# decision as a real apply. Prints the share of runs kept, no_gain, harm, inconclusive
# and the mean trials per arm, to set beside `tuner_decision_sim --shipped` (the
# profile uses the shipped defaults' per-group share: min_effect 0.02,
# false_keep_rate 0.01, max_trials 40).
#   tests/bench/decision_runs.sh build/tuner RUNS EFFECT [normal|outlier] [CV]
# e.g. tests/bench/decision_runs.sh build/tuner 200 0.05 outlier
# normal: noise 1 + CV x N(0,1); outlier: the same, and each trial with probability
# 1/10 is 30% slow (the simulator's `outlier`). Root; about 3-9 s per run.
# KEEP_JSON=DIR keeps each run's tuner.run/1 document there.
set -euo pipefail
TUNER=$(readlink -f "${1:?usage: $0 path/to/tuner RUNS EFFECT [normal|outlier] [CV]}")
RUNS=${2:?runs}
EFFECT=${3:?effect, e.g. 0.05}
NOISE=${4:-normal}
CV=${5:-0.03}
case "$NOISE" in normal|outlier) ;; *) echo "noise: normal or outlier" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
if [ -z "${TUNER_IN_NETNS:-}" ]; then
  TUNER_IN_NETNS=1 exec unshare -n bash "$0" "$@"
fi
WORK=$(mktemp -d /tmp/tuner-decisions.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
KNOB=/proc/sys/net/ipv4/tcp_keepalive_probes
before=$(cat "$KNOB")
candidate=$((before == 7 ? 8 : 7))

# The draws come from /dev/urandom: mawk's rand() right after srand(seed) is biased
# (a mean of 0.59 sd and 4.9% outliers in 3000 draws where 0 and 10% were asked).
cat > "$WORK/bench.sh" <<B
#!/bin/sh
live=\$(cat $KNOB)
od -An -N12 -tu4 /dev/urandom | awk -v live="\$live" -v cand=$candidate -v eff=$EFFECT -v cv=$CV -v kind=$NOISE '{
  u1 = (\$1 + 0.5) / 4294967296; u2 = \$2 / 4294967296; u3 = \$3 / 4294967296
  z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2)
  v = 1000 * (1 + cv * z)
  if (live == cand) v *= 1 + eff
  if (kind == "outlier" && u3 < 0.1) v *= 0.7
  printf "%.3f ops\n", v
}'
B
cat > "$WORK/decisions.toml" <<P
[profile]
name = "decisions"

[sysctl]
"net.ipv4.tcp_keepalive_probes" = "$candidate"

[verify]
bench = ["truth"]
min_effect = 0.02
false_keep_rate = 0.01
max_trials = 40

[bench.truth]
kind = "exec"
command = ["/bin/sh", "$WORK/bench.sh"]
metric = { regex = "([0-9.]+) ops" }
unit = "ops/s"
P

: > "$WORK/outcomes"
for i in $(seq "$RUNS"); do
  "$TUNER" apply --state-dir "$WORK/state" --color never --profile "$WORK/decisions.toml" \
    --yes --json > "$WORK/run.json" 2> "$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
  jq -r '.groups[0] | "\(if .decision == "kept" then "kept" else .stats.outcome end) \(.stats.trials.baseline)"' "$WORK/run.json" >> "$WORK/outcomes"
  [ -n "${KEEP_JSON:-}" ] && cp "$WORK/run.json" "$KEEP_JSON/run-$i.json"
  echo "$before" > "$KNOB"
  rm -rf "$WORK/state"
  [ $((i % 20)) = 0 ] && echo "... $i runs" >&2
done
awk -v runs="$RUNS" -v eff="$EFFECT" -v noise="$NOISE" -v cv="$CV" '
  { n[$1]++; trials += $2 }
  END {
    printf "effect %+g%%, %s noise, cv %g%%, %d runs through the binary\n", 100 * eff, noise, 100 * cv, runs
    printf "kept %.1f%%  no_gain %.1f%%  harm %.1f%%  inconclusive %.1f%%  trials per arm %.1f\n",
      100 * n["kept"] / runs, 100 * n["no_gain"] / runs, 100 * n["harm"] / runs,
      100 * n["inconclusive"] / runs, trials / runs
    for (k in n) if (k != "kept" && k != "no_gain" && k != "harm" && k != "inconclusive")
      printf "other: %s %d\n", k, n[k]
  }' "$WORK/outcomes"
