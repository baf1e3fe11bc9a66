# One tuner at a time: while another process holds <state-dir>/lock, apply, rollback
# and restore are refused with the holder's pid, and nothing changes.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e

profile=$(write_profile it-lock <<'P'
net.core.somaxconn = 8189
P
)
before=$(sysctl_get net.core.somaxconn)
expect_rc 0 t history   # creates nothing
mkdir -m 0700 -p "$STATE"
# Hold the lock from the shell the way a running tuner does: pid in the file, flock on it.
exec 9>"$STATE/lock"
echo $$ >&9
flock -n 9 || fail "could not take the lock for the test"
for cmd in "apply --profile $profile --no-verify --yes" "rollback --last" "restore"; do
  expect_rc 1 t $cmd
  grep -q "another tuner (pid $$) is changing this machine" <<<"$OUT" || fail "$cmd: $OUT"
done
[ "$(sysctl_get net.core.somaxconn)" = "$before" ] || fail "changed while locked"
exec 9>&-
expect_rc 0 t apply --profile "$profile" --no-verify --yes
[ "$(sysctl_get net.core.somaxconn)" = 8189 ] || fail "apply after unlock"

note "two applies at once: the second is refused"
expect_rc 0 t rollback --last
"$TUNER" apply --state-dir "$STATE" --profile "$profile" --no-verify --yes >/dev/null 2>&1 &
first=$!
# The second start races the first; whichever loses must say so, never both win.
set +e
OUT2=$("$TUNER" apply --state-dir "$STATE" --profile "$profile" --no-verify --yes 2>&1); rc2=$?
wait $first; rc1=$?
set -e
if [ "$rc2" = 1 ]; then
  grep -q "another tuner" <<<"$OUT2" || grep -q "nothing to change" <<<"$OUT2" || fail "$OUT2"
fi
[ "$rc1" = 0 ] || [ "$rc2" = 0 ] || fail "neither apply succeeded ($rc1, $rc2): $OUT2"
[ "$(ls "$STATE/runs" | wc -l)" -le 2 ] || fail "two applies both wrote runs"
echo PASS
