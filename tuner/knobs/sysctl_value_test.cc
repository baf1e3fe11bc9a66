#include "tuner/knobs/sysctl_value.h"

#include <doctest/doctest.h>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"

using namespace tuner;

namespace {

std::string why(std::string_view key, std::string_view now, std::string_view want) {
  Status s = check_sysctl_value(key, now, want);
  return s.ok() ? std::string() : s.error().what;
}

}  // namespace

TEST_CASE("sysctl values: a vector takes as many whole decimal numbers as it holds") {
  const char* rmem = "4096 131072 6291456";
  CHECK(why("net.ipv4.tcp_rmem", rmem, "4096 262144 16777216").empty());
  CHECK(why("net.ipv4.tcp_rmem", rmem, "4096 131072") ==
        "takes 3 numbers (now '4096 131072 6291456'), not 2");
  CHECK(why("net.ipv4.tcp_rmem", rmem, "1 2 3 4") ==
        "takes 3 numbers (now '4096 131072 6291456'), not 4");
  CHECK(why("net.core.somaxconn", "4096", "5000\n6000") == "takes 1 number (now '4096'), not 2");
  CHECK(why("net.core.somaxconn", "4096", "05000") ==
        "'05000': the kernel reads a number with a leading 0 as octal (05000 would be 2560); "
        "write it without the 0");
  CHECK(why("net.core.somaxconn", "4096", "09").find("not valid octal") != std::string::npos);
  CHECK(why("net.core.somaxconn", "4096", "0x10").find("hexadecimal") != std::string::npos);
  CHECK(why("net.core.somaxconn", "4096", "0").empty());
  CHECK(why("vm.unknown_key", "1", "99999999999999999999999").find("beyond 64 bits") !=
        std::string::npos);
  // Text where text is held is not this check's business.
  CHECK(why("net.ipv4.tcp_congestion_control", "cubic", "bbr").empty());
  CHECK(why("kernel.core_pattern", "core", "|/bin/false").empty());
}

TEST_CASE("sysctl values: the handler's range and order for the keys tuner knows") {
  CHECK(why("net.core.somaxconn", "4096", "-1") ==
        "'-1' is out of the kernel's range for it: 0 to 2147483647");
  CHECK_FALSE(why("net.core.somaxconn", "4096", "99999999999").empty());
  CHECK(why("net.core.somaxconn", "4096", "2147483647").empty());
  CHECK_FALSE(why("net.ipv4.tcp_rmem", "4096 131072 6291456", "0 131072 6291456").empty());
  CHECK_FALSE(why("vm.dirty_ratio", "20", "101").empty());
  CHECK(why("vm.dirty_bytes", "0", "99999999999").empty());  // unsigned long
  CHECK_FALSE(why("vm.swappiness", "60", "201").empty());
  CHECK(why("net.ipv4.ip_local_port_range", "32768 60999", "60000 1024") ==
        "'60000 1024' is a range: its first number must not exceed the second");
  CHECK(why("net.ipv4.ip_local_port_range", "32768 60999", "1024 65535").empty());
  CHECK_FALSE(why("net.ipv4.ip_local_port_range", "32768 60999", "0 65535").empty());
  // A key not in the table: 64 bits, either sign.
  CHECK(why("kernel.perf_event_paranoid", "2", "-1").empty());
}

TEST_CASE("sysctl knob: a congestion control must be available or loadable as a module") {
  testing::TempDir t;
  testing::write_file(t.path + "/proc/sys/net/ipv4/tcp_congestion_control", "cubic\n");
  testing::write_file(t.path + "/proc/sys/net/ipv4/tcp_available_congestion_control",
                      "reno cubic\n");
  testing::write_file(t.path + "/proc/sys/kernel/osrelease", "6.1.0-test-amd64\n");
  auto root = Root::open(t.path);
  REQUIRE(root.ok());
  KnobContext ctx{*root};
  auto k = make_knob("sysctl:net.ipv4.tcp_congestion_control", ctx);
  REQUIRE(k.ok());
  // No modules.dep: which modules exist is unknown, so nothing is refused.
  CHECK((*k)->canonical("bbr").ok());
  testing::write_file(t.path + "/lib/modules/6.1.0-test-amd64/modules.dep",
                      "kernel/net/ipv4/tcp_bbr.ko.xz:\n"
                      "kernel/net/ipv4/tcp_htcp.ko:\n"
                      "kernel/net/sched/sch_fq.ko.xz:\n");
  CHECK((*k)->canonical("bbr").ok());
  CHECK((*k)->canonical("htcp").ok());
  CHECK((*k)->canonical("reno").ok());
  auto no = (*k)->canonical("vegas");
  REQUIRE_FALSE(no.ok());
  CHECK(no.error().what ==
        "'vegas' is not one this kernel has or can load (bbr, cubic, htcp, reno)");
  CHECK_FALSE((*k)->canonical("fq").ok());  // a qdisc module is not a congestion control
}
