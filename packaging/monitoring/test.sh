#!/usr/bin/env bash
# The monitoring files (CTest package/prometheus-rules):
#   - tuner.rules.yml is valid (promtool check rules), and its tests pass (promtool test
#     rules tuner.rules.test.yml), with a firing and a silent case for every alert;
#   - tuner-dashboard.json is valid JSON and each of its expressions parses as PromQL;
#   - every expression of both names only metrics tuner exports (taken from its source)
#     or node_exporter's listed in node-exporter-metrics.txt (check_metrics.py), and a
#     misspelled name is caught;
#   - the dashboard's "Kept effect" query is the one tuner.rules.test.yml evaluates;
#   - each alert's runbook_url points at its section of docs/monitoring.md.
# Skips (77) without promtool (Debian's prometheus package: install-deps.sh --test).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
fail() { echo "FAIL: package/prometheus-rules: $*"; exit 1; }
command -v promtool >/dev/null || { echo "SKIP: package/prometheus-rules: no promtool"; exit 77; }
command -v python3 >/dev/null || fail "no python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$here" || fail "cd $here"

promtool check rules tuner.rules.yml || fail "promtool check rules tuner.rules.yml"
promtool test rules tuner.rules.test.yml || fail "promtool test rules tuner.rules.test.yml"

# Each alert has an eval that expects it and one that expects nothing.
python3 - tuner.rules.yml tuner.rules.test.yml <<'PY' || fail "an alert lacks a firing or a silent test"
import re, sys
alerts = re.findall(r'^\s*- alert:\s*(\S+)', open(sys.argv[1]).read(), re.M)
tests = re.findall(r'alertname:\s*(\S+)\s*\n\s*exp_alerts:\s*(\[\])?', open(sys.argv[2]).read())
bad = [a for a in alerts
       if (a, "[]") not in tests or (a, "") not in tests]
for a in bad:
    print(f"{a}: needs a test case where it fires and one where it does not")
print(f"{len(alerts)} alerts, each with a firing and a silent test case")
sys.exit(1 if bad or not alerts else 0)
PY

# Each alert's runbook_url points at its own section of docs/monitoring.md.
python3 - tuner.rules.yml "$src/docs/monitoring.md" <<'PY' || fail "an alert's runbook_url has no section"
import re, sys
rules, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
heads = {h.lower() for h in re.findall(r'^### (\w+)$', doc, re.M)}
bad = []
for alert, body in re.findall(r'- alert: (\w+)\n(.*?)(?=\n\s*- alert:|\Z)', rules, re.S):
    url = re.search(r'runbook_url: "[^"#]*docs/monitoring\.md#(\w+)"', body)
    if not url or url.group(1) != alert.lower() or url.group(1) not in heads:
        bad.append(alert)
print(f"runbook_url without its section: {bad}" if bad else "every alert's runbook_url has its section")
sys.exit(1 if bad else 0)
PY
python3 -m json.tool tuner-dashboard.json >/dev/null || fail "tuner-dashboard.json is not valid JSON"
# The panel query tuner.rules.test.yml evaluates is the dashboard's, word for word.
python3 - tuner-dashboard.json tuner.rules.test.yml <<'PY' || fail "tuner.rules.test.yml tests another 'Kept effect' query than the dashboard's"
import json, sys
panel = [p for p in json.load(open(sys.argv[1]))["panels"] if p["title"].startswith("Kept effect")]
exprs = [t["expr"].replace("$instance", ".*") for t in panel[0]["targets"]]
tested = [e for e in exprs if e.startswith("min by") and e in open(sys.argv[2]).read()]
print("the 'Kept effect' min query is tested" if tested else f"not tested: {exprs}")
sys.exit(0 if tested else 1)
PY
python3 check_metrics.py --exprs "$tmp/exprs.yml" "$src" || fail "unknown metric names"
promtool check rules "$tmp/exprs.yml" >/dev/null || {
  promtool check rules "$tmp/exprs.yml"
  fail "a dashboard expression does not parse"
}

# The check catches a misspelling, in either file.
sed 's/tuner_group_effect_ratio/tuner_group_efect_ratio/' tuner-dashboard.json >"$tmp/d.json"
sed 's/tuner_drifted_settings/tuner_drifted_setting/' tuner.rules.yml >"$tmp/r.yml"
for f in "$tmp/d.json" "$tmp/r.yml"; do
  out=$(python3 check_metrics.py "$src" "$f") && fail "a misspelled metric in $f passed"
  grep -q "tuner_.*efect_ratio\|tuner_drifted_setting'" <<<"$out" || fail "the misspelling is not named: $out"
done
echo "PASS: package/prometheus-rules"
