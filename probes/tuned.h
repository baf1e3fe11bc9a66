// tuned: the daemon RHEL-family systems enable by default, whose profile sets sysctls,
// the CPU governor and EPP, THP and NIC rings at every start. This reads what it will
// apply, as tuned 2.20 does (tuned/profiles/loader.py, locator.py, merger.py, unit.py):
// etc/tuned/active_profile (+ post_loaded_profile), each profile's tuned.conf found in
// etc/tuned[/profiles]/NAME before usr/lib/tuned[/profiles]/NAME (the profiles/ folders
// are tuned 2.23's), `include=` chains with later files overriding earlier ones, and a
// unit's `replace=`, `drop=`, `enabled=`, `type=` and `devices=`. Values tuned computes
// (`${f:...}`, `${var}` from [variables]) are kept as written and marked, not
// evaluated. Every file goes through the Root's bounded reader.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/root.h"

namespace tuner {

/// A tuned.conf as Python's ConfigParser reads it for tuned: sections in order, each
/// option with its value and line ('=' only; '#' and ';' comment lines, " #" inline
/// comments; indented lines continue a value; a repeated option or section: later wins).
struct TunedConf {
  struct Option {
    std::string key, value;
    int line = 0;
  };
  struct Section {
    std::string name;
    std::vector<Option> options;
  };
  std::vector<Section> sections;
};

/// Parses tuned.conf text; `file` names it in errors ("file:line").
Result<TunedConf> parse_tuned_conf(std::string_view text, const std::string& file);

/// One option of a profile's unit, after includes were merged.
struct TunedOption {
  std::string key, value;
  std::string where;  // "usr/lib/tuned/throughput-performance/tuned.conf:12"
};

/// A unit (a section other than [main]) as tuned will run it.
struct TunedUnit {
  std::string name;           // the section's name
  std::string type;           // the plugin: type=, else the name
  bool enabled = true;        // enabled=
  std::string devices = "*";  // devices=: comma-separated globs, '!' negates
  /// uname_regex=, cpuinfo_regex=, devices_udev_regex= as written ("uname_regex=aarch64"):
  /// tuned runs the unit only where they match, which this does not evaluate (Python
  /// regular expressions against uname, /proc/cpuinfo and udev). Empty: unconditional.
  std::string condition;
  std::vector<TunedOption> options;
};

/// The profile tuned applies: what active_profile names, merged.
struct TunedProfile {
  std::vector<std::string> names;  // active_profile's names, then post_loaded_profile's
  std::vector<std::string> files;  // every tuned.conf read, in the order merged
  std::vector<TunedUnit> units;    // in the order first seen; [variables] left out
  /// Includes tuned computes at load time ("${f:virt_check:...}"): not followed.
  std::vector<std::string> computed_includes;
};

/// Whether `value` holds something tuned computes when it applies it (${...} other
/// than ${i:PROFILE_DIR}, which the loader replaces).
bool tuned_computed(std::string_view value);

/// Whether tuned's `devices` selection takes `device` ("eth0", "cpu3"): any positive
/// glob matches and no '!' glob does; a list of only '!' globs takes all the others.
bool tuned_devices_match(std::string_view devices, std::string_view device);

/// Loads and merges `names` as tuned's loader does. An error when a profile is not
/// found (tuned refuses it too), a file cannot be read or parsed, or the includes run
/// deeper or wider than any real profile (a loop is cut as tuned cuts it).
Result<TunedProfile> load_tuned_profile(const Root& root, const std::vector<std::string>& names);

/// The names in etc/tuned/active_profile and post_loaded_profile, in that order (empty
/// when neither file exists); etc/tuned/profile_mode ("auto", "manual") if present.
struct TunedActive {
  std::vector<std::string> names;
  std::optional<std::string> mode;
};
Result<TunedActive> read_tuned_active(const Root& root);

}  // namespace tuner
