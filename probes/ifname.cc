#include "probes/ifname.h"

#include <net/if.h>

#include <string>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {

Status validate_ifname(std::string_view ifname) {
  if (ifname.empty()) return Error::invalid("empty interface name");
  std::string shown = escape_controls(std::string(ifname));
  if (ifname.size() >= IFNAMSIZ)
    return Error::invalid(
        fmt::format("interface name '{}' is longer than {} bytes", shown, IFNAMSIZ - 1));
  if (ifname == "." || ifname == "..")
    return Error::invalid("'" + shown + "' is not an interface name");
  for (char c : ifname) {
    auto u = static_cast<unsigned char>(c);
    if (c == '/' || c == ':' || c == ' ' || u < 0x20 || u == 0x7f)
      return Error::invalid(fmt::format(
          "interface name '{}' has {}: the kernel's names hold no '/', ':', space or control "
          "character",
          shown,
          c == '/'   ? "'/'"
          : c == ':' ? "':'"
          : c == ' ' ? "a space"
                     : "a control character"));
  }
  return Ok{};
}

}  // namespace tuner
