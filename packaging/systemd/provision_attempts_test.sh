#!/usr/bin/env bash
# provision-attempts as tuner-provision.service calls it (ExecStartPre check, then
# ExecStopPost record with systemd's $SERVICE_RESULT), on a state directory of its own:
# three failures in a row and the fourth boot does not try; a success forgets the count.
#   provision_attempts_test.sh        (CTest package/provision-attempts; no root)
set -uo pipefail
helper=$(dirname "$0")/provision-attempts
fail() { echo "FAIL: package/provision-attempts: $*"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export TUNER_STATE_DIR=$dir
unset TUNER_PROVISION_ATTEMPTS

# One boot: check, and when it lets the attempt go, record what became of it.
boot() {
  local result=$1
  if sh "$helper" check 2>"$dir/check.err"; then
    SERVICE_RESULT=$result sh "$helper" record 2>/dev/null || fail "record failed"
    echo ran
  else
    SERVICE_RESULT=exit-code sh "$helper" record 2>/dev/null || fail "record after a refusal failed"
    echo refused
  fi
}

[[ $(boot exit-code) == ran ]] || fail "the first attempt did not run"
[[ $(cat "$dir/provision-failures") == 1 ]] || fail "one failure is not counted"
[[ $(boot signal) == ran ]] || fail "the second attempt did not run"
[[ $(boot timeout) == ran ]] || fail "the third attempt did not run"
[[ $(cat "$dir/provision-failures") == 3 ]] || fail "three failures: $(cat "$dir/provision-failures")"
[[ $(boot exit-code) == refused ]] || fail "a fourth attempt ran after three failures"
grep -q "3 attempts failed (limit 3)" "$dir/check.err" || fail "the refusal says: $(cat "$dir/check.err")"
grep -q "rm $dir/provision-failures" "$dir/check.err" || fail "the refusal does not say how to retry"
[[ $(cat "$dir/provision-failures") == 3 ]] || fail "a refusal counted as an attempt"

# Removing the count allows more; a success forgets the failures before it.
rm "$dir/provision-failures"
[[ $(boot exit-code) == ran ]] || fail "no attempt after the count was removed"
[[ $(boot success) == ran ]] || fail "the attempt after one failure did not run"
[[ ! -e "$dir/provision-failures" ]] || fail "a success left the count"

# The limit from provision.env; a damaged count is taken as the limit.
TUNER_PROVISION_ATTEMPTS=1 sh "$helper" check || fail "limit 1 refused the first attempt"
echo garbage >"$dir/provision-failures"
sh "$helper" check 2>/dev/null && fail "a damaged count let the attempt run"
sh "$helper" bogus 2>/dev/null; [[ $? == 2 ]] || fail "an unknown command is not a usage error"
echo "PASS: package/provision-attempts"
