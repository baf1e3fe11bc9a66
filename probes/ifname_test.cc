#include "probes/ifname.h"

#include <doctest/doctest.h>

#include <string>

namespace tuner {

TEST_CASE("ifname: the kernel's rule for requests, printable ASCII for what tuner names") {
  // Names the kernel makes or accepts: predictable names, VLANs, veths, bridges, a '+'
  // (dev_valid_name allows it), the longest IFNAMSIZ allows.
  for (const char* good : {"eth0", "enp59s0f1np1", "eth0.100", "veth@x_1", "br-lan", "wg+x",
                           "abcdefghijklmno", "ib0"}) {
    CAPTURE(good);
    CHECK(validate_ifname(good).ok());
    CHECK(validate_ifname(good, IfnameRule::kernel).ok());
  }
  struct Bad {
    std::string name;
    const char* says;
  };
  // Refused by both rules.
  for (const Bad& b :
       {Bad{"", "empty interface name"},
        Bad{"abcdefghijklmnop", "interface name 'abcdefghijklmnop' is longer "
                                "than 15 bytes"},
        Bad{".", "'.' is not an interface name"}, Bad{"..", "'..' is not an interface name"},
        Bad{"../x", "has '/'"}, Bad{"eth0:1", "has ':'"}, Bad{"eth 0", "has whitespace"},
        Bad{"eth\t0", "has whitespace"}, Bad{"eth0\n", "has whitespace"},
        Bad{std::string("eth\0x", 5), "has a NUL byte"}}) {
    CAPTURE(b.name);
    for (IfnameRule rule : {IfnameRule::kernel, IfnameRule::id}) {
      Status s = validate_ifname(b.name, rule);
      REQUIRE_FALSE(s.ok());
      CHECK(s.error().is(ErrorKind::invalid));
      CHECK(s.error().where.empty());  // callers say where
      CHECK(s.error().what.find(b.says) != std::string::npos);
    }
  }
  // The kernel has such NICs (tests/integration/odd_ifname_test.sh makes them): the
  // probes read them, tuner names them in no id.
  for (const Bad& b :
       {Bad{"ve\xff\x1bx", "interface name 've\\xff\\x1bx' has a byte outside ASCII"},
        Bad{"vp\xfe", "has a byte outside ASCII"}}) {
    CAPTURE(b.name);
    CHECK(validate_ifname(b.name, IfnameRule::kernel).ok());
    Status s = validate_ifname(b.name);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().what.find(b.says) != std::string::npos);
  }
}

}  // namespace tuner
