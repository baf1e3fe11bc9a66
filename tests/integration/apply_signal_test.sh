# Signals during apply, on the real kernel inside a private network namespace:
# SIGTERM, SIGINT and SIGHUP while the verify loop runs a benchmark. Each must stop the
# benchmark's whole process group, put back what the run changed (every net.* sysctl as
# before), end the run rolled_back (status 0, not 4: no unfinished run) and exit
# 128 + the signal. A second signal during the rollback must not stop it. SIGTERM during
# a guard soak ends the soak window at once.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e
ip link set lo up

# The benchmark: records its process group's helper, prints a metric and sleeps long
# enough to be interrupted in its second trial (the first trial marks "started").
cat > "$WORK/bench.sh" <<'B'
#!/bin/sh
w=$(dirname "$0")
sleep 300 &
echo $! >> "$w/helpers"
# Stopped, it takes a second to exit: a second signal to tuner lands meanwhile.
if [ -e "$w/started" ]; then trap 'sleep 1; exit 1' TERM; wait; fi
touch "$w/started"
kill $!
echo "1000 ops"
B

profile() {
  cat > "$WORK/sig.toml" <<P
[profile]
name = "sig"

[sysctl]
"net.ipv4.tcp_rmem" = "4096 131072 6291456"
"net.ipv4.ip_default_ttl" = "$1"

[verify]
bench = ["slow"]
min_effect = 0.05
max_trials = 10

[bench.slow]
kind = "exec"
command = ["/bin/sh", "$WORK/bench.sh"]
metric = { regex = "([0-9]+) ops" }
unit = "ops/s"
timeout = "600s"
P
}

# Starts apply in the background, waits for the benchmark's second trial to be running,
# sends the signals (the second one 0.2 s after the first), and waits for tuner's exit.
interrupt_apply() {
  local sigs=("$@")
  rm -f "$WORK/started" "$WORK/helpers"
  "$TUNER" apply --state-dir "$STATE" --color never --profile "$WORK/sig.toml" --yes \
    --json --report "$WORK/run.json" > "$WORK/out" 2> "$WORK/err" &
  local pid=$!
  for _ in $(seq 200); do
    [ -e "$WORK/started" ] && [ "$(wc -l < "$WORK/helpers" 2>/dev/null || echo 0)" -ge 2 ] && break
    sleep 0.1
  done
  [ "$(wc -l < "$WORK/helpers")" -ge 2 ] || fail "the benchmark never reached its second trial: $(cat "$WORK/err")"
  kill -s "${sigs[0]}" "$pid"
  for s in "${sigs[@]:1}"; do sleep 0.2; kill -s "$s" "$pid" || fail "tuner died of the first signal"; done
  set +e
  wait "$pid"
  RC=$?
  set -e
}

helpers_gone() {
  local p
  for _ in $(seq 50); do
    local alive=0
    while read -r p; do
      if [ -e "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ]; then alive=1; fi
    done < "$WORK/helpers"
    [ "$alive" = 0 ] && return 0
    sleep 0.1
  done
  fail "a benchmark helper outlived tuner: $(cat "$WORK/helpers" | tr '\n' ' ')"
}

check_put_back() {
  local what=$1 want_rc=$2
  [ "$RC" = "$want_rc" ] || fail "$what: exit $RC, expected $want_rc
$(cat "$WORK/err")"
  [ "$(snapshot_net)" = "$before" ] || fail "$what: net.* differs after the interrupted run"
  helpers_gone
  jq -e '.groups[0].decision == "rolled_back" and (.errors[0].message | test("interrupted by"))' \
    "$WORK/run.json" > /dev/null || fail "$what: report: $(jq -c '{groups: [.groups[].decision], errors}' "$WORK/run.json")"
  jq -e '.groups[0].decision == "rolled_back"' "$WORK/out" > /dev/null || fail "$what: stdout is not the run document"
  grep -q "received: stopping the benchmark and putting back what this run changed" "$WORK/err" ||
    fail "$what: no word on stderr: $(cat "$WORK/err")"
  expect_rc 0 t status  # 4 would be an unfinished run
  expect_rc 0 t apply --profile "$WORK/sig.toml" --yes --no-verify  # nothing blocks the next run
  expect_rc 0 t rollback --last
}

profile 63
before=$(snapshot_net)

note "1. SIGTERM in the verify loop's benchmark: exit 143, the run put back"
interrupt_apply TERM
check_put_back SIGTERM 143

note "2. SIGINT, then SIGINT again during the rollback: exit 130, all of it put back"
interrupt_apply INT INT
check_put_back "SIGINT twice" 130
grep -q "still putting back" "$WORK/err" || fail "the second SIGINT was not answered: $(cat "$WORK/err")"

note "3. SIGHUP (a dropped SSH session): exit 129"
interrupt_apply HUP
check_put_back SIGHUP 129

note "4. SIGTERM during a guard soak (bench = [], keep_if_neutral): the window ends at once"
cat > "$WORK/soak.toml" <<P
[profile]
name = "soak"

[sysctl]
"net.ipv4.ip_default_ttl" = "63"

[verify]
bench = ["tcp"]
soak = "300s"

[group.ttl]
members = ["sysctl:net.ipv4.ip_default_ttl"]
bench = []
keep_if_neutral = true
P
"$TUNER" apply --state-dir "$STATE" --color never --profile "$WORK/soak.toml" --yes \
  --json > "$WORK/out" 2> "$WORK/err" &
pid=$!
sleep 2
t0=$(date +%s)
kill -TERM "$pid"
set +e; wait "$pid"; RC=$?; set -e
[ "$RC" = 143 ] || fail "soak: exit $RC: $(cat "$WORK/err")"
[ $(( $(date +%s) - t0 )) -lt 30 ] || fail "soak: tuner took $(( $(date +%s) - t0 )) s to stop"
[ "$(snapshot_net)" = "$before" ] || fail "soak: net.* differs after the interrupted run"
expect_rc 0 t status

note "5. tuner bench (no apply): SIGTERM and SIGINT stop the benchmark's process group"
cat > "$WORK/hang.sh" <<'B'
#!/bin/sh
sleep 300 &
echo $! >> "$(dirname "$0")/helpers"
wait
echo "1000 ops"
B
cat > "$WORK/hang.toml" <<P
[profile]
name = "hang"

[bench.hang]
kind = "exec"
command = ["/bin/sh", "$WORK/hang.sh"]
metric = { regex = "([0-9]+) ops" }
unit = "ops/s"
timeout = "600s"
P
for sig in TERM INT; do
  rm -f "$WORK/helpers"
  "$TUNER" bench hang --profile "$WORK/hang.toml" --trials 3 > "$WORK/out" 2> "$WORK/err" &
  pid=$!
  for _ in $(seq 100); do [ -s "$WORK/helpers" ] && break; sleep 0.1; done
  [ -s "$WORK/helpers" ] || fail "bench $sig: the benchmark never started: $(cat "$WORK/err")"
  kill -s "$sig" "$pid"
  set +e; wait "$pid"; RC=$?; set -e
  want=$([ "$sig" = TERM ] && echo 143 || echo 130)
  [ "$RC" = "$want" ] || fail "bench $sig: exit $RC, expected $want: $(cat "$WORK/err")"
  helpers_gone
  grep -q "interrupted by SIG$sig" "$WORK/err" || fail "bench $sig: $(cat "$WORK/err")"
  [ "$(wc -l < "$WORK/helpers")" = 1 ] || fail "bench $sig: a trial started after the signal"
done

note "ok"
