// Knob: one setting tuner can read and write, named by a stable id (DESIGN.md "Knobs").
// A knob is rebuilt from its id alone, so rollback needs nothing but the journal.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "probes/netlink.h"
#include "probes/root.h"

namespace tuner {

/// What knobs need from the machine. Only a live root may be written.
struct KnobContext {
  Root root;                       // reads and writes go through it
  Netlink* netlink = nullptr;      // ethtool netlink, opened lazily by the caller
  std::string systemd_dir = "/etc/systemd/system";  // numa:unit drop-ins
  std::string cgroup_root = "/sys/fs/cgroup";        // numa:cgroup paths are below it
  unsigned link_timeout_ms = 10000;  // wait for a link to come back after a change
};

class Knob {
 public:
  virtual ~Knob() = default;
  /// The stable id: "sysctl:net.core.rmem_max", "irq:57:affinity", ...
  virtual const std::string& id() const = 0;
  /// Current value in canonical text ("absent"/"none" forms as the kind defines).
  virtual Result<std::string> read() = 0;
  /// Canonical form of a desired value, or an Error saying why it is impossible.
  virtual Result<std::string> canonical(const std::string& desired) = 0;
  /// Writes value, reads back and compares; an Error names the knob and errno text.
  virtual Status write(const std::string& value) = 0;
};

/// Rebuilds a knob from its id. Validates every part of the id (sysctl key syntax,
/// IRQ number, interface name, unit name, cgroup path) before touching anything.
Result<std::unique_ptr<Knob>> make_knob(const std::string& id, KnobContext& ctx);

// Per-kind factories (tuner/knobs/<kind>.cc); make_knob dispatches on the prefix.
Result<std::unique_ptr<Knob>> make_sysctl_knob(const std::string& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_irq_knob(const std::string& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_nic_knob(const std::string& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_numa_knob(const std::string& id, KnobContext& ctx);
Result<std::unique_ptr<Knob>> make_irqbalance_knob(const std::string& id, KnobContext& ctx);

}  // namespace tuner
