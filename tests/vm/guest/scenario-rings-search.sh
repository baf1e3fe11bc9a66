# shellcheck shell=dash disable=SC2154,SC3043
# Scenario part 11 (before the IRQ rebinding): a value search of the e1000's RX ring size, against ethtool -g's own
# reading of the kernel. Every resize resets the e1000 (link down and up): the plan
# gives the blocked design, the search finds the synthetic benchmark's best (1024,
# value-bench.sh), keeps it, and rollback --last restores the original size.
RPROFILE=/etc/tuner/profiles/vm-e1000-rings-search.toml
SKIP=
RORIG=$(rx_ring)
check rings.e1000_has_them "${RORIG:-none}" != none \
  "ethtool -g $E1K: current RX ring ${RORIG:-not reported} (e1000 resizes its rings)"
grep -q tuner_selftest= /proc/cmdline && SKIP="self-test: the stand-in tuner has no value search"

RC=
[ -z "$SKIP" ] && run_step rings.search.plan tuner plan --profile $RPROFILE --json
check rings.search.plan.candidates \
  "$(jq -r '.searches[0] | .setting + " " + .design + " " + ([.candidates[].value] | join(","))' /tmp/rings.search.plan.out 2>/dev/null)" \
  = "nic:$E1K:rings.rx blocked 512,1024,2048" "plan --json: the searched setting, its design and candidates"

RC=
[ -z "$SKIP" ] && run_step rings.search.apply tuner apply --profile $RPROFILE --yes --json
check rings.search.apply.rc "${RC:-x}" = 0 "apply (verified, searching) exit status"
check rings.search.chosen \
  "$(jq -r '.groups[0].decision + " " + (.groups[0].stats.search.chosen // "none") + " " + (.groups[0].stats.design // "?")' /tmp/rings.search.apply.out 2>/dev/null)" \
  = "kept 1024 blocked" "the group's decision, the candidate chosen and the design"
check rings.search.ethtool "$(rx_ring)" = 1024 "ethtool -g $E1K current RX after the search"
check rings.search.link "$(cat /sys/class/net/"$E1K"/operstate)" = up "$E1K is up after the search"

RC=
[ -z "$SKIP" ] && run_step rings.search.rollback tuner rollback --last --json
check rings.search.rollback.rc "${RC:-x}" = 0 "rollback --last exit status"
check rings.search.rollback.ethtool "$(rx_ring)" = "$RORIG" "ethtool -g $E1K current RX after rollback"
same_as_before rings.search.restored "after the rings search and rollback"
SKIP=
