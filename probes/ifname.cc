#include "probes/ifname.h"

#include <net/if.h>

#include <string>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {

namespace {

bool kernel_whitespace(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

}  // namespace

Status validate_ifname(std::string_view ifname, IfnameRule rule) {
  if (ifname.empty()) return Error::invalid("empty interface name");
  std::string shown = escape_controls(std::string(ifname));
  if (ifname.size() >= IFNAMSIZ)
    return Error::invalid(
        fmt::format("interface name '{}' is longer than {} bytes", shown, IFNAMSIZ - 1));
  if (ifname == "." || ifname == "..")
    return Error::invalid("'" + shown + "' is not an interface name");
  for (char c : ifname) {
    auto u = static_cast<unsigned char>(c);
    const char* has = c == '/'                     ? "'/'"
                      : c == ':'                   ? "':'"
                      : c == '\0'                  ? "a NUL byte"
                      : kernel_whitespace(u)       ? "whitespace"
                      : rule == IfnameRule::kernel ? nullptr
                      : u < 0x20 || u == 0x7f      ? "a control character"
                      : u >= 0x80                  ? "a byte outside ASCII"
                                                   : nullptr;
    if (has)
      return Error::invalid(fmt::format(
          "interface name '{}' has {}: {}", shown, has,
          rule == IfnameRule::kernel
              ? "the kernel's names hold no '/', ':', NUL or whitespace"
              : "tuner names only interfaces of printable ASCII without '/', ':' or space"));
  }
  return Ok{};
}

}  // namespace tuner
