// tuned.overrides and networkmanager.overrides: a daemon that sets what tuner keeps or
// is about to set. Which value lands last at boot decides what the node runs with:
// tuned.service starts after network.target, so after tuner-restore.service (which
// must finish before network.target, for the NIC settings) and it writes over tuner's
// values, unless tuner-after-tuned.service restores them again after it.
// NetworkManager applies a connection's ethtool and link settings each time it
// activates it: after tuner-restore.service at boot, and again on every reconnect.
#include <fmt/format.h>

#include "base/strings.h"
#include "tuner/check/check.h"

namespace tuner {
namespace {

std::string unit_text(const ServiceState& s) {
  std::string text = s.unit.masked    ? "masked (" + s.unit.via + ")"
                     : s.unit.enabled ? "enabled (" + s.unit.via + ")"
                                      : "not enabled";
  if (s.running) text += *s.running ? ", running" : ", not running";
  return text;
}

std::string shown(const ForeignValue& v) {
  std::string value = v.modifier ? std::string(1, v.modifier) + v.value : v.value;
  return v.computed ? "computed by tuned when it applies it: " + value : value;
}

struct BootWinner {
  std::string says;
  Severity severity;
};

BootWinner tuned_boot(const TunedCheck& t) {
  if (!t.service.unit.enabled || t.service.unit.masked)
    return {"tuner: tuned.service is not enabled and does not start at boot; while it runs, "
            "each reload or profile switch writes its value again",
            Severity::info};
  if (t.after_tuned.enabled && !t.after_tuned.masked)
    return {"tuner: tuner-after-tuned.service restores the kept values after tuned.service "
            "applied its profile; tuned writes its value again on 'tuned-adm profile' or a "
            "reload of tuned",
            Severity::info};
  return {"tuned: tuned.service starts after network.target, after tuner-restore.service, "
          "and writes its value over tuner's at every boot",
          Severity::warning};
}

std::string tuned_fix(const TunedCheck& t, const ForeignValue& v, const TunerSetting& mine) {
  std::string parent = fmt::format("{}", fmt::join(t.profile.names, ","));
  std::string child = (t.profile.names.empty() ? std::string("profile") : t.profile.names[0]) +
                      "-tuner";
  return fmt::format(
      "a tuned profile that leaves it to tuner: /etc/tuned/{0}/tuned.conf with [main] "
      "include={1} and [{2}] drop={3} (tuned 2.20 and later; before, {3}={4}), then "
      "'tuned-adm profile {0}'; or 'systemctl enable tuner-after-tuned.service' so that the "
      "kept value is restored after tuned at boot; or 'systemctl disable --now tuned' "
      "(docs/coexistence.md)",
      child, parent, v.section, v.key, normalize_ws(mine.value));
}

}  // namespace

void check_tuned(const CheckInput& in, CheckReport& out) {
  if (!in.tuned) {
    if (in.tuned_skipped) skip(out, Rule::tuned_overrides, *in.tuned_skipped);
    return;
  }
  const TunedCheck& t = *in.tuned;
  std::string names = fmt::format("{}", fmt::join(t.profile.names, " "));
  Evidence service{"tuned.service", unit_text(t.service)};
  Evidence profile{"tuned profile (etc/tuned/active_profile)",
                   names + (t.mode ? " (profile_mode " + *t.mode + ")" : "")};
  for (const std::string& inc : t.profile.computed_includes)
    out.findings.push_back(
        {Rule::tuned_overrides,
         Severity::info,
         "tuned",
         fmt::format("tuned's profile '{}' includes a profile tuned chooses when it loads it "
                     "({}): its settings are not compared",
                     names, inc),
         {service, profile, {"include (not followed)", inc}},
         "'tuned-adm active' names the profile in force; compare its tuned.conf by hand"});
  BootWinner boot = tuned_boot(t);
  for (const auto& [knob, mine] : in.tuner_settings) {
    auto theirs = tuned_value_for(t.profile, knob, in.inventory);
    if (!theirs || !values_conflict(mine.value, *theirs)) continue;
    out.findings.push_back(
        {Rule::tuned_overrides,
         boot.severity,
         knob,
         fmt::format("tuned's profile '{}' sets {} to {}, tuner ({}) to {}: at boot {}", names,
                     theirs->key, shown(*theirs), mine.source, normalize_ws(mine.value),
                     boot.says.substr(0, boot.says.find(':'))),
         {service,
          profile,
          {fmt::format("tuned [{}] {} ({})", theirs->section, theirs->key, theirs->where),
           shown(*theirs)},
          {"tuner " + knob + " (" + mine.source + ")", mine.value},
          {"at boot", boot.says}},
         tuned_fix(t, *theirs, mine)});
  }
}

void check_networkmanager(const CheckInput& in, CheckReport& out) {
  if (!in.nm) {
    if (in.nm_skipped) skip(out, Rule::networkmanager_overrides, *in.nm_skipped);
    return;
  }
  Evidence service{"NetworkManager.service", unit_text(in.nm->service)};
  for (const NmConnection& c : in.nm->connections) {
    if (!c.autoconnect) continue;  // activated only by hand
    for (const auto& [knob, mine] : in.tuner_settings) {
      auto theirs = nm_value_for(c, knob, in.inventory);
      if (!theirs || !values_conflict(mine.value, *theirs)) continue;
      std::string unset;
      for (std::string_view p : split(theirs->key, ',')) unset += fmt::format(" {} ''", trim(p));
      out.findings.push_back(
          {Rule::networkmanager_overrides,
           Severity::warning,
           knob,
           fmt::format("NetworkManager connection '{}' sets {} ({}), tuner ({}) {}: "
                       "NetworkManager wins each time it activates the connection",
                       escape_controls(c.id), theirs->key, theirs->value, mine.source, mine.value),
           {service,
            {fmt::format("connection '{}' {} ({})", escape_controls(c.id), theirs->key,
                         theirs->where),
             theirs->value},
            {"tuner " + knob + " (" + mine.source + ")", mine.value},
            {"at boot", "NetworkManager: it activates the connection after tuner-restore.service "
                        "and applies its settings again on every reconnect"}},
           fmt::format("leave the setting to tuner: nmcli connection modify '{}'{} (an empty "
                       "value unsets it; mtu: 0); or give the connection tuner's value; or "
                       "leave it to NetworkManager and take it out of tuner's profile "
                       "(docs/coexistence.md)",
                       escape_controls(c.id), unset)});
    }
  }
}

}  // namespace tuner
