# shellcheck shell=dash disable=SC2154,SC3043
# Scenario part: the SIOCETHTOOL backend (probes/ethtool.h), as on a kernel without the
# ethtool generic-netlink family (before 5.6), forced with TUNER_ETHTOOL_BACKEND=ioctl on
# the guest's real virtio_net and e1000 drivers. The probe through it equals netlink's;
# vm-ioctl.toml (link, channels, rings, coalescing) applies and rolls back the same through
# either backend, each checked against ethtool's own reading (the CLI speaks netlink);
# and a run applied through one backend rolls back through the other (but coalescing:
# below).
IPROFILE=/etc/tuner/profiles/vm-ioctl.toml
SKIP=
grep -q tuner_selftest= /proc/cmdline && SKIP="self-test: the stand-in tuner has one backend"
combined() { ethtool -l "$VIRT" 2>/dev/null | awk '/^Current/ { cur = 1 } cur && /^Combined:/ { print $2; exit }'; }
# ioctl_state: what vm-ioctl.toml sets, as the kernel reports it, one line
ioctl_state() {
  echo "speed=$(cat /sys/class/net/$VIRT/speed 2>/dev/null) duplex=$(cat /sys/class/net/$VIRT/duplex 2>/dev/null)" \
    "autoneg=$(autoneg $VIRT) combined=$(combined) rx-ring=$(rx_ring)" \
    "rx-usecs=$(ethtool -c "$E1K" 2>/dev/null | sed -n 's/^rx-usecs:[[:space:]]*//p')"
}
# with_backend B NAME CMD...: run_step NAME CMD... under TUNER_ETHTOOL_BACKEND=B
with_backend() {
  local b=$1; shift
  export TUNER_ETHTOOL_BACKEND=$b STEP_TIMEOUT=180
  run_step "$@"
  unset TUNER_ETHTOOL_BACKEND STEP_TIMEOUT
}
IBEFORE=$(ioctl_state)
note "ioctl step: before: $IBEFORE"

# ---- probe: every NIC field alike but the backend's name
for b in netlink ioctl; do
  [ -z "$SKIP" ] && with_backend $b ioctl.probe.$b tuner probe --json
done
# What differs between the backends' NICs, one line each: every field alike, but
# coalescing, where netlink reports only the parameters the driver declares (5.7+) and
# the ioctl every field of struct ethtool_coalesce (0 where unsupported): each one
# netlink reports must read the same through the ioctl.
probe_diff() {
  jq -rn --slurpfile a /tmp/ioctl.probe.netlink.out --slurpfile b /tmp/ioctl.probe.ioctl.out '
    if ($a[0].nics | map(.name)) != ($b[0].nics | map(.name)) then "the NIC lists differ" else
    [$a[0].nics, $b[0].nics] | transpose[] | . as [$n, $i] |
    ($n | keys_unsorted[]) as $k | select(["ethtool", "irqs", "operstate"] | index($k) | not) |
    if $k == "coalesce" then
      ($n.coalesce // {} | to_entries[]) | select(.value != null and .value != ($i.coalesce // {})[.key]) |
      "\($n.name).coalesce.\(.key): \(.value) vs \(($i.coalesce // {})[.key])"
    elif $n[$k] != $i[$k] then "\($n.name).\($k): \($n[$k] | tostring) vs \($i[$k] | tostring)"
    else empty end end' 2>&1 | one_line
}
check ioctl.probe.backend \
  "$(jq -r '[.nics[].ethtool] | unique | join(",")' /tmp/ioctl.probe.ioctl.out 2>/dev/null)" = ioctl \
  "probe --json: every NIC's ethtool field under TUNER_ETHTOOL_BACKEND=ioctl"
check ioctl.probe.alike "$(probe_diff)" = "" \
  "the NICs through ioctl and netlink (link, modes, channels, rings, coalescing, driver): $(jq -c --arg v "$VIRT" '.nics[] | select(.name == $v) | {link, channels}' /tmp/ioctl.probe.ioctl.out 2>/dev/null)"
check ioctl.probe.errors \
  "$(jq -r '[.errors[] | select(.probe == "nic" or .probe == "netlink") | .message] | join("; ")' /tmp/ioctl.probe.ioctl.out 2>/dev/null)" \
  = "" "the probe's nic and netlink errors under ioctl"

# ---- apply and rollback through each backend: the same state, the same changes
want="speed=1000 duplex=full autoneg=off combined=2 rx-ring=1024 rx-usecs=100"
for b in ioctl netlink; do
  RC=
  [ -z "$SKIP" ] && with_backend $b ioctl.apply.$b \
    tuner apply --profile $IPROFILE --no-verify --yes --json
  check ioctl.apply.$b.rc "${RC:-x}" = 0 "apply --no-verify through $b"
  check ioctl.apply.$b.state "$(ioctl_state)" = "$want" "the kernel's reading after apply through $b"
  wait_link "$E1K" 10
  RC=
  [ -z "$SKIP" ] && with_backend $b ioctl.rollback.$b \
    tuner rollback --last --json
  check ioctl.rollback.$b.rc "${RC:-x}" = 0 "rollback --last through $b"
  check ioctl.rollback.$b.state "$(ioctl_state)" = "$IBEFORE" "the kernel's reading after rollback through $b"
  wait_link "$E1K" 10
done
# The runs' changes alike; coalescing's values differ by the fields above, its status not.
changes() {
  jq -c '[.groups[].changes[] | if (.knob | endswith(":coalesce")) then [.knob, .status]
    else [.knob, .before, .after, .status] end] | sort' "/tmp/ioctl.apply.$1.out" 2>/dev/null
}
check ioctl.apply.alike "$(changes ioctl)" = "$(changes netlink)" "the runs' changes (knob, before, after, status) through each backend: $(changes ioctl)"

# ---- across: applied through ioctl, rolled back through netlink (link, channels and
# rings: a coalescing value journaled through the ioctl names fields netlink does not
# report, and reads as changed since: DESIGN.md "ethtool backends")
sed -e '/coalesce/d' -e 's/^name = "vm-ioctl"/name = "vm-ioctl-cross"/' $IPROFILE > /etc/tuner/profiles/vm-ioctl-cross.toml
RC=
[ -z "$SKIP" ] && with_backend ioctl ioctl.cross.apply \
  tuner apply --profile /etc/tuner/profiles/vm-ioctl-cross.toml --no-verify --yes --json
want_cross="speed=1000 duplex=full autoneg=off combined=2 rx-ring=1024 rx-usecs=${IBEFORE##*rx-usecs=}"
check ioctl.cross.apply "$(ioctl_state)" = "$want_cross" "after apply through ioctl"
wait_link "$E1K" 10
RC=
[ -z "$SKIP" ] && with_backend netlink ioctl.cross.rollback tuner rollback --last --json
check ioctl.cross.rollback.rc "${RC:-x}" = 0 "rollback --last through netlink of a run applied through ioctl"
check ioctl.cross.rollback "$(ioctl_state)" = "$IBEFORE" "applied through ioctl, rolled back through netlink"
wait_link "$E1K" 10
same_as_before ioctl.restored "after the ioctl backend's runs"
SKIP=
