// What tuned and NetworkManager set that tuner keeps or is about to set: the inputs of
// the tuned.overrides and networkmanager.overrides rules (coexist_rules.cc), and how a
// tuned option or a NetworkManager property maps onto a tuner knob id and its value
// (coexist_map.cc). tuner/check/README.md has the rules; docs/coexistence.md the ways
// to run tuner beside both.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "probes/inventory.h"
#include "probes/nm_keyfile.h"
#include "probes/services.h"
#include "probes/tuned.h"

namespace tuner {

/// A value tuner keeps (state.json) or the plan of the profile in effect writes.
struct TunerSetting {
  std::string value;
  std::string source;  // "kept by run 20240501T120000Z-1a2b", "planned by profile 'hpc'"
};

/// A daemon's unit and process.
struct ServiceState {
  UnitEnablement unit;
  std::optional<bool> running;  // nullopt: a capture without processes
};

struct TunedCheck {
  ServiceState service;
  UnitEnablement after_tuned;       // tuner-after-tuned.service: restore again after tuned
  std::optional<std::string> mode;  // etc/tuned/profile_mode
  TunedProfile profile;
};

struct NmCheck {
  ServiceState service;
  std::vector<NmConnection> connections;
};

/// What another daemon sets for one tuner knob.
struct ForeignValue {
  std::string value;      // in tuner's form where it maps ("rx=1024"), else as written
  std::string section;    // tuned's unit ("sysctl", "my_net"); empty for NetworkManager
  std::string key;        // "vm.swappiness"; NetworkManager's properties: "ethtool.ring-rx"
  std::string where;      // "usr/lib/tuned/NAME/tuned.conf:12"
  bool computed = false;  // tuned computes it when it applies it (${...})
  /// tuned's '>' / '<' assignment modifiers: it writes the value only when it is above
  /// (below) what it reads then.
  char modifier = 0;
};

/// What tuned's merged profile sets for `knob_id` on this machine (its unit's type,
/// devices and options), nullopt when nothing. `inv` gives the CPUs of a cpufreq policy.
std::optional<ForeignValue> tuned_value_for(const TunedProfile& profile, const std::string& knob_id,
                                            const Inventory& inv);

/// What `c` sets for `knob_id` (a nic:IF:* knob) when it applies to IF (by
/// interface-name or by the MAC address `inv` shows for IF), nullopt when nothing.
std::optional<ForeignValue> nm_value_for(const NmConnection& c, const std::string& knob_id,
                                         const Inventory& inv);

/// Whether tuner's value and the other's disagree: whole values with runs of blanks as
/// one, or, for "key=value,..." values, any key both set; a tuned modifier compares as
/// tuned applies it (">N" is no conflict when tuner's number is at least N).
bool values_conflict(const std::string& tuner_value, const ForeignValue& other);

}  // namespace tuner
