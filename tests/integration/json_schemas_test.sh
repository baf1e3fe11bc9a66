#!/usr/bin/env bash
# Every JSON document tuner prints, validated against schemas/ (JSON Schema 2020-12,
# python3-jsonschema): probe (live, every topology XML, every sysfs capture), profiles,
# plan (every shipped profile on every XML, and live), apply, status, history, rollback,
# check, bench, report (of these documents, of a synthetic fleet, of canaries' decision
# records; report --decisions-out's tuner.decisions/1), and the canary playbook's failure
# record. The schemas forbid fields they do not name, so a document that grows or changes
# shape fails here until its schema (and DESIGN.md) say so. Runs in a private network
# namespace (root), where apply changes only that namespace's net.* sysctls.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -eo pipefail
src=${TUNER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
python3 -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema is not installed"
validate() { python3 "$src/tests/schema/validate.py" "$@"; }
fixtures=$src/tests/fixtures/machines
docs=$WORK/docs
mkdir -p "$docs"
keep() {  # keep NAME: stdin is one document
  cat >"$docs/$1.json"
}

note "the validator can fail: a document with a wrong type, a missing and an unknown field"
"$TUNER" probe --json | keep probe-live
python3 - "$docs/probe-live.json" "$WORK" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for i, mutate in enumerate([
        lambda d: d['host'].__setitem__('kernel', 6),
        lambda d: d.pop('irqs'),
        lambda d: d['topology'].__setitem__('surprise', 1),
        lambda d: d.__setitem__('schema', 'tuner.probe/2')]):
    d = json.loads(json.dumps(doc))
    mutate(d)
    json.dump(d, open('%s/broken-%d.json' % (sys.argv[2], i), 'w'))
PY
for f in "$WORK"/broken-*.json; do
  if validate "$f" >"$WORK/why" 2>&1; then fail "$f validated"; fi
  sed 's/^/    | /' "$WORK/why" | head -2
done

note "probe: live, every topology XML, every sysfs capture"
for xml in "$fixtures"/topologies/*.xml; do
  "$TUNER" probe --json --topology "$xml" | keep "probe-$(basename "$xml" .xml)"
done
for tarball in "$fixtures"/sysfs/*.tar.bz2; do
  dir=$WORK/capture
  rm -rf "$dir" && mkdir -p "$dir"
  tar -xjf "$tarball" -C "$dir"
  root=$(find "$dir" -mindepth 1 -maxdepth 1 -type d | head -1)
  "$TUNER" probe --json --root "$root" | keep "probe-$(basename "$tarball" .tar.bz2)"
done

note "profiles and plans: every shipped profile on every XML and on this machine"
"$TUNER" profiles --json | keep profiles
"$TUNER" profiles --json --profile-path "$src/tests/fixtures/profiles/bad" | keep profiles-bad
for p in "$src"/profiles/*.toml; do
  name=$(basename "$p" .toml)
  for xml in "$fixtures"/topologies/*.xml; do
    "$TUNER" plan --json --profile "$name" --topology "$xml" | keep "plan-$name-$(basename "$xml" .xml)"
  done
  "$TUNER" plan --json --profile "$name" | keep "plan-$name-live"
done

note "apply, status, history, rollback in this namespace"
ip link set lo up
P=$(write_profile schema-run <<<"net.core.somaxconn = $(( $(sysctl_get net.core.somaxconn) + 7 ))
net.ipv4.tcp_fin_timeout = $(other_value net.ipv4.tcp_fin_timeout)")
before=$(snapshot_net)
t apply --profile "$P" --no-verify --yes --json --report "$WORK/report.json" | keep apply
keep apply-report <"$WORK/report.json"
t status --json | keep status
t history --json | keep history-kept
t rollback --last --json | keep rollback
t history --json | keep history-rolled-back
t apply --profile "$P" --no-verify --yes --json >/dev/null
t apply --profile "$P" --no-verify --yes --json | keep apply-nothing-to-do
t rollback --last --json >/dev/null
# A run the kernel refuses: errors are objects naming the knob.
bad=$(write_profile schema-bad <<<"net.core.somaxconn = $(( $(sysctl_get net.core.somaxconn) + 9 ))
net.ipv4.tcp_syn_retries = 9999")
set +e; t apply --profile "$bad" --no-verify --yes --json >"$WORK/refused.json"; rc=$?; set -e
[ "$rc" = 1 ] || fail "a refused apply: exit $rc"
keep apply-refused <"$WORK/refused.json"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["errors"]; assert e and e[0]["knob"] == "sysctl:net.ipv4.tcp_syn_retries", e' "$WORK/refused.json" ||
  fail "the refused knob is not named: $(cat "$WORK/refused.json")"
# A --report that cannot be written after the run: stdout holds the run's document
# alone (no tuner.error/1 behind it), exit 5: the run stands (1 would say it was rolled
# back).
set +e; t apply --profile "$P" --no-verify --yes --json --report /proc/tuner-report.json >"$WORK/noreport.json"; rc=$?; set -e
[ "$rc" = 5 ] || fail "an unwritable --report: exit $rc"
keep apply-unwritable-report <"$WORK/noreport.json"
t rollback --last --json >/dev/null
[ "$(snapshot_net)" = "$before" ] || fail "the namespace's sysctls changed"

note "failures under --json: tuner.error/1"
set +e
"$TUNER" plan --json --bogus | keep error-usage
"$TUNER" plan --json --profile no-such-profile | keep error-profile
"$TUNER" history --json --state-dir /proc/self | keep error-state-dir
set -e

note "a verified apply: the verify loop's numbers, guards and interference test"
noop=$WORK/schema-verified.toml
cat >"$noop" <<EOF
[profile]
name = "schema-verified"

[sysctl]
"net.ipv4.tcp_keepalive_probes" = "$(other_value net.ipv4.tcp_keepalive_probes)"

[verify]
bench = ["tcp-short"]
max_trials = 5

[bench.tcp-short]
kind = "tcp"
duration = "200ms"
rr_duration = "100ms"
EOF
t apply --profile "$noop" --yes --json --report "$WORK/verified.json" >/dev/null
keep apply-verified <"$WORK/verified.json"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["groups"][0]["stats"]; assert s["interference"]["cpu"]["judged"], s' \
  "$WORK/verified.json" || fail "no interference test in a verified run: $(cat "$WORK/verified.json")"
if python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["groups"][0]["decision"] != "kept")' \
  "$WORK/verified.json"; then t rollback --last >/dev/null; fi

note "check: this machine (no sampling window), every capture and topology"
ck() { set +e; "$TUNER" check --json "$@"; local rc=$?; set -e; [ "$rc" -le 1 ] || fail "check $*: exit $rc"; }
ck --window 0 | keep check-live
for xml in "$fixtures"/topologies/*.xml; do
  ck --topology "$xml" | keep "check-$(basename "$xml" .xml)"
done
# tuned's and NetworkManager's findings: the R910 capture with the overlays of
# tuner/check/coexist_test.cc, one tree for each (their state.json differ).
for overlay in tuned-enabled networkmanager; do
  tree=$WORK/coexist-$overlay
  mkdir -p "$tree"
  tar -xjf "$fixtures/sysfs/40intel64-2g2n4c+pci.tar.bz2" -C "$tree" --strip-components=1
  for o in irq/r910 tuned/debian12 "check/$overlay"; do cp -a "$src/tests/fixtures/$o/." "$tree/"; done
  ck --root "$tree" --fail-on never | keep "check-$overlay"
  grep -Eq '"rule": *"[a-z]+\.overrides"' "$docs/check-$overlay.json" ||
    fail "check --root with $overlay reports no tuned or NetworkManager finding"
done

note "bench and report"
"$TUNER" bench latency --trials 2 --json | keep bench
"$TUNER" report --json "$docs/apply-report.json" "$docs/probe-live.json" | keep report
# The playbook's layout, a failed run, a status with its drift, and a synthetic fleet
# with every part of the summary (tests/bench/fleet_synth.py).
fleet=$WORK/fleet
mkdir -p "$fleet"
cp "$docs/apply-report.json" "$fleet/h1.run.json"
cp "$docs/probe-live.json" "$fleet/h1.probe.json"
cp "$docs/status.json" "$fleet/h1.status.json"
cp "$docs/apply-refused.json" "$fleet/h2.run.json"
printf '{"schema": "tuner.failure/1", "node": "h2", "rc": 1, "msg": "refused"}\n' >"$fleet/h2.error.json"
"$TUNER" report --json "$fleet" | keep report-playbook
python3 "$src/tests/bench/fleet_synth.py" "$WORK/synth" 200
"$TUNER" report --json "$WORK/synth" | keep report-synth
# Two canaries' tuner.decision/1 records (as docs/fleet-decisions.md shows them) beside a
# run report: the summary's classes, and the merged tuner.decisions/1.
canaries=$WORK/canaries
mkdir -p "$canaries"
for n in c1 c2; do
  python3 - "$n" >"$canaries/$n.decision.json" <<'PY'
import json, sys
n = sys.argv[1]
stats = {"outcome": "gain", "effect": 0.06, "p": 0.001}
print(json.dumps({
    "schema": "tuner.decision/1", "node": n, "time": "2026-12-06T10:00:00Z",
    "run_id": "20261206T100000Z-3f2a", "tuner_version": "0.9.0",
    "class": {"key": "hw-3f9c0a51d2e47b88", "facts": {"kernel": "6.1.0-18-amd64"}},
    "profile": {"names": ["throughput"], "digest": "fnv1a64:0123456789abcdef"},
    "false_keep_rate": 0.05,
    "groups": [
        {"name": "net-buffers", "decision": "kept", "reason": "gain", "seed": 1,
         "chosen": None, "knobs": {"sysctl:net.core.rmem_max": "16777216"}, "stats": stats},
        {"name": "ring", "decision": "kept" if n == "c1" else "rolled_back",
         "reason": "gain" if n == "c1" else "no_gain", "seed": 2, "chosen": "4096",
         "knobs": {"nic:eth0:rx-ring": "4096"},
         "stats": dict(stats, outcome="gain" if n == "c1" else "no_gain")}]}))
PY
done
cp "$docs/apply-report.json" "$canaries/c1.run.json"
"$TUNER" report --json --decisions-out "$docs/decisions.json" "$canaries" | keep report-decisions
set +e; "$TUNER" report --decisions-out "$WORK/none.json" "$fleet" >/dev/null 2>&1; rc=$?; set -e
[ "$rc" = 2 ] || fail "report --decisions-out without a decision record: exit $rc"
[ ! -e "$WORK/none.json" ] || fail "report --decisions-out without a decision record wrote a file"
printf '{"schema": "tuner.failure/1", "node": "h1", "rc": 2, "msg": "bad profile"}\n' | keep failure

n=$(find "$docs" -name '*.json' | wc -l)
[ "$n" -ge 100 ] || fail "only $n documents were written"
note "validating $n documents"
validate "$docs"/*.json
echo "PASS: json_schemas ($n documents)"
