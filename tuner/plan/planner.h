// Planner: Profile x Inventory -> Plan. Deterministic; no-ops dropped; changes nothing.
#pragma once

#include <string>

#include "base/result.h"
#include "probes/inventory.h"
#include "tuner/knobs/knob.h"
#include "tuner/plan/plan.h"
#include "tuner/plan/target.h"
#include "tuner/profile/profile.h"

namespace tuner {

/// Works out the changes profile asks of the machine inventory describes. Current
/// values of sysctls and other knobs are read by the knobs through target.root when
/// the target is the live machine or a captured root (never for an XML topology:
/// current is null).
/// Impossible requests (cpulists beyond the machine, speeds no mode supports, sysctl
/// keys that do not exist) are an Error whose `where` is the profile's file:line:col.
/// A searched [cpu] resume_latency_us is first fitted to the node's idle states
/// (Inventory::cpuidle): the plan's searches hold the candidates left, its notes why.
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

  /// From a knob's answer: a value is known; an Error of kind missing is missing; any
  /// other Error (a capture without proc/sys, a file that cannot be read) is unknown.
  static CurrentValue from(const Result<std::string>& read, const std::string& knob_id);
};

/// Where the planner reads current values that are not in the Inventory: sysctls,
/// NUMA bindings (numa:unit, numa:cgroup), the irqbalance ban list, cpufreq governors
/// and energy preferences, resume latencies and THP modes. IRQ affinities, NIC settings
/// and whether irqbalance runs come from the Inventory. Tests substitute their own to
/// re-plan against a desired state.
class CurrentValues {
 public:
  virtual ~CurrentValues() = default;
  /// False for an XML topology: nothing can be read, every current value is null and
  /// existence is not checked.
  virtual bool readable() const = 0;
  /// True for the machine we run on: ethtool data is authoritative there, so a NIC
  /// reporting no channels or rings does not support them.
  virtual bool live() const = 0;
  virtual CurrentValue get(const KnobId& knob) const = 0;
  /// The knob's canonical form of desired, checked against what this machine offers (a
  /// governor its policy lists, a THP mode its kernel has); an Error says why it cannot
  /// be. Asked only when get() knows the current value. This default takes desired as
  /// it is.
  virtual Result<std::string> canonical(const KnobId& /*knob*/, const std::string& desired) const {
    return desired;
  }
};

/// Asks the knobs: make_knob(id, ctx)->read() is the one definition of every value
/// (STYLE.md 11), so a plan made after an apply sees exactly what the knobs wrote.
class KnobCurrentValues : public CurrentValues {
 public:
  KnobCurrentValues(KnobContext ctx, bool readable, bool live)
      : ctx_(std::move(ctx)), readable_(readable), live_(live) {}
  bool readable() const override { return readable_; }
  bool live() const override { return live_; }
  CurrentValue get(const KnobId& knob) const override;
  Result<std::string> canonical(const KnobId& knob, const std::string& desired) const override;

 private:
  mutable KnobContext ctx_;  // knobs take it by reference; reading changes nothing
  bool readable_, live_;
};

/// The knobs of a target: its root (live or captured) with the default paths.
class RootCurrentValues : public KnobCurrentValues {
 public:
  explicit RootCurrentValues(const Target& target)
      : KnobCurrentValues(KnobContext{target.root}, !target.topology_xml, target.writable()) {}
};

/// The plan's order, which is the order apply writes in: by group, then knob kind
/// (sysctl, irq, nic, numa, irqbalance, cpu governor, cpu epp, cpu resume latency, mm),
/// then id with numbers compared as numbers.
void order_changes(std::vector<Change>& changes);

/// make_plan with the current-value source made explicit.
Result<Plan> make_plan_with(const Profile& written, const Inventory& inventory,
                            const CurrentValues& current);

}  // namespace tuner
