// The shared part of the nic knobs (link, MTU, channels, rings, coalesce): ethtool access and
// the wait for a link to come back. Knob::write does the rest: set, wait, read back, and
// put the before value back when anything is off, because a driver is never trusted.
#pragma once

#include <memory>
#include <string>

#include "tuner/knobs/knob.h"

namespace tuner {

class NicKnob : public MachineKnob {
 public:
  NicKnob(KnobId id, KnobContext& ctx) : MachineKnob(std::move(id), ctx) {}

 protected:
  /// The ethtool backend: ctx.ethtool, or one opened on first use and kept in ctx (live
  /// root only). Only the knobs that need ethtool call it.
  Result<Ethtool*> ethtool();
  const std::string& ifname() const { return id_.name; }
  /// A device's error said of this knob: "cannot set rings to '...': " + its text,
  /// with its errno and kind.
  Error nic_error(const std::string& what, const Error& e) const {
    return Error{e.kind, what + e.what, id_str_, e.err};
  }
  /// A SET's error, as nic_error; EOPNOTSUPP (the driver cannot change it, through
  /// either backend) is a refusal: nothing changed, and apply skips the change and goes
  /// on with the rest of the run (rollback/apply.h), as for an MTU the driver refuses.
  Error nic_set_error(const std::string& what, const Error& e) const {
    Error out = nic_error(what, e);
    if (e.err == EOPNOTSUPP) out.kind = ErrorKind::refused;
    return out;
  }

  /// Notes whether the link is up: only a link that was up is waited for.
  void prepare() override;
  /// If the link was up, waits for it (ctx.link_timeout_ms on ctx.clock); an Error when
  /// it does not come back.
  Status settle(const std::string& value) override;
  std::string mismatch(const std::string& now, const std::string& want) override;

 private:
  /// /sys/class/net/IF/operstate; where that is "unknown", the link state ethtool
  /// reports if a backend is open already (never opened for it: the MTU knob has none).
  Result<bool> link_up();
  /// Polls link_up() until it is true or ctx.link_timeout_ms has passed.
  bool wait_link_up();

  bool was_up_ = false;
};

/// The netdev's own directory under sys/devices: sys/class/net/IF is a symlink, and
/// knob files are opened without following any (knob_files.h). A plain directory
/// (kernels before 2.6.26, some captures) is used as it is.
std::string netdev_dir(const Root& root, const std::string& ifname);

/// "10 s", "1.5 s", "50 ms": how long a timeout of ms milliseconds is.
std::string format_timeout(unsigned ms);

std::unique_ptr<Knob> make_nic_link_knob(const KnobId& id, KnobContext& ctx);
std::unique_ptr<Knob> make_nic_mtu_knob(const KnobId& id, KnobContext& ctx);
std::unique_ptr<Knob> make_nic_channels_knob(const KnobId& id, KnobContext& ctx);
std::unique_ptr<Knob> make_nic_rings_knob(const KnobId& id, KnobContext& ctx);
std::unique_ptr<Knob> make_nic_coalesce_knob(const KnobId& id, KnobContext& ctx);
/// nic:IF:rfs:rx-N on `file`, the queue's rps_flow_cnt (make_nic_queue_knob checked the
/// interface, the queue and the file).
std::unique_ptr<Knob> make_nic_rfs_knob(const KnobId& id, KnobContext& ctx, std::string file);

}  // namespace tuner
