#!/usr/bin/env bash
# The tuner.node collection under real ansible-playbook (Debian's ansible-core), against
# this machine with a local connection, inside private network namespaces so that only
# per-namespace net.* sysctls change and the host is never touched.
#   packaging/ansible/test.sh path/to/tuner
# Root only (tuner writes sysctls); exit 77 (skip) without root or ansible-playbook.
#
#   1. one "localhost" in this script's own namespace (unshare -n): check mode and diff,
#      a real run, idempotence, two runs rolled back byte for byte, a bad profile, the
#      verify loop keeping and rejecting, tuner_facts;
#   2. canary.yml against five local "hosts", each its own named namespace (a wrapper,
#      given to the module as its binary, runs tuner through `ip netns exec`) and state
#      dir: a failing canary stops the rollout before the other four; a good one goes on
#      to all five, and the reports reach the controller;
#   3. audit.yml over the same five: read only (changed=0, nothing differs after), the
#      three documents of every host on the controller, and tuner_fail_on=drift failing
#      the host (and only the host) on which a setting was changed by hand; with
#      failed,drift the host whose probe failed too; a drifted file of no host of the
#      play fails localhost;
#   4. class_rollout.yml with tuner_peers over four more "hosts" (each one's modules run
#      by a Python in its namespace too, so that wait_for sees its network): the two
#      canaries of a class, joined by a veth, verify a peer = true group against each
#      other's `tuner bench --serve` in turn; a class of one falls back to the soak and
#      says so; a paired canary without tuner_peer_address stops the rollout first;
#      without tuner_peers every canary falls back.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../tests/integration/lib.sh"
command -v ansible-playbook >/dev/null || skip "ansible-playbook not installed (apt-get install ansible-core)"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3 for the modules"
enter_netns "$@"
set -eo pipefail
ip link set lo up

NAMESPACES=()
cleanup() {
  local ns
  for ns in "${NAMESPACES[@]}"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

# Ansible sees nothing of this machine's configuration, collections or ~/.ansible.
printf '[defaults]\n' >"$WORK/ansible.cfg"
export ANSIBLE_CONFIG=$WORK/ansible.cfg ANSIBLE_HOME=$WORK/ansible-home
export ANSIBLE_LOCAL_TEMP=$WORK/ansible-local ANSIBLE_REMOTE_TEMP=$WORK/ansible-remote
export ANSIBLE_COLLECTIONS_PATH=$here ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false
export ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_NOCOLOR=1
export ANSIBLE_RETRY_FILES_ENABLED=false ANSIBLE_ASYNC_DIR=$WORK/ansible-async
# Results as JSON for the checks below (tests/callback_plugins/results_file.py).
export ANSIBLE_CALLBACK_PLUGINS=$here/tests/callback_plugins ANSIBLE_CALLBACKS_ENABLED=results_file
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

# play NAME ARGS...: ansible-playbook ARGS; its results in $WORK/NAME.json (also $LAST),
# its output in $WORK/NAME.err, its exit status in $RC.
play() {
  local name=$1; shift
  set +e
  TUNER_ANSIBLE_RESULTS=$WORK/$name.json ansible-playbook "$@" >"$WORK/$name.err" 2>&1
  RC=$?
  set -e
  LAST=$WORK/$name.json
}
# rc_is N: the last play exited N (else its output is shown).
rc_is() {
  [ "$RC" = "$1" ] || fail "$(basename "$LAST" .json): exit $RC, expected $1:
$(tail -60 "${LAST%.json}.err")"
}
# check FILE TASK HOST EXPR...: each Python EXPR must hold, with r the result of TASK on
# HOST (over every batch of the play), results(TASK) all hosts' results.
check() {
  python3 - "$@" <<'PY' || fail "$(cat "${1%.json}.err")"
import json, sys
doc = json.load(open(sys.argv[1]))

def results(task_name):
    out = {}
    for play in doc['plays']:
        for task in play['tasks']:
            if task['task']['name'] == task_name:
                out.update(task['hosts'])
    return out

def batches(task_name):
    return [sorted(t['hosts']) for p in doc['plays'] for t in p['tasks']
            if t['task']['name'] == task_name]

r = results(sys.argv[2]).get(sys.argv[3])
for expr in sys.argv[4:]:
    if not eval(expr, {'r': r, 'results': results, 'batches': batches, 'doc': doc, 'json': json}):
        print('check failed: %s\n%s' % (expr, json.dumps(r, indent=2)[:6000]))
        sys.exit(1)
PY
}
show_diff() {  # the task's output as ansible-playbook --diff printed it, for the log
  sed -n '/^TASK \[/,/^PLAY RECAP/p' "${LAST%.json}.err" | grep -v '^PLAY RECAP' | sed 's/^/    | /'
}
tune() { play "$1" -i localhost, -c local "$here/tests/tune.yml" -e "@$WORK/vars.json" "${@:2}"; }
vars() {  # vars KEY=JSON...: the extra vars of the next tune
  python3 - "$STATE" "$TUNER" "$@" >"$WORK/vars.json" <<'PY'
import json, sys
v = {'tuner_state_dir': sys.argv[1], 'tuner_binary': sys.argv[2]}
for a in sys.argv[3:]:
    k, val = a.split('=', 1)
    v[k] = json.loads(val)
print(json.dumps(v))
PY
}

# Profiles of per-namespace sysctls only, with values this namespace does not have.
somaxconn=$(sysctl_get net.core.somaxconn)
ssai=$(sysctl_get net.ipv4.tcp_slow_start_after_idle)
keepalive=$(sysctl_get net.ipv4.tcp_keepalive_time)
P=$WORK/profiles
mkdir -p "$P"
cat >"$P/ans-one.toml" <<EOF
[profile]
name = "ans-one"

[sysctl]
"net.core.somaxconn" = "$((somaxconn + 1000))"
"net.ipv4.tcp_rmem" = "4096 87381 6291459"
"net.ipv4.tcp_slow_start_after_idle" = "$((1 - ssai))"
EOF
cat >"$P/ans-two.toml" <<EOF
[profile]
name = "ans-two"

[sysctl]
"net.core.somaxconn" = "$((somaxconn + 2000))"
"net.ipv4.tcp_keepalive_time" = "$((keepalive - 1))"
EOF
# The verify loop with a benchmark whose metric is the knob itself: a gain when higher
# is better, harm when lower is.
for dir in higher lower; do
  cat >"$P/ans-$dir.toml" <<EOF
[profile]
name = "ans-$dir"

[sysctl]
"net.core.somaxconn" = "$((somaxconn + 3000))"

[verify]
bench = ["somaxconn"]
max_trials = 10

[bench.somaxconn]
kind = "exec"
command = ["/bin/cat", "/proc/sys/net/core/somaxconn"]
metric = { regex = '([0-9]+)' }
direction = "$dir"
unit = "connections"
timeout = "5s"
EOF
done
# Two groups decided by that benchmark (lower is better): keepalive, which it cannot
# see, kept as neutral; somaxconn, proven harm, rolled back.
cat >"$P/ans-mixed.toml" <<EOF
[profile]
name = "ans-mixed"

[sysctl]
"net.core.somaxconn" = "$((somaxconn + 3000))"
"net.ipv4.tcp_keepalive_time" = "$((keepalive - 1))"

[group.keepalive]
members = ["sysctl:net.ipv4.tcp_keepalive_time"]
keep_if_neutral = true

[verify]
bench = ["somaxconn"]
max_trials = 10
EOF
sed -n '/^\[bench.somaxconn\]/,$p' "$P/ans-lower.toml" >>"$P/ans-mixed.toml"
cat >"$P/ans-bad.toml" <<'EOF'
[profile]
name = "ans-bad"

[sysctl]
"net.core.somaxconn" = "8192"

[verify]
max_trails = 10
EOF

note "the test profiles plan only per-namespace net.* sysctls"
for f in ans-one ans-two ans-higher; do
  expect_rc 0 t plan --profile "$P/$f.toml" --json
  python3 -c 'import json, sys; c = json.loads(sys.argv[1])["changes"]
assert c and all(x["knob"].startswith("sysctl:net.") for x in c), c' "$OUT" || fail "$f plans more than net.*: $OUT"
done

note "tuner_facts: ansible_facts.tuner is the probe"
vars
play facts -i localhost, -c local "$here/tests/facts.yml" -e "@$WORK/vars.json"
rc_is 0

initial=$(snapshot_net)

note "--check --diff: changed, a diff of every knob, nothing written"
vars tuner_profiles="[\"$P/ans-one.toml\"]"
tune check --check --diff
rc_is 0
check "$LAST" tuner localhost 'r["changed"] is True' 'r["plan"]["schema"] == "tuner.plan/1"' \
  "'sysctl:net.core.somaxconn = $somaxconn\n' in r['diff']['before']" \
  "'sysctl:net.core.somaxconn = $((somaxconn + 1000))\n' in r['diff']['after']" \
  "'sysctl:net.ipv4.tcp_rmem = 4096 87381 6291459\n' in r['diff']['after']" \
  "'sysctl:net.ipv4.tcp_slow_start_after_idle = $((1 - ssai))\n' in r['diff']['after']" \
  'len(r["changes"]) == 3' '"report" not in r'
show_diff
[ "$(snapshot_net)" = "$initial" ] || fail "check mode changed a value"
[ ! -d "$STATE/runs" ] || [ -z "$(ls "$STATE/runs")" ] || fail "check mode wrote a run"

note "a real run: changed, the kernel's values, the run report"
tune apply --diff
rc_is 0
check "$LAST" tuner localhost 'r["changed"] is True' 'r["report"]["schema"] == "tuner.run/1"' \
  'r["report"]["run_id"]' 'r["report"]["groups"][0]["decision"] == "applied"' 'r["rc"] == 0' \
  'len(r["changes"]) == 3' "'sysctl:net.core.somaxconn = $((somaxconn + 1000))\n' in r['diff']['after']" \
  '"--no-verify" in r["cmd"][0]'
show_diff
[ "$(sysctl_get net.core.somaxconn)" = $((somaxconn + 1000)) ] || fail "somaxconn not applied"
[ "$(sysctl_get net.ipv4.tcp_rmem | tr -s '\t ' ' ')" = "4096 87381 6291459" ] || fail "tcp_rmem not applied"
[ "$(sysctl_get net.ipv4.tcp_slow_start_after_idle)" = $((1 - ssai)) ] || fail "slow_start_after_idle"
applied=$(snapshot_net)

note "the same again: changed false, nothing written"
tune again --diff
rc_is 0
check "$LAST" tuner localhost 'r["changed"] is False' 'r["report"]["run_id"] is None' 'r["changes"] == []'
[ "$(snapshot_net)" = "$applied" ] || fail "the second run changed a value"
tune again-check --check
check "$LAST" tuner localhost 'r["changed"] is False'

note "a second profile over the first, then state: rolled_back puts back both runs"
vars tuner_profiles="[\"$P/ans-two.toml\"]"
tune two
check "$LAST" tuner localhost 'r["changed"] is True' 'len(r["changes"]) == 2'
[ "$(sysctl_get net.core.somaxconn)" = $((somaxconn + 2000)) ] || fail "ans-two not applied"
two=$(snapshot_net)
vars tuner_state='"rolled_back"'
tune rollback-check --check --diff
check "$LAST" tuner localhost 'r["changed"] is True' 'r["status"]["schema"] == "tuner.status/1"' \
  "'sysctl:net.core.somaxconn = $((somaxconn + 2000))\n' in r['diff']['before']" \
  "'sysctl:net.ipv4.tcp_rmem = 4096 87381 6291459\n' in r['diff']['before']"
show_diff
[ "$(snapshot_net)" = "$two" ] || fail "check mode rolled back"
tune rollback --diff
rc_is 0
check "$LAST" tuner localhost 'r["changed"] is True' 'len(r["reports"]) == 2' \
  'all(x["schema"] == "tuner.run/1" for x in r["reports"])' \
  "'sysctl:net.core.somaxconn = $((somaxconn + 2000))\n' in r['diff']['before']" \
  "'sysctl:net.core.somaxconn = $somaxconn\n' in r['diff']['after']" 'len(r["changes"]) == 4'
show_diff
[ "$(snapshot_net)" = "$initial" ] || fail "rollback left values changed:
$(diff <(echo "$initial") <(snapshot_net))"
tune rollback-again --diff
check "$LAST" tuner localhost 'r["changed"] is False' 'r["reports"] == []' 'r["changes"] == []'

note "a bad profile fails with tuner's message and exit code, nothing changed"
vars tuner_profiles="[\"$P/ans-bad.toml\"]"
tune bad
[ "$RC" != 0 ] || fail "a bad profile passed"
check "$LAST" tuner localhost 'r["failed"] is True' 'r["rc"] == 2' '"ans-bad.toml:8:1" in r["msg"]' \
  '"max_trails" in r["msg"]' '"report" not in r'
python3 -c 'import json,sys; print("    msg:", json.load(open(sys.argv[1]))["plays"][0]["tasks"][0]["hosts"]["localhost"]["msg"])' "$LAST"
vars tuner_profiles="[\"$P/ans-one.toml\"]" tuner_verify=true
tune nobench
check "$LAST" tuner localhost 'r["failed"] is True' 'r["rc"] == 2' '"names no benchmark" in r["msg"]'
vars tuner_profiles="[\"$P/ans-one.toml\"]" tuner_binary='"/nonexistent/tuner"'
tune nobinary
check "$LAST" tuner localhost 'r["failed"] is True' '"/nonexistent/tuner" in r["msg"]'
[ "$(snapshot_net)" = "$initial" ] || fail "a failed run changed a value"

note "verify: a proven gain is kept (changed), proven harm rolled back (not changed)"
vars tuner_profiles="[\"$P/ans-higher.toml\"]" tuner_verify=true tuner_benchmarks='["somaxconn"]'
tune gain
check "$LAST" tuner localhost 'r["changed"] is True' 'r["report"]["groups"][0]["decision"] == "kept"' \
  'r["report"]["groups"][0]["stats"]["outcome"] == "gain"' '"--bench" in r["cmd"][0]'
[ "$(sysctl_get net.core.somaxconn)" = $((somaxconn + 3000)) ] || fail "the gain was not kept"
vars tuner_state='"rolled_back"'
tune gain-rollback
check "$LAST" tuner localhost 'r["changed"] is True'
vars tuner_profiles="[\"$P/ans-lower.toml\"]" tuner_verify=true
tune harm
check "$LAST" tuner localhost 'r["changed"] is False' 'r["report"]["run_id"]' \
  'r["report"]["groups"][0]["decision"] == "rolled_back"' 'r["changes"] == []'
[ "$(snapshot_net)" = "$initial" ] || fail "verify left values changed"
vars tuner_state='"rolled_back"'
tune harm-rollback
check "$LAST" tuner localhost 'r["changed"] is False' 'len(r["reports"]) == 1'

note "check mode as a compliance gate: a group rejected here is not drift (ok), a drifted kept setting is (changed)"
vars tuner_profiles="[\"$P/ans-mixed.toml\"]" tuner_verify=true
tune mixed
check "$LAST" tuner localhost 'r["changed"] is True' \
  '[g["decision"] for g in r["report"]["groups"]] == ["kept", "rolled_back"]' \
  '[c["knob"] for c in r["changes"]] == ["sysctl:net.ipv4.tcp_keepalive_time"]'
mixed_run=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(d["plays"][0]["tasks"][0]["hosts"]["localhost"]["report"]["run_id"])' "$LAST")
kept=$(snapshot_net)
tune mixed-check --check --diff
rc_is 0
check "$LAST" tuner localhost 'r["changed"] is False' 'r["changes"] == []' \
  'r["diff"]["after"] == ""' '[c["group"] for c in r["plan"]["changes"]] == ["sysctl"]' \
  "[g['rejected_here']['run_id'] for g in r['plan']['groups']] == ['$mixed_run']" \
  'r["plan"]["groups"][0]["rejected_here"]["outcome"] == "harm"'
show_diff
tune mixed-again
check "$LAST" tuner localhost 'r["changed"] is False' \
  '[g["decision"] for g in r["report"]["groups"]] == ["rolled_back"]'
[ "$(snapshot_net)" = "$kept" ] || fail "the rerun changed a value"
tune mixed-again-check --check
check "$LAST" tuner localhost 'r["changed"] is False'
echo "$keepalive" >"$(sysctl_file net.ipv4.tcp_keepalive_time)"
tune mixed-drift-check --check --diff
check "$LAST" tuner localhost 'r["changed"] is True' \
  '[c["knob"] for c in r["changes"]] == ["sysctl:net.ipv4.tcp_keepalive_time"]' \
  "'sysctl:net.ipv4.tcp_keepalive_time = $((keepalive - 1))\n' == r['diff']['after']"
show_diff
tune mixed-drift
check "$LAST" tuner localhost 'r["changed"] is True' \
  '[c["knob"] for c in r["changes"]] == ["sysctl:net.ipv4.tcp_keepalive_time"]'
[ "$(snapshot_net)" = "$kept" ] || fail "the run after the drift did not restore the kept setting"
tune mixed-drift-after-check --check
check "$LAST" tuner localhost 'r["changed"] is False'
vars tuner_profiles="[\"$P/ans-mixed.toml\"]" tuner_verify=false
tune mixed-noverify-check --check
check "$LAST" tuner localhost 'r["changed"] is True' \
  '[c["knob"] for c in r["changes"]] == ["sysctl:net.core.somaxconn"]'
vars tuner_state='"rolled_back"'
tune mixed-rollback
check "$LAST" tuner localhost 'r["changed"] is True'
[ "$(snapshot_net)" = "$initial" ] || fail "the mixed runs were not rolled back:
$(diff <(echo "$initial") <(snapshot_net))"

note "rolled_back with an unfinished run (status exit 4): the run is rolled back"
(TUNER_FAULT_AFTER_WRITES=2 exec "$TUNER" apply --state-dir "$STATE" --profile "$P/ans-one.toml" \
  --no-verify --yes >/dev/null 2>&1) && fail "the fault did not stop apply"
expect_rc 4 t status
[ "$(snapshot_net)" != "$initial" ] || fail "the crashed apply changed nothing"
vars tuner_state='"rolled_back"'
tune unfinished-check --check --diff
rc_is 0
check "$LAST" tuner localhost 'r["changed"] is True' 'r["status"]["unfinished_run"]' 'r["rc"] == 4'
[ "$(snapshot_net)" != "$initial" ] || fail "check mode rolled back"
tune unfinished --diff
rc_is 0
check "$LAST" tuner localhost 'r["changed"] is True' 'r["cmd"][2][1] == "rollback"' \
  '"--last" not in r["cmd"][2]' 'len(r["reports"]) == 1'
[ "$(snapshot_net)" = "$initial" ] || fail "the unfinished run was not rolled back"
expect_rc 0 t status

note "a setting changed by hand since: check mode does not fail; the rollback leaves it, says so"
vars tuner_profiles="[\"$P/ans-one.toml\"]"
tune hand-apply
rc_is 0
sysctl_set() { echo "$2" >"$(sysctl_file "$1")"; }
sysctl_set net.core.somaxconn $((somaxconn + 7))
vars tuner_state='"rolled_back"'
tune hand-check --check --diff
rc_is 0
check "$LAST" tuner localhost 'r.get("failed") is not True' 'r["changed"] is True' 'r["rc"] == 3' \
  '[k["knob"] for k in r["left"]] == ["sysctl:net.core.somaxconn"]' \
  '"would leave 1 setting someone changed" in r["msg"]' 'len(r["changes"]) == 2' \
  "any('sysctl:net.core.somaxconn (now $((somaxconn + 7)))' in w for w in r['warnings'])"
tune hand --diff
rc_is 0
check "$LAST" tuner localhost 'r.get("failed") is not True' 'r["changed"] is True' 'r["rc"] == 3' \
  '"left 1 setting someone changed" in r["msg"]' '"sysctl:net.core.somaxconn (now" in r["msg"]' \
  '"force: true" in r["msg"]' '[k["knob"] for k in r["left"]] == ["sysctl:net.core.somaxconn"]' \
  'len(r["changes"]) == 2'
show_diff
[ "$(sysctl_get net.core.somaxconn)" = $((somaxconn + 7)) ] || fail "the hand-set value was not left"
[ "$(sysctl_get net.ipv4.tcp_slow_start_after_idle)" = "$ssai" ] || fail "the rest did not go back"

note "force: true puts back what the earlier rollback left"
vars tuner_state='"rolled_back"' tuner_force=true
tune hand-force
rc_is 0
check "$LAST" tuner localhost 'r["changed"] is True' '"--force" in r["cmd"][-1]' 'r["left"] == []' \
  "[(c['knob'], c['after']) for c in r['changes']] == [('sysctl:net.core.somaxconn', '$somaxconn')]"
[ "$(snapshot_net)" = "$initial" ] || fail "force left values changed"

note "force: true in one go: a setting changed by hand goes back too"
vars tuner_profiles="[\"$P/ans-one.toml\"]"
tune hand-apply2
sysctl_set net.core.somaxconn $((somaxconn + 9))
vars tuner_state='"rolled_back"' tuner_force=true
tune hand-force2
rc_is 0
check "$LAST" tuner localhost 'r["changed"] is True' 'r["left"] == []' 'r["rc"] == 0' 'len(r["changes"]) == 3'
[ "$(snapshot_net)" = "$initial" ] || fail "force left values changed"

note "exclusive: from ans-one to ans-two, ans-one's other settings go back"
vars tuner_profiles="[\"$P/ans-one.toml\"]"
tune excl-one
rc_is 0
EXCL="{'sysctl:net.core.somaxconn', 'sysctl:net.ipv4.tcp_keepalive_time', 'sysctl:net.ipv4.tcp_rmem', 'sysctl:net.ipv4.tcp_slow_start_after_idle'}"
vars tuner_profiles="[\"$P/ans-two.toml\"]" tuner_exclusive=true
tune excl-two-check --check --diff
rc_is 0
check "$LAST" tuner localhost 'r["changed"] is True' "{c['knob'] for c in r['changes']} == $EXCL"
tune excl-two --diff
rc_is 0
check "$LAST" tuner localhost 'r["changed"] is True' 'len(r["reports"]) == 1' 'r["report"]["run_id"]' \
  "{c['knob'] for c in r['changes']} == $EXCL" \
  "'sysctl:net.core.somaxconn = $((somaxconn + 1000))\n' in r['diff']['before']" \
  "'sysctl:net.core.somaxconn = $((somaxconn + 2000))\n' in r['diff']['after']"
show_diff
[ "$(sysctl_get net.core.somaxconn)" = $((somaxconn + 2000)) ] || fail "ans-two not applied"
[ "$(sysctl_get net.ipv4.tcp_keepalive_time)" = $((keepalive - 1)) ] || fail "ans-two not applied"
[ "$(sysctl_get net.ipv4.tcp_slow_start_after_idle)" = "$ssai" ] || fail "ans-one's setting kept"
expect_rc 0 t status --json
python3 -c 'import json, sys; k = [x["knob"] for x in json.loads(sys.argv[1])["knobs"]]
assert sorted(k) == ["sysctl:net.core.somaxconn", "sysctl:net.ipv4.tcp_keepalive_time"], k' "$OUT" ||
  fail "kept after exclusive: $OUT"
tune excl-again
rc_is 0
check "$LAST" tuner localhost 'r["changed"] is False' 'r["reports"] == []' 'r["changes"] == []'
vars tuner_state='"rolled_back"'
tune excl-rollback
rc_is 0
[ "$(snapshot_net)" = "$initial" ] || fail "exclusive: the rollback left values changed"

note "a document of another shape: a message, not a traceback; probe errors as messages"
cat >"$WORK/odd-tuner" <<'SH'
#!/bin/sh
case "$1" in
  status) echo '{"schema": "tuner.status/1", "knobs": {"sysctl:x": 1}, "unfinished_run": null}' ;;
  apply) echo '{"schema": "tuner.run/1", "run_id": null, "groups": [{"name": "g"}]}' ;;
  plan) echo '{"schema": "tuner.plan/2", "changes": []}' ;;
  probe) echo '{"schema": "tuner.probe/1", "errors": [{"probe": "nics", "message": "ethtool: no such device"}]}' ;;
esac
SH
chmod +x "$WORK/odd-tuner"
vars tuner_state='"rolled_back"' tuner_binary="\"$WORK/odd-tuner\""
tune odd-status
check "$LAST" tuner localhost 'r["failed"] is True' \
  'r["msg"].startswith("tuner printed an unexpected document: ")' '"knobs" in r["msg"]' \
  '"Traceback" not in json.dumps(r)'
vars tuner_profiles='["x"]' tuner_binary="\"$WORK/odd-tuner\""
tune odd-apply
check "$LAST" tuner localhost 'r["failed"] is True' \
  'r["msg"].startswith("tuner printed an unexpected document: ")' '"changes" in r["msg"]' \
  '"Traceback" not in json.dumps(r)'
tune odd-plan --check
check "$LAST" tuner localhost 'r["failed"] is True' '"tuner.plan/2" in r["msg"]'
cat >"$WORK/odd-facts.yml" <<'YML'
- name: tuner_facts with probe errors
  hosts: all
  gather_facts: false
  tasks:
    - name: tuner_facts
      tuner.node.tuner_facts:
        binary: "{{ tuner_binary }}"
YML
play odd-facts -i localhost, -c local "$WORK/odd-facts.yml" -e "@$WORK/vars.json"
rc_is 0
check "$LAST" tuner_facts localhost 'r["warnings"] == ["tuner probe: nics: ethtool: no such device"]'

# ---------------------------------------------------------------------------------
note "canary.yml: five hosts, each its own network namespace and state dir"
HOSTS="h1 h2 h3 h4 h5"
for h in $HOSTS; do
  ns=tuner-ans-$$-$h
  ip netns add "$ns"
  NAMESPACES+=("$ns")
  ip -n "$ns" link set lo up
  mkdir -p "$WORK/$h"
  printf '#!/bin/sh\nexec ip netns exec %s %s "$@"\n' "$ns" "$TUNER" >"$WORK/$h/tuner"
  chmod +x "$WORK/$h/tuner"
done
ns_snapshot() { ip netns exec "tuner-ans-$$-$1" bash -c "$(declare -f snapshot_net); snapshot_net"; }
inventory() {  # inventory [HOST PROFILE]: the five hosts, each with ans-one or PROFILE
  python3 - "$WORK" "$P/ans-one.toml" "$HOSTS" "$@" >"$WORK/inventory.yml" <<'PY'
import json, sys
work, profile, hosts = sys.argv[1:4]
odd = dict(zip(sys.argv[4::2], sys.argv[5::2]))
print(json.dumps({'tuner_nodes': {'hosts': {h: {
    'ansible_connection': 'local',
    'tuner_state_dir': '%s/%s/state' % (work, h),
    'tuner_binary': '%s/%s/tuner' % (work, h),
    'tuner_profiles': [odd.get(h, profile)]} for h in hosts.split()}}}, indent=2))
PY
}
canary() {  # canary NAME ARGS...: tuner.node.canary from the collection, reports under $WORK/reports-NAME
  play "$1" -i "$WORK/inventory.yml" tuner.node.canary \
    -e '{"tuner_verify": false, "tuner_become": false}' -e "tuner_reports_dir=$WORK/reports-$1" \
    -e "tuner_report_binary=$TUNER" "${@:2}"
}
declare -A fresh
for h in $HOSTS; do fresh[$h]=$(ns_snapshot "$h"); done

note "a failing canary (h1 gets a bad profile) stops the rollout: h2..h5 untouched"
inventory h1 "$P/ans-bad.toml"
canary failing -e tuner_rollout=reused
[ "$RC" != 0 ] || fail "the play passed with a failing canary"
grep -E '^(fatal: |NO MORE HOSTS|h[1-5] +:)' "$WORK/failing.err" | cut -c1-160 | sed 's/^/    | /'
check "$LAST" 'Apply the profiles' h1 'r["failed"] is True' 'r["rc"] == 2' '"max_trails" in r["msg"]' \
  'batches("Apply the profiles") == [["h1"]]' 'sorted(results("Describe the node (tuner probe)")) == ["h1"]'
failing=$WORK/reports-failing/reused
python3 - "$failing/h1.error.json" <<'PY' || fail "h1.error.json: $(cat "$failing/h1.error.json")"
import json, re, sys
e = json.load(open(sys.argv[1]))
assert e['schema'] == 'tuner.failure/1' and e['rc'] == 2 and 'max_trails' in e['msg'], e
assert re.fullmatch(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ', e['time']), e
assert e['task'] == 'Apply the profiles' and e['run_id'] is None, e
PY
# The fleet summary ran on the controller before the failed canary was stopped.
check "$LAST" 'Summarize the fleet (tuner report)' h1 'r["rc"] == 0' \
  '"1 node: 1 run (1 failed), 1 probe" in r["stdout"]' '"FAILED" in r["stdout"]'
check "$LAST" 'Stop the rollout at a node where tuner failed' h1 'r["failed"] is True' \
  '"exit 2" in r["msg"]'
for h in h2 h3 h4 h5; do
  [ "$(ns_snapshot "$h")" = "${fresh[$h]}" ] || fail "$h changed after the canary failed"
  [ ! -e "$WORK/$h/state" ] || fail "tuner ran on $h after the canary failed"
  [ ! -e "$failing/$h.probe.json" ] || fail "the second batch started"
done
for h in $HOSTS; do [ "$(ns_snapshot "$h")" = "${fresh[$h]}" ] || fail "$h changed"; done

note "a canary whose probe fails: its error report, the summary, then the stop"
inventory
printf '#!/bin/sh\n[ "$1" != probe ] || { echo "tuner: probe: /sys: Permission denied" >&2; exit 1; }\nexec %s "$@"\n' \
  "$WORK/h1/tuner" >"$WORK/h1/tuner-noprobe"
chmod +x "$WORK/h1/tuner-noprobe"
play noprobe -i "$WORK/inventory.yml" tuner.node.canary -e '{"tuner_verify": false, "tuner_become": false}' \
  -e "tuner_reports_dir=$WORK/reports-noprobe" -e "tuner_report_binary=$TUNER" \
  -e "{\"tuner_binary\": \"$WORK/h1/tuner-noprobe\"}" -l h1
[ "$RC" != 0 ] || fail "the play passed with a failing probe"
noprobe=$(echo "$WORK"/reports-noprobe/*)
grep -q 'Permission denied' "$noprobe/h1.error.json" || fail "no error report for h1's probe"
grep -q '"task": "Describe the node (tuner probe)"' "$noprobe/h1.error.json" || fail "h1.error.json: no task"
check "$LAST" 'Summarize the fleet (tuner report)' h1 '"1 run (1 failed)" in r["stdout"]' \
  '"Permission denied" not in r["stdout"] or True'
check "$LAST" 'Stop the rollout at a node where tuner failed' h1 'r["failed"] is True' \
  '"Permission denied" in r["msg"]'
[ ! -e "$WORK/h1/state" ] || fail "tuner applied on h1 after its probe failed"

note "--check --diff over the fleet: every host would change, none does; no probe in the diff"
inventory
canary check --check --diff
rc_is 0
check "$LAST" 'Apply the profiles' h3 'all(x["changed"] for x in results("Apply the profiles").values())' \
  'len(results("Apply the profiles")) == 5' '"diff" in r'
check "$LAST" 'Copy the probe to the controller' h3 'not r.get("diff")' 'r["changed"] is False'
check "$LAST" 'Summarize the fleet (tuner report)' h2 'r.get("skipped") is True'
! grep -q 'tuner.probe/1' "$WORK/check.err" || fail "--check --diff printed a probe"
lines=$(wc -l <"$WORK/check.err")
echo "    --check --diff: $lines lines for 5 hosts"
[ "$lines" -lt 300 ] || fail "--check --diff printed $lines lines"
for h in $HOSTS; do [ "$(ns_snapshot "$h")" = "${fresh[$h]}" ] || fail "check mode changed $h"; done

note "a good canary: h1 first, then h2..h5; every report in the rollout's own directory"
# A foreign and a newer document in the directory: skipped with a warning, the rollout
# goes on (tuner report exits 0).
mkdir -p "$WORK/reports-good/reused"
echo '{"schema": "tuner.run/2", "groups": "other"}' >"$WORK/reports-good/reused/newer.json"
echo '{"kind": "someone else'"'"'s"}' >"$WORK/reports-good/reused/notes.json"
# The failing rollout's files, reused name: h1's old error must not count.
cp "$failing/h1.error.json" "$WORK/reports-good/reused/"
canary good -e tuner_rollout=reused
rc_is 0
good=$WORK/reports-good/reused
check "$LAST" 'Apply the profiles' h5 'r["changed"] is True' \
  'batches("Apply the profiles") == [["h1"], ["h2", "h3", "h4", "h5"]]'
[ ! -e "$good/h1.error.json" ] || fail "h1's error of an earlier rollout survived"
for h in $HOSTS; do
  python3 - "$good" "$h" <<'PY' || fail "reports of $h"
import json, re, sys
d, h = sys.argv[1:]
run = json.load(open('%s/%s.run.json' % (d, h)))
probe = json.load(open('%s/%s.probe.json' % (d, h)))
assert run['schema'] == 'tuner.run/1' and run['changed'] is True and run['run_id'], run
assert re.fullmatch(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ', run['time']), run
assert probe['schema'] == 'tuner.probe/1', probe['schema']
PY
  ip netns exec "tuner-ans-$$-$h" cat /proc/sys/net/core/somaxconn | grep -qx $((somaxconn + 1000)) ||
    fail "$h: somaxconn not applied"
done
ls "$good" | sed 's/^/    /'
# One summary per batch: the canary alone, then the whole fleet (five nodes on one
# machine: the file names, not the shared host name, tell them apart).
check "$LAST" 'Summarize the fleet (tuner report)' h1 '"1 node: 1 run (0 failed), 1 probe" in r["stdout"]' \
  '"skipped 2 files" in r["stdout"]' '"tuner.run/2 is newer" in r["stderr"]'
check "$LAST" 'Summarize the fleet (tuner report)' h2 '"5 nodes: 5 runs (0 failed), 5 probes" in r["stdout"]' \
  '"kept" in r["stdout"] or "applied" in r["stdout"]'
"$TUNER" report "$good" 2>/dev/null | sed 's/^/    | /'

note "the same again: nothing changes, the rerun says so (changed=0), a directory of its own"
canary again
rc_is 0
grep -E '^h[1-5] +:' "$WORK/again.err" | sed 's/^/    | /'
[ "$(grep -cE '^h[1-5] +: ok=[0-9]+ +changed=0 ' "$WORK/again.err")" = 5 ] ||
  fail "the rerun reported changes: $(grep -E '^h[1-5] +:' "$WORK/again.err")"
again=$(ls "$WORK/reports-again")
[[ $again =~ ^[0-9]{8}T[0-9]{6}Z$ ]] || fail "the rollout's directory is not named by its time: $again"
check "$LAST" 'Summarize the fleet (tuner report)' h2 '"5 nodes: 5 runs (0 failed), 5 probes" in r["stdout"]' \
  '"nothing changed" in r["stdout"]'

note "audit.yml: probe, check and status of every host, the summary; nothing changes"
declare -A tuned
for h in $HOSTS; do tuned[$h]=$(ns_snapshot "$h")$(cat "$WORK/$h/state/state.json"); done
audit() {  # audit NAME ARGS...: tuner.node.audit from the collection, reports under $WORK/audit-NAME
  play "$1" -i "$WORK/inventory.yml" tuner.node.audit -e '{"tuner_become": false}' \
    -e "tuner_reports_dir=$WORK/audit-$1" -e tuner_audit=a -e "tuner_report_binary=$TUNER" "${@:2}"
}
audit clean --check
rc_is 0
[ "$(grep -cE '^h[1-5] +: ok=[0-9]+ +changed=0 ' "$WORK/clean.err")" = 5 ] ||
  fail "the audit reported changes: $(grep -E '^h[1-5] +:' "$WORK/clean.err")"
for h in $HOSTS; do
  python3 - "$WORK/audit-clean/a" "$h" <<'PY' || fail "audit documents of $h"
import json, sys
d, h = sys.argv[1:]
for name, schema in (('probe', 'tuner.probe/1'), ('check', 'tuner.check/1'), ('status', 'tuner.status/1')):
    doc = json.load(open('%s/%s.%s.json' % (d, h, name)))
    assert doc['schema'] == schema, (name, doc.get('schema'))
PY
done
check "$LAST" 'Summarize the fleet (tuner report)' h1 'r["rc"] == 0' '"5 nodes" in r["stdout"]'
"$TUNER" report "$WORK/audit-clean/a" 2>/dev/null | sed 's/^/    | /'

note "audit.yml with tuner_fail_on=drift: a setting changed by hand on h3 fails h3 alone"
ip netns exec "tuner-ans-$$-h3" sh -c 'echo 4242 >/proc/sys/net/core/somaxconn'
audit drift -e tuner_fail_on=drift -e tuner_check_window=0
[ "$RC" != 0 ] || fail "the audit passed with a drifted setting"
grep -E '^(h[1-5]|localhost) +:' "$WORK/drift.err" | sed 's/^/    | /'
# recap HOST...: exactly these hosts (of h1..h5 and localhost) show failed=1.
recap() {
  local got
  got=$(grep -E '^(h[1-5]|localhost) +:' "${LAST%.json}.err" | grep -vE ' failed=0 ' | awk '{print $1}' | xargs)
  [ "$got" = "$*" ] || fail "failed in the recap: '$got', expected '$*':
$(grep -E '^(h[1-5]|localhost) +:' "${LAST%.json}.err")"
}
recap h3
check "$LAST" 'Summarize the fleet (tuner report)' h1 'r["rc"] == 3' '"h3" in r["stdout"]' \
  '"somaxconn" in r["stdout"]'
check "$LAST" 'Fail the nodes the summary found (tuner_fail_on)' h3 'r["failed"] is True' \
  '"sysctl:net.core.somaxconn changed" in r["msg"]' \
  'sorted(results("Fail the nodes the summary found (tuner_fail_on)")) == ["h1", "h2", "h3", "h4", "h5"]' \
  'all(x.get("skipped") for h, x in results("Fail the nodes the summary found (tuner_fail_on)").items() if h != "h3")'
# Every document in the audit's directory, written on the controller in one task.
[ "$(ls "$WORK/audit-drift/a" | xargs)" = "$(for h in $HOSTS; do printf '%s.check.json %s.probe.json %s.status.json ' $h $h $h; done | xargs)" ] ||
  fail "the audit's directory: $(ls "$WORK/audit-drift/a")"
grep -q '"drift": true' "$WORK/audit-drift/a/h3.status.json" || fail "h3.status.json: no drift"

note "audit.yml with tuner_fail_on=failed,drift: h2's probe fails, h3 drifted; h1, h4, h5 pass"
sed "s|$WORK/h1/tuner|$WORK/h2/tuner|" "$WORK/h1/tuner-noprobe" >"$WORK/h2/tuner-noprobe"
chmod +x "$WORK/h2/tuner-noprobe"
inventory
python3 - "$WORK/inventory.yml" "$WORK/h2/tuner-noprobe" <<'PY2'
import json, sys
inv = json.load(open(sys.argv[1]))
inv['tuner_nodes']['hosts']['h2']['tuner_binary'] = sys.argv[2]
json.dump(inv, open(sys.argv[1], 'w'))
PY2
audit both -e tuner_fail_on=failed,drift -e tuner_check_window=0
inventory
recap h2 h3
check "$LAST" 'Fail the nodes the summary found (tuner_fail_on)' h2 'r["failed"] is True' \
  '"failed (exit 1)" in r["msg"]' '"Permission denied" in r["msg"]'
grep -q 'Permission denied' "$WORK/audit-both/a/h2.error.json" || fail "no h2.error.json"
[ ! -e "$WORK/audit-both/a/h2.probe.json" ] || fail "a probe of h2"
# A file of another audit of the same name that drifted (no host of this play): the
# controller fails, no host does.
# h2's error of an earlier audit of the same name is removed first.
mkdir -p "$WORK/audit-foreign/a"
cp "$WORK/audit-drift/a/h3.status.json" "$WORK/audit-foreign/a/h9.status.json"
cp "$WORK/audit-both/a/h2.error.json" "$WORK/audit-foreign/a/"
ip netns exec "tuner-ans-$$-h3" sh -c "echo $((somaxconn + 1000)) >/proc/sys/net/core/somaxconn"
audit foreign -e tuner_fail_on=drift -e tuner_check_window=0
recap localhost
check "$LAST" 'Fail when the summary failed without naming a node of the audit' localhost \
  'r["failed"] is True' '"nodes not in this play: h9" in r["msg"]'
[ ! -e "$WORK/audit-foreign/a/h2.error.json" ] || fail "h2's error of the earlier audit survived"
for h in $HOSTS; do
  [ "$(ns_snapshot "$h")$(cat "$WORK/$h/state/state.json")" = "${tuned[$h]}" ] || fail "the audit changed $h"
done

note "the fleet rolled back with the module: every namespace as it was"
play fleet-rollback -i "$WORK/inventory.yml" "$here/tests/tune.yml" -e '{"tuner_state": "rolled_back"}'
rc_is 0
check "$LAST" tuner h1 'all(x["changed"] for x in results("tuner").values())' 'len(results("tuner")) == 5'
for h in $HOSTS; do [ "$(ns_snapshot "$h")" = "${fresh[$h]}" ] || fail "$h not rolled back"; done

# ---------------------------------------------------------------------------------
note "class_rollout.yml with tuner_peers: p1 and p2 (a veth between them) serve each other"
PHOSTS="p1 p2 p3 p4"
for h in $PHOSTS; do
  ns=tuner-ans-$$-$h
  ip netns add "$ns"
  NAMESPACES+=("$ns")
  ip -n "$ns" link set lo up
  mkdir -p "$WORK/$h"
  # Its own UTS namespace named HOST too: a decision record names its node by machine-id
  # and hostname (the namespaces share this machine's id), and the merge counts canaries
  # by them.
  printf '#!/bin/sh\nexec ip netns exec %s unshare --uts sh -c '\''hostname "$0" && exec "$@"'\'' %s %s "$@"\n' \
    "$ns" "$h" "$TUNER" >"$WORK/$h/tuner"
  # The host's modules (wait_for above all) see its network, as on a real node.
  printf '#!/bin/sh\nexec ip netns exec %s /usr/bin/python3 "$@"\n' "$ns" >"$WORK/$h/python"
  chmod +x "$WORK/$h/tuner" "$WORK/$h/python"
done
pns() { ip netns exec "tuner-ans-$$-$1" "${@:2}"; }
ip -n "tuner-ans-$$-p1" link add tpeer type veth peer name tpeer netns "tuner-ans-$$-p2"
ip -n "tuner-ans-$$-p1" addr add 10.217.0.1/30 dev tpeer
ip -n "tuner-ans-$$-p2" addr add 10.217.0.2/30 dev tpeer
ip -n "tuner-ans-$$-p1" link set tpeer up
ip -n "tuner-ans-$$-p2" link set tpeer up
fin=$(pns p1 cat /proc/sys/net/ipv4/tcp_fin_timeout)
cat >"$P/ans-peer.toml" <<EOF
[profile]
name = "ans-peer"

[sysctl]
"net.ipv4.tcp_fin_timeout" = "$((fin - 26))"

[verify]
bench = ["tcp-short"]
max_trials = 6
soak = "1s"

[bench.tcp-short]
kind = "tcp"
duration = "300ms"
rr_duration = "100ms"

[group.nic]
members = ["sysctl:net.ipv4.tcp_fin_timeout"]
peer = true
EOF
# p1, p2 and p3 are one class (rack-a: p1 and p2 its canaries, p3 the rest), p4 a class
# of its own (rack-b, a single canary).
peer_inventory() {  # peer_inventory [HOST KEY=JSON|null]...
  python3 - "$WORK" "$P/ans-peer.toml" "$PHOSTS" "$@" >"$WORK/peer-inventory.yml" <<'PY'
import json, sys
work, profile, hosts = sys.argv[1:4]
inv = {h: {'ansible_connection': 'local', 'ansible_python_interpreter': '%s/%s/python' % (work, h),
           'tuner_state_dir': '%s/%s/state' % (work, h), 'tuner_binary': '%s/%s/tuner' % (work, h),
           'tuner_decisions_path': '%s/%s/decisions.json' % (work, h),
           'tuner_class_label': 'rack-b' if h == 'p4' else 'rack-a'} for h in hosts.split()}
inv['p1']['tuner_peer_address'] = '10.217.0.1'
inv['p2']['tuner_peer_address'] = '10.217.0.2'
for h, kv in zip(sys.argv[4::2], sys.argv[5::2]):
    k, v = kv.split('=', 1)
    if v == 'null':
        inv[h].pop(k, None)
    else:
        inv[h][k] = json.loads(v)
print(json.dumps({'tuner_nodes': {'hosts': inv, 'vars': {'tuner_profiles': [profile]}}}, indent=2))
PY
}
class_rollout() {  # class_rollout NAME ARGS...: reports under $WORK/reports-NAME/r
  play "$1" -i "$WORK/peer-inventory.yml" tuner.node.class_rollout -e '{"tuner_become": false}' \
    -e "tuner_reports_dir=$WORK/reports-$1" -e tuner_rollout=r -e "tuner_report_binary=$TUNER" \
    -e tuner_budget=30s "${@:2}"
}
ptx() { pns "$1" cat /sys/class/net/tpeer/statistics/tx_bytes; }

note "   a canary of a pair without tuner_peer_address: the rollout stops before applying"
peer_inventory p2 tuner_peer_address=null
class_rollout peer-noaddr -e tuner_peers=true
[ "$RC" != 0 ] || fail "the rollout passed with p2 lacking tuner_peer_address"
check "$LAST" 'Stop the rollout where a paired canary has no tuner_peer_address' p1 'r["failed"]' \
  '"the canaries p2 have no tuner_peer_address" in r["msg"]'
for h in $PHOSTS; do [ ! -e "$WORK/$h/state" ] || fail "tuner applied on $h without p2's address"; done

peer_reset() {  # every p host as it was before the rollouts
  for h in $PHOSTS; do
    rm -rf "${WORK:?}/$h/state"
    pns "$h" sh -c "echo $fin >/proc/sys/net/ipv4/tcp_fin_timeout"
  done
}

note "   p1's tuner fails against p2's server: p2 stops serving, the pair does not swap, the rollout stops"
printf '#!/bin/sh\n[ "$1" != apply ] || { echo "tuner: planted canary failure" >&2; exit 1; }\nexec %s "$@"\n' \
  "$WORK/p1/tuner" >"$WORK/p1/tuner-failing"
chmod +x "$WORK/p1/tuner-failing"
peer_inventory p1 "tuner_binary=\"$WORK/p1/tuner-failing\""
class_rollout peer-failing -e tuner_peers=true
[ "$RC" != 0 ] || fail "the rollout passed with p1's tuner failing"
# ran(TASK): per round, the hosts TASK ran on. p2 served in round 1 and was stopped;
# round 2 (p2 against p1) never applied.
ran='lambda name: [sorted(h for h, x in t["hosts"].items() if not x.get("skipped")) for p in doc["plays"] for t in p["tasks"] if t["task"]["name"] == name]'
check "$LAST" "Stop the node's tuner bench --serve" p2 \
  "($ran)(\"Stop the node's tuner bench --serve\") == [['p2'], []]" \
  "($ran)('Apply the profiles, verified (the canary)') == [['p1', 'p4'], []]"
check "$LAST" 'Stop the rollout at a canary where tuner failed' p1 'r["failed"]' '"planted canary failure" in r["msg"]'
grep -q 'planted canary failure' "$WORK/reports-peer-failing/r/p1.error.json" || fail "no p1.error.json"
[ ! -e "$WORK/p2/state/runs" ] || fail "p2 applied after its partner failed"
! ip netns pids "tuner-ans-$$-p2" | xargs -r -n1 ps -o args= -p | grep -q 'bench --serve' ||
  fail "p2 still serves after p1 failed"
peer_reset

note "   the pair verifies over the veth in turn; p4, alone in its class, falls back to the soak"
peer_inventory
tx1=$(ptx p1) tx2=$(ptx p2)
class_rollout peers -e tuner_peers=true
rc_is 0
tx1=$(( $(ptx p1) - tx1 )) tx2=$(( $(ptx p2) - tx2 ))
grep -q 'canaries p1,p2; peers p1<->p2' "$WORK/peers.err" ||
  fail "the pair is not shown: $(grep -A8 'Show the classes' "$WORK/peers.err")"
python3 - "$WORK/reports-peers/r" "$LAST" <<'PY' || fail "the peer rollout (above): $(tail -40 "$WORK/peers.err")"
import json, os, sys
d = sys.argv[1]
doc = json.load(open(sys.argv[2]))

def ran(name):  # per round: the hosts the task ran on (not skipped)
    return [sorted(h for h, x in t['hosts'].items() if not x.get('skipped'))
            for p in doc['plays'] for t in p['tasks'] if t['task']['name'] == name]

# Round 1: p2 serves while p1 applies against it (p4, alone, without a peer); round 2
# the other way round. Each server is stopped after its round.
assert ran("Start tuner bench --serve on the node's fabric address") == [['p2'], ['p1']], doc
assert ran('Apply the profiles, verified (the canary)') == [['p1', 'p4'], ['p2']]
assert ran("Stop the node's tuner bench --serve") == [['p2'], ['p1']]
rep = {h: json.load(open(os.path.join(d, h + '.run.json'))) for h in ('p1', 'p2', 'p3', 'p4')}
for h in ('p1', 'p2'):
    r = rep[h]
    g = [g for g in r['groups'] if g['name'] == 'nic']
    assert g, (h, r['groups'])
    s = g[0]['stats']
    assert s.get('bench') == 'tcp-short@peer', (h, s)
    assert s['trials']['baseline'] >= 1 and s['trials']['candidate'] >= 1, (h, s['trials'])
    assert not any('needs a peer' in w['message'] for w in r['warnings']), (h, r['warnings'])
    print('    %s: nic %s, measured by %s, %d+%d trials (%s)' % (h, g[0]['decision'], s['bench'],
          s['trials']['baseline'], s['trials']['candidate'], s['outcome']))
r = rep['p4']
assert any('group nic needs a peer' in w['message'] for w in r['warnings']), r['warnings']
assert not any('bench' in g['stats'] for g in r['groups']), r['groups']
print('    p4 (a class of one): %s' % r['warnings'][0]['message'])
for g in rep['p3']['groups']:
    assert sorted(g['stats']['class_decision']['canaries']) == ['p1', 'p2'], g['stats']
for h in ('p1', 'p2', 'p4'):
    assert json.load(open(os.path.join(d, h + '.decision.json')))['schema'] == 'tuner.decision/1', h
PY
# Both ways over the veth (each end sent megabytes as the client), and no server left.
[ "$tx1" -gt 1000000 ] && [ "$tx2" -gt 1000000 ] || fail "tpeer sent $tx1 bytes from p1, $tx2 from p2"
echo "    through the veth: $((tx1 / 1000000)) MB from p1, $((tx2 / 1000000)) MB from p2"
for h in p1 p2; do
  ! ip netns pids "tuner-ans-$$-$h" | xargs -r -n1 ps -o args= -p | grep -q 'bench --serve' ||
    fail "$h still runs tuner bench --serve"
  [ ! -e "$WORK/$h/state/bench-serve.pid" ] || fail "$h's bench-serve.pid is left"
done
# Ansible's async wrapper looks at its job every 5 s: then nothing is left in the namespaces.
for _ in $(seq 100); do
  [ -n "$(ip netns pids "tuner-ans-$$-p1")$(ip netns pids "tuner-ans-$$-p2")" ] || break
  sleep 0.1
done
[ -z "$(ip netns pids "tuner-ans-$$-p1")$(ip netns pids "tuner-ans-$$-p2")" ] ||
  fail "left in p1 and p2: $({ ip netns pids "tuner-ans-$$-p1"; ip netns pids "tuner-ans-$$-p2"; } | xargs -r -n1 ps -o args= -p)"

note "   check mode with the merged decisions predicts p3's run: what the class did not keep is left out"
peer_reset
python3 -c 'import json, sys; print(json.dumps({"tuner_profiles": [sys.argv[1]], "tuner_decisions": sys.argv[2],
  "tuner_decisions_content": json.load(open(sys.argv[3]))}))' "$P/ans-peer.toml" "$WORK/p3/check-decisions.json" \
  "$WORK/reports-peers/r.decisions.json" >"$WORK/p3-check.json"
play p3-check -i "$WORK/peer-inventory.yml" --limit p3 "$here/tests/tune.yml" --check -e "@$WORK/p3-check.json"
rc_is 0
nic=$(jq -r '.classes[] | select(.canaries == ["p1", "p2"]) | .groups[] | select(.name == "nic") | .decision' \
  "$WORK/reports-peers/r.decisions.json")
# Rolled back or disagreed on: not written, so not predicted; otherwise written or
# verified on p3 (which may write it).
case "$nic" in rolled_back | disagree) want='r["changes"] == []' ;; *) want='len(r["changes"]) == 1' ;; esac
check "$LAST" tuner p3 "$want" \
  'r["plan"]["class_decisions"]["found"]' \
  '[g["class_decision"]["decision"] for g in r["plan"]["groups"]] == ["'"$nic"'"]'
[ ! -e "$WORK/p3/check-decisions.json" ] || fail "check mode wrote the decisions file"
[ ! -e "$WORK/p3/state/runs" ] || fail "check mode applied on p3"
echo "    p3 --check: the class's nic decision $nic, predicted $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([len(x["changes"]) for p in d["plays"] for t in p["tasks"] for x in t["hosts"].values()])' "$LAST") change(s)"

note "   without tuner_peers every canary falls back to the soak, and says so"
peer_reset
class_rollout nopeers
rc_is 0
python3 - "$WORK/reports-nopeers/r" "$LAST" <<'PY' || fail "the rollout without peers (above): $(tail -40 "$WORK/nopeers.err")"
import json, os, sys
d = sys.argv[1]
doc = json.load(open(sys.argv[2]))
ran = [sorted(h for h, x in t['hosts'].items() if not x.get('skipped'))
       for p in doc['plays'] for t in p['tasks'] if t['task']['name'] == 'Apply the profiles, verified (the canary)']
assert ran == [['p1', 'p2', 'p4']], ran    # one round, every canary
for h in ('p1', 'p2', 'p4'):
    r = json.load(open(os.path.join(d, h + '.run.json')))
    assert any('group nic needs a peer' in w['message'] for w in r['warnings']), (h, r['warnings'])
    assert not any('bench' in g['stats'] for g in r['groups']), (h, r['groups'])
PY

note "   tuner_quiet: a class's canaries only among its marked nodes; a class with none marked as before"
peer_reset
peer_inventory p2 tuner_quiet=true p3 tuner_quiet=true
class_rollout quiet --check
rc_is 0
grep -q 'canaries p2,p3 (from its 2 tuner_quiet nodes)' "$WORK/quiet.err" ||
  fail "rack-a's canaries are not its quiet p2, p3: $(grep -A8 'Show the classes' "$WORK/quiet.err")"
# p4, alone and unmarked in rack-b, is its class's canary as before; p1 is none.
check "$LAST" 'Pick the canaries of every class' p1 \
  'sorted(r["ansible_facts"]["tuner_canary_nodes"]) == ["p2", "p3", "p4"]'
check "$LAST" 'Sort the nodes into canaries and the rest' p1 \
  'sorted(x["item"] for x in r["results"] if x["add_host"]["groups"] == ["tuner_rollout_rest"]) == ["p1"]'
peer_inventory p3 tuner_quiet=true
class_rollout quiet-one --check
rc_is 0
grep -q 'canaries p3 (from its 1 tuner_quiet node: fewer than tuner_canaries_per_class)' \
  "$WORK/quiet-one.err" || fail "one quiet node: $(grep -A8 'Show the classes' "$WORK/quiet-one.err")"
peer_inventory
class_rollout quiet-none --check
rc_is 0
check "$LAST" 'Pick the canaries of every class' p1 \
  'sorted(r["ansible_facts"]["tuner_canary_nodes"]) == ["p1", "p2", "p4"]'
! grep -q 'tuner_quiet node' "$WORK/quiet-none.err" || fail "no node is quiet, yet the classes line says so"
for h in $PHOSTS; do [ ! -e "$WORK/$h/state/runs" ] || [ -z "$(ls "$WORK/$h/state/runs")" ] ||
  fail "check mode wrote a run on $h"; done

echo "PASS: ansible"
