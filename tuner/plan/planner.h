// Planner: Profile x Inventory -> Plan. Deterministic; no-ops dropped; changes nothing.
#pragma once

#include <string>

#include "base/result.h"
#include "probes/inventory.h"
#include "tuner/plan/plan.h"
#include "tuner/profile/profile.h"
#include "tuner/plan/target.h"

namespace tuner {

/// Works out the changes profile asks of the machine inventory describes. Current
/// values of sysctls and other knobs are read through target.root when the target is
/// the live machine or a captured root (never for an XML topology: current is null).
/// Impossible requests (cpulists beyond the machine, speeds no mode supports, sysctl
/// keys that do not exist) are an Error whose `where` is the profile's file:line:col.
Result<Plan> make_plan(const Profile& profile, const Inventory& inventory, const Target& target);

/// The current value of a knob the Inventory does not carry.
struct CurrentValue {
  enum class State {
    known,    // value holds it
    unknown,  // could not be read (why says so): the change is listed with current null
    missing,  // the thing does not exist (no such sysctl key or cgroup): an Error
  };
  State state = State::unknown;
  std::string value;
  std::string why;
};

/// Where the planner reads current values that are not in the Inventory: sysctls
/// ("sysctl:KEY"), NUMA bindings ("numa:unit:NAME", "numa:cgroup:PATH") and the
/// irqbalance ban list ("irqbalance:banned"). IRQ affinities and NIC settings come
/// from the Inventory. Tests substitute their own to re-plan against a desired state.
class CurrentValues {
 public:
  virtual ~CurrentValues() = default;
  /// False for an XML topology: nothing can be read, every current value is null and
  /// existence is not checked.
  virtual bool readable() const = 0;
  /// True for the machine we run on: ethtool data is authoritative there, so a NIC
  /// reporting no channels or rings does not support them.
  virtual bool live() const = 0;
  virtual CurrentValue get(const std::string& knob_id) const = 0;
};

/// Reads current values through a target's root.
class RootCurrentValues : public CurrentValues {
 public:
  explicit RootCurrentValues(const Target& target) : target_(target) {}
  bool readable() const override { return !target_.topology_xml; }
  bool live() const override { return target_.writable(); }
  CurrentValue get(const std::string& knob_id) const override;

 private:
  const Target& target_;
};

/// make_plan with the current-value source made explicit.
Result<Plan> make_plan_with(const Profile& profile, const Inventory& inventory,
                            const CurrentValues& current);

}  // namespace tuner
