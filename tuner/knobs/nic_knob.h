// The shared part of the nic knobs (link, channels, rings): netlink access, the wait
// for a link to come back, and a write that never trusts the driver: set, wait, read
// back, and put the before value back when anything is off.
#pragma once

#include <memory>
#include <string>

#include "tuner/knobs/knob.h"

namespace tuner {

class NicKnob : public Knob {
 public:
  NicKnob(std::string id, std::string ifname, KnobContext& ctx);
  const std::string& id() const override { return id_; }
  /// canonical(value); set it; if the link was up, wait for it (ctx.link_timeout_ms);
  /// read back. On a timeout or a read-back mismatch the before value is written back
  /// and the Error says so ("...; reverted").
  Status write(const std::string& value) override;

 protected:
  /// The netlink client: ctx.netlink, or one opened on first use (live root only).
  Result<Netlink*> netlink();
  /// Sends a canonical value to the kernel (no waiting, no read-back).
  virtual Status apply(const std::string& canonical_value) = 0;

  /// Link state from LINKSTATE_GET, else /sys/class/net/IF/operstate.
  Result<bool> link_up();
  /// Polls link_up() until it is true or ctx.link_timeout_ms has passed.
  bool wait_link_up();

  std::string id_;
  std::string ifname_;
  KnobContext& ctx_;

 private:
  std::unique_ptr<Netlink> own_netlink_;
};

/// "10 s", "1.5 s", "50 ms": how long a timeout of ms milliseconds is.
std::string format_timeout(unsigned ms);

std::unique_ptr<Knob> make_nic_link_knob(std::string id, std::string ifname, KnobContext& ctx);
std::unique_ptr<Knob> make_nic_channels_knob(std::string id, std::string ifname,
                                             KnobContext& ctx);
std::unique_ptr<Knob> make_nic_rings_knob(std::string id, std::string ifname, KnobContext& ctx);

}  // namespace tuner
