#include "probes/drvinfo.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "base/unique_fd.h"
#include "probes/ifname.h"

namespace tuner {

namespace {

/// A fixed-size, NUL-padded kernel string; empty or "N/A" mean the driver did not say.
std::optional<std::string> field(const char* s, std::size_t n) {
  std::string v(s, strnlen(s, n));
  if (v.empty() || v == "N/A") return std::nullopt;
  return v;
}

}  // namespace

Result<DrvInfo> read_drvinfo(const std::string& ifname) {
  if (Status ok = validate_ifname(ifname, IfnameRule::kernel); !ok)
    return ok.error().context(ifname);
  UniqueFd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!sock) return errno_error("socket(AF_INET) for ETHTOOL_GDRVINFO", ifname, errno);
  ethtool_drvinfo info{};
  info.cmd = ETHTOOL_GDRVINFO;
  ifreq req{};
  std::memcpy(req.ifr_name, ifname.data(), ifname.size());
  req.ifr_data = reinterpret_cast<char*>(&info);
  if (::ioctl(sock.get(), SIOCETHTOOL, &req) != 0)
    return errno_error("ETHTOOL_GDRVINFO", ifname, errno);
  DrvInfo out;
  out.driver = field(info.driver, sizeof info.driver).value_or("");
  out.version = field(info.version, sizeof info.version);
  out.firmware_version = field(info.fw_version, sizeof info.fw_version);
  out.bus_info = field(info.bus_info, sizeof info.bus_info);
  return out;
}

}  // namespace tuner
