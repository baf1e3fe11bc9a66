#include "tuner/knobs/sysctl_netns.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "base/strings.h"
#include "tests/support/files.h"
#include "tests/support/netns.h"

namespace tuner {

namespace {

std::string proc_path(const std::string& key) {
  std::string path = "/proc/sys/" + key;
  for (std::size_t i = 10; i < path.size(); ++i)
    if (path[i] == '.') path[i] = '/';
  return path;
}

/// KEY in the namespace this runs in: "absent", or "ro"/"rw" and the value.
std::string observe(const std::string& key) {
  struct stat st {};
  if (::stat(proc_path(key).c_str(), &st) != 0) return "absent";
  return std::string(st.st_mode & S_IWUSR ? "rw " : "ro ") +
         normalize_ws(testing::slurp(proc_path(key)));
}

bool in_initial_netns() {
  char self[64] = {}, init[64] = {};
  return ::readlink("/proc/self/ns/net", self, sizeof self - 1) > 0 &&
         ::readlink("/proc/1/ns/net", init, sizeof init - 1) > 0 && std::string(self) == init;
}

}  // namespace

TEST_CASE("sysctl netns: what a new network namespace has for each kind of net.* key") {
  // Per namespace at the kernel's default: what inference and throughput set.
  for (const char* key :
       {"net.core.somaxconn", "net.ipv4.tcp_notsent_lowat", "net.ipv4.tcp_slow_start_after_idle",
        "net.ipv4.tcp_mtu_probing", "net.ipv4.ip_local_port_range", "net.unix.max_dgram_qlen",
        "net.ipv6.conf.all.forwarding", "net.ipv4.route.min_pmtu", "net.core.xfrm_acq_expires"})
    CHECK_MESSAGE(new_netns_gets(key) == NewNetns::kernel_default, key);
  // Copied from the initial namespace when one is created.
  for (const char* key :
       {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.ipv4.tcp_congestion_control",
        "net.ipv4.conf.all.rp_filter", "net.ipv4.conf.default.forwarding"})
    CHECK_MESSAGE(new_netns_gets(key) == NewNetns::copied, key);
  // The machine's, one value for every namespace.
  for (const char* key : {"net.core.rmem_max", "net.core.netdev_max_backlog", "net.core.busy_poll",
                          "net.core.optmem_max", "net.ipv4.tcp_mem", "net.ipv4.route.gc_timeout",
                          "net.ipv4.neigh.default.gc_thresh3", "net.nf_conntrack_max",
                          "net.netfilter.nf_conntrack_max"})
    CHECK_MESSAGE(new_netns_gets(key) == NewNetns::shared, key);
  // An interface's.
  for (const char* key : {"net.ipv4.conf.eth0.rp_filter", "net.ipv6.conf.eth0.accept_ra",
                          "net.ipv4.neigh.eth0.gc_stale_time"})
    CHECK_MESSAGE(new_netns_gets(key) == NewNetns::interface, key);
  CHECK_FALSE(new_netns_gets("vm.swappiness"));
  CHECK_FALSE(new_netns_gets("kernel.numa_balancing"));
  CHECK_FALSE(new_netns_gets("netx.core.somaxconn"));
}

TEST_CASE("sysctl netns live: a fresh network namespace has what the table says") {
  // Read-only on the host: the host's values are read here, a child unshares a network
  // namespace and reports what it has there. A key the table says starts at the
  // kernel's default must be writable there and at that default (which the host's value
  // need not be); a copied key must equal the initial namespace's; a shared key must be
  // absent or read-only there.
  if (std::string why = testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  // The kernel's defaults (Documentation/networking/ip-sysctl.rst, admin-guide/sysctl/
  // net.rst; SOMAXCONN is 4096 since Linux 5.4).
  const std::vector<std::pair<std::string, std::string>> defaults = {
      {"net.core.somaxconn", "4096"},
      {"net.ipv4.tcp_notsent_lowat", "4294967295"},
      {"net.ipv4.tcp_slow_start_after_idle", "1"},
      {"net.ipv4.tcp_mtu_probing", "0"}};
  const std::vector<std::string> copied = {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
                                           "net.ipv4.tcp_congestion_control"};
  const std::vector<std::string> shared = {"net.core.rmem_max", "net.core.wmem_max",
                                           "net.core.netdev_max_backlog", "net.core.busy_poll",
                                           "net.ipv4.tcp_mem"};
  testing::Report host;
  for (const auto& [key, value] : defaults) host[key] = observe(key);
  for (const std::string& key : copied) host[key] = observe(key);
  testing::Report fresh = testing::run_in_netns([&] {
    testing::Report r;
    for (const auto& [key, value] : defaults) r[key] = observe(key);
    for (const std::string& key : copied) r[key] = observe(key);
    for (const std::string& key : shared) r[key] = observe(key);
    return r;
  });
  if (auto skip = fresh.find("skip"); skip != fresh.end()) {
    MESSAGE("skipped: " << skip->second);
    return;
  }
  REQUIRE_MESSAGE(!fresh.contains("error"), fresh["error"]);
  for (const auto& kv : defaults) {
    const std::string& key = kv.first;  // CAPTURE cannot take a structured binding (clang 14)
    CAPTURE(key);
    CAPTURE(host[key]);
    REQUIRE(new_netns_gets(key) == NewNetns::kernel_default);
    CHECK(fresh[key] == "rw " + kv.second);
  }
  for (const std::string& key : copied) {
    CAPTURE(key);
    REQUIRE(new_netns_gets(key) == NewNetns::copied);
    CHECK(starts_with(fresh[key], "rw "));
    // Copied from init_net, so only a test in the initial namespace can compare.
    if (in_initial_netns()) CHECK(fresh[key] == host[key]);
  }
  for (const std::string& key : shared) {
    CAPTURE(key);
    REQUIRE(new_netns_gets(key) == NewNetns::shared);
    CHECK((fresh[key] == "absent" || starts_with(fresh[key], "ro ")));
  }
  MESSAGE("host: somaxconn " << host["net.core.somaxconn"] << ", tcp_rmem "
                             << host["net.ipv4.tcp_rmem"] << "; fresh namespace: somaxconn "
                             << fresh["net.core.somaxconn"]);
}

}  // namespace tuner
