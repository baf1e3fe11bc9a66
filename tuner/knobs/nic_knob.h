// The shared part of the nic knobs (link, MTU, channels, rings, coalesce): netlink access and
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
  /// The netlink client: ctx.netlink, or one opened on first use (live root only).
  Result<Netlink*> netlink();
  const std::string& ifname() const { return id_.name; }
  /// A device's error said of this knob: "cannot set rings to '...': " + its text,
  /// with its errno and kind.
  Error nic_error(const std::string& what, const Error& e) const {
    return Error{e.kind, what + e.what, id_str_, e.err};
  }

  /// Notes whether the link is up: only a link that was up is waited for.
  void prepare() override;
  /// If the link was up, waits for it (ctx.link_timeout_ms on ctx.clock); an Error when
  /// it does not come back.
  Status settle(const std::string& value) override;
  std::string mismatch(const std::string& now, const std::string& want) override;

 private:
  /// Link state from LINKSTATE_GET, else /sys/class/net/IF/operstate.
  Result<bool> link_up();
  /// Polls link_up() until it is true or ctx.link_timeout_ms has passed.
  bool wait_link_up();

  std::unique_ptr<Netlink> own_netlink_;
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
