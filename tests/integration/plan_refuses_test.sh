# Plan refuses what apply would refuse (issue 20): values the kernel refuses, or reads
# back as something else, are errors at the profile's file:line:col with exit 2, and
# nothing is written. Each was once planned with exit 0, and apply then failed after
# other writes and reverted (exit 1). In a private network namespace: net.* only.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e
ip link set lo up
snapshot_net > "$WORK/net.before"

# key|value|what the message must say
cases=(
  'net.core.somaxconn|-1|out of the kernel'"'"'s range for it: 0 to 2147483647'
  'net.core.somaxconn|99999999999|out of the kernel'"'"'s range'
  'net.core.somaxconn|05000|leading 0 as octal (05000 would be 2560)'
  'net.ipv4.tcp_rmem|4096 131072|takes 3 numbers'
  'net.ipv4.tcp_rmem|4096 131072 6291456 1|takes 3 numbers'
  'net.ipv4.ip_local_port_range|60000 1024|is a range: its first number must not exceed the second'
)
i=0
for c in "${cases[@]}"; do
  IFS='|' read -r key value want <<<"$c"
  i=$((i + 1))
  f="$WORK/bad$i.toml"
  # The bad setting on line 7, after a good one that must not be written either.
  printf '[profile]\nname = "bad%s"\n\n[sysctl]\n"net.ipv4.tcp_keepalive_probes" = "7"\n# the bad one\n"%s" = "%s"\n' \
    "$i" "$key" "$value" > "$f"
  expect_rc 2 t plan --profile "$f"
  grep -qF "$f:7:1:" <<<"$OUT" || fail "$key = '$value': no file:line:col in: $OUT"
  grep -qF "sysctl:$key: " <<<"$OUT" || fail "$key = '$value': the knob is not named: $OUT"
  grep -qF "$want" <<<"$OUT" || fail "$key = '$value': expected '$want' in: $OUT"
  expect_rc 2 t apply --profile "$f" --yes --no-verify
  note "$key = '$value': $(head -1 <<<"$OUT" | sed "s|$WORK/||")"
done
# A read-only key: in this (child) namespace the kernel shows some global net.* keys
# read-only, so the plan skips it with a note; on a tree where it is a plain 0444 file
# (the initial namespace's view) it is refused at its line.
printf '[profile]\nname = "ro"\n\n[sysctl]\n"net.ipv4.tcp_available_congestion_control" = "reno"\n' > "$WORK/ro.toml"
expect_rc 0 t plan --profile "$WORK/ro.toml"
grep -qF "read-only in this network namespace (a global setting of the initial one): skipped" <<<"$OUT" ||
  fail "read-only key in a child namespace: $OUT"
tree="$WORK/tree"
mkdir -p "$tree/proc/sys/net/ipv4"
echo "reno cubic" > "$tree/proc/sys/net/ipv4/tcp_available_congestion_control"
chmod 0444 "$tree/proc/sys/net/ipv4/tcp_available_congestion_control"
expect_rc 2 t plan --profile "$WORK/ro.toml" --root "$tree"
grep -qF "$WORK/ro.toml:5:1: sysctl:net.ipv4.tcp_available_congestion_control: read-only on this kernel (mode 0444)" <<<"$OUT" ||
  fail "read-only key on a tree: $OUT"

# The "5000\n6000" of a TOML multi-line string.
printf '[profile]\nname = "nl"\n\n[sysctl]\n"net.core.somaxconn" = """5000\n6000"""\n' > "$WORK/nl.toml"
expect_rc 2 t plan --profile "$WORK/nl.toml"
grep -qF "takes 1 number" <<<"$OUT" || fail "5000\\n6000: $OUT"

snapshot_net > "$WORK/net.after"
diff -q "$WORK/net.before" "$WORK/net.after" >/dev/null || {
  diff "$WORK/net.before" "$WORK/net.after" | head
  fail "a refused plan or apply changed net.* sysctls"
}
[ ! -d "$STATE/runs" ] || [ -z "$(ls -A "$STATE/runs")" ] || fail "a refused apply left a run"

# What must still pass: the same keys with values the kernel takes.
good=$(write_profile good <<'P'
net.core.somaxconn = 8192
net.ipv4.tcp_rmem = 4096 262144 16777216
net.ipv4.ip_local_port_range = 1024 65000
P
)
expect_rc 0 t plan --profile "$good"
echo PASS
