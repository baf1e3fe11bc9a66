#include "probes/ifname.h"

#include <doctest/doctest.h>

#include <string>

namespace tuner {

TEST_CASE("ifname: the kernel's names, less control characters") {
  // Names the kernel makes or accepts: predictable names, VLANs, veths, bridges,
  // WireGuard, a '+' (dev_valid_name allows it), the longest IFNAMSIZ allows.
  for (const char* good : {"eth0", "enp59s0f1np1", "eth0.100", "veth@x_1", "br-lan", "wg+x",
                           "abcdefghijklmno", "ib0"}) {
    CAPTURE(good);
    CHECK(validate_ifname(good).ok());
  }
  struct Bad {
    std::string name;
    const char* says;
  };
  for (const Bad& b :
       {Bad{"", "empty interface name"},
        Bad{"abcdefghijklmnop", "interface name 'abcdefghijklmnop' is longer "
                                "than 15 bytes"},
        Bad{".", "'.' is not an interface name"}, Bad{"..", "'..' is not an interface name"},
        Bad{"../x", "has '/'"}, Bad{"eth0:1", "has ':'"}, Bad{"eth 0", "has a space"},
        Bad{"eth\t0", "has a control character"}, Bad{"eth0\n", "has a control character"},
        Bad{std::string("eth\0x", 5), "has a control character"},
        Bad{"\x1b[2Jx", "interface name '\\x1b[2Jx' has a control"}}) {
    CAPTURE(b.name);
    Status s = validate_ifname(b.name);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().is(ErrorKind::invalid));
    CHECK(s.error().where.empty());  // callers say where
    CHECK(s.error().what.find(b.says) != std::string::npos);
  }
}

}  // namespace tuner
