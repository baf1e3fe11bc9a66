#include "probes/ethtool.h"

#include <cstdlib>
#include <string_view>

#include "probes/ethtool_ioctl.h"
#include "probes/netlink.h"

namespace tuner {

Result<EthtoolChoice> ethtool_choice_from_env() {
  const char* v = std::getenv("TUNER_ETHTOOL_BACKEND");
  std::string_view s = v ? v : "";
  if (s.empty() || s == "auto") return EthtoolChoice::automatic;
  if (auto b = parse_ethtool_backend(s))
    return *b == EthtoolBackend::netlink ? EthtoolChoice::netlink : EthtoolChoice::ioctl;
  return Error::invalid("'" + std::string(s) + "' is not a backend (auto, netlink or ioctl)",
                        "TUNER_ETHTOOL_BACKEND");
}

Result<std::unique_ptr<Ethtool>> open_ethtool(EthtoolChoice choice) {
  if (choice == EthtoolChoice::ioctl) return open_ethtool_ioctl();
  auto nl = open_ethtool_netlink();
  if (nl.ok() || choice == EthtoolChoice::netlink) return nl;
  // No family (CONFIG_ETHTOOL_NETLINK=n, a kernel before 5.6): the ioctl does it all.
  return open_ethtool_ioctl();
}

Result<std::unique_ptr<Ethtool>> open_ethtool() {
  auto choice = ethtool_choice_from_env();
  if (!choice) return choice.error();
  return open_ethtool(*choice);
}

}  // namespace tuner
