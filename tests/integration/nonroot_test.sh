# Refusals that must change nothing: apply as an unprivileged user, and a state
# directory that is a symlink or world-writable.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"

profile=$(write_profile it-nonroot <<'P'
net.core.somaxconn = 8188
P
)
chmod 0755 "$WORK"; chmod 0644 "$profile"
before=$(sysctl_get net.core.somaxconn)
snapshot_net > "$WORK/before"

note "as nobody: explains, changes nothing, creates no state"
set +e
OUT=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TUNER" apply --state-dir "$WORK/nobody-state" \
      --profile "$profile" --no-verify --yes 2>&1); rc=$?
set -e
[ "$rc" = 126 ] && skip "nobody cannot execute $TUNER (parent directories not searchable)"
[ "$rc" = 1 ] || fail "expected exit 1 as nobody, got $rc: $OUT"
grep -q "must run as root" <<<"$OUT" && grep -q "nothing was changed" <<<"$OUT" || fail "$OUT"
[ ! -e "$WORK/nobody-state" ] || fail "non-root apply created a state dir"
snapshot_net > "$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "non-root apply changed something"

note "state dir that is a symlink: refused"
mkdir -m 0700 "$WORK/real"
ln -s "$WORK/real" "$WORK/link"
expect_rc 1 "$TUNER" apply --state-dir "$WORK/link" --profile "$profile" --no-verify --yes
grep -q "symlink" <<<"$OUT" || fail "$OUT"
[ "$(sysctl_get net.core.somaxconn)" = "$before" ] || fail "changed with a symlinked state dir"
[ -z "$(ls "$WORK/real")" ] || fail "wrote through the symlink: $(ls "$WORK/real")"

note "world-writable state dir: refused"
mkdir "$WORK/loose"; chmod 0777 "$WORK/loose"
expect_rc 1 "$TUNER" apply --state-dir "$WORK/loose" --profile "$profile" --no-verify --yes
grep -q "writable" <<<"$OUT" || fail "$OUT"
[ "$(sysctl_get net.core.somaxconn)" = "$before" ] || fail "changed with a loose state dir"

note "status and history as nobody: a private state dir is refused with the reason"
t apply --profile "$profile" --no-verify --yes >/dev/null
chmod 0755 "$WORK"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$TUNER" "$@"; }
set +e
OUT=$(nobody status --state-dir "$STATE" 2>&1); rc=$?
set -e
[ "$rc" = 1 ] || fail "status as nobody on a 0700 state dir: expected exit 1, got $rc: $OUT"
grep -q "Permission denied" <<<"$OUT" || fail "$OUT"

note "status and history as nobody: a state dir root made readable is read, not refused"
chmod 0755 "$STATE" "$STATE/runs"; chmod 0644 "$STATE/state.json" "$STATE"/runs/*
set +e
OUT=$(nobody status --state-dir "$STATE" --json 2>&1); rc=$?
set -e
[ "$rc" = 0 ] || fail "status as nobody on a readable root-owned state dir: exit $rc: $OUT"
grep -q '"sysctl:net.core.somaxconn"' <<<"$OUT" || fail "kept knob missing: $OUT"
set +e
OUT=$(nobody history --state-dir "$STATE" 2>&1); rc=$?
set -e
[ "$rc" = 0 ] || fail "history as nobody: exit $rc: $OUT"
# A writer still needs root, and another user's directory stays refused.
expect_rc 1 nobody rollback --state-dir "$STATE"
grep -q "must run as root" <<<"$OUT" || fail "$OUT"
mkdir -m 0755 "$WORK/theirs"; chown 1:1 "$WORK/theirs"
expect_rc 1 "$TUNER" status --state-dir "$WORK/theirs"
grep -q "owned by uid 1" <<<"$OUT" || fail "$OUT"
t rollback --last >/dev/null
[ "$(sysctl_get net.core.somaxconn)" = "$before" ] || fail "somaxconn not rolled back"

note "a bad value is refused by the kernel: the run is rolled back, exit 1"
bad=$(write_profile it-bad <<'P'
net.core.somaxconn = 8187
net.ipv4.tcp_syn_retries = 9999
P
)
expect_rc 1 t apply --profile "$bad" --no-verify --yes
grep -qi "invalid argument\|rejected" <<<"$OUT" || fail "$OUT"
[ "$(sysctl_get net.core.somaxconn)" = "$before" ] || fail "somaxconn not rolled back"
echo PASS
