// Root-only: the tcp benchmark across a veth pair between two network namespaces this
// test creates, and the sysctls it exists to measure. Nothing of the host is touched:
// each case runs in a forked child inside a private network and mount namespace.
#include <unistd.h>

#include <string>

#include <doctest/doctest.h>

#include "base/runner.h"
#include "probes/bench/guards.h"
#include "probes/bench/tcp.h"
#include "probes/bench/tcp_buffers.h"
#include "probes/bench/veth_pair_test.h"
#include "tests/support/files.h"
#include "tests/support/netns.h"

using namespace tuner;
using namespace tuner::bench;
using namespace std::chrono_literals;
using tuner::testing::Report;

TEST_CASE("tcp bench (root): server in a named netns across a veth pair") {
  if (std::string why = tuner::testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  Report r = tuner::testing::run_in_netns([]() -> Report {
    tuner::testing::VethPair pair("tcp");
    if (!pair.error.empty()) return {{"skip", pair.error}};
    TcpConfig c;
    c.placement = TcpConfig::Placement::netns;
    c.netns = pair.netns;
    c.address = pair.peer_address;
    c.duration = 500ms;
    c.rr_duration = 300ms;
    c.streams = 2;
    TcpBenchmark b(c);
    Status ok = b.check();
    if (!ok.ok()) return {{"error", ok.error().message()}};
    auto m = b.measure();
    if (!m.ok()) return {{"error", m.error().message()}};
    // The same address is not reachable from inside the server's own namespace view of
    // the loopback: prove the traffic crossed the pair by its counters.
    return {{"bps", std::to_string(m->throughput_bps)},
            {"p50", std::to_string(m->rr_p50_us)},
            {"p99", std::to_string(m->rr_p99_us)},
            {"veth_rx_bytes",
             tuner::testing::slurp("/sys/class/net/" + pair.local_if + "/statistics/rx_bytes")},
            {"veth_tx_bytes",
             tuner::testing::slurp("/sys/class/net/" + pair.local_if + "/statistics/tx_bytes")},
            {"bytes", std::to_string(m->bytes)}};
  });
  if (r.contains("skip")) {
    MESSAGE("skipped: " << r["skip"]);
    return;
  }
  REQUIRE_MESSAGE(!r.contains("error"), r["error"]);
  CHECK(std::stod(r["bps"]) > 1e8);
  CHECK(std::stod(r["p50"]) > 0);
  CHECK(std::stod(r["p99"]) >= std::stod(r["p50"]));
  // The client's side of the pair sent at least what the server counted.
  CHECK(std::stod(r["veth_tx_bytes"]) >= std::stod(r["bytes"]));
  MESSAGE("veth: " << std::stod(r["bps"]) / 1e9 << " Gbit/s, rr p50 " << r["p50"] << " us");
}

TEST_CASE("tcp bench (root): direction in across a veth pair loads the client's receive side") {
  if (std::string why = tuner::testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  Report r = tuner::testing::run_in_netns([]() -> Report {
    tuner::testing::VethPair pair("tcpin");
    if (!pair.error.empty()) return {{"skip", pair.error}};
    TcpConfig c;
    c.placement = TcpConfig::Placement::netns;
    c.netns = pair.netns;
    c.address = pair.peer_address;
    c.direction = StreamDirection::in;
    c.duration = 500ms;
    c.rr_duration = 0ms;
    c.streams = 2;
    TcpBenchmark b(c);
    Status ok = b.check();
    if (!ok.ok()) return {{"error", ok.error().message()}};
    auto m = b.measure();
    if (!m.ok()) return {{"error", m.error().message()}};
    return {{"bps", std::to_string(m->throughput_bps)},
            {"veth_rx_bytes",
             tuner::testing::slurp("/sys/class/net/" + pair.local_if + "/statistics/rx_bytes")},
            {"veth_tx_bytes",
             tuner::testing::slurp("/sys/class/net/" + pair.local_if + "/statistics/tx_bytes")},
            {"bytes", std::to_string(m->bytes)}};
  });
  if (r.contains("skip")) {
    MESSAGE("skipped: " << r["skip"]);
    return;
  }
  REQUIRE_MESSAGE(!r.contains("error"), r["error"]);
  double bytes = std::stod(r["bytes"]);
  CHECK(std::stod(r["bps"]) > 1e8);
  // The bytes came in through the client's side of the pair; what it sent were ACKs.
  CHECK(std::stod(r["veth_rx_bytes"]) >= bytes);
  CHECK(std::stod(r["veth_tx_bytes"]) < bytes / 10);
  MESSAGE("veth, direction in: " << std::stod(r["bps"]) / 1e9 << " Gbit/s");
}

TEST_CASE("tcp bench (root): shrinking net.ipv4.tcp_rmem/tcp_wmem shows in throughput") {
  if (std::string why = tuner::testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  Report r = tuner::testing::run_in_netns([]() -> Report {
    ProcessRunner runner;
    auto up = runner.run(RunSpec{{"ip", "link", "set", "lo", "up"}});
    if (!up.ok() || !up->success()) return {{"skip", "cannot bring lo up with ip"}};
    TcpConfig c;
    c.duration = 500ms;
    c.rr_duration = 0ms;
    auto before = TcpBenchmark(c).measure();
    // Per-namespace sysctls (Linux >= 4.15): this namespace only.
    auto write = [](const char* key, const char* value) {
      std::string path = std::string("/proc/sys/net/ipv4/") + key;
      FILE* f = std::fopen(path.c_str(), "w");
      if (!f) return false;
      bool ok = std::fputs(value, f) >= 0;
      return std::fclose(f) == 0 && ok;
    };
    if (!write("tcp_rmem", "4096 4096 4096") || !write("tcp_wmem", "4096 4096 4096"))
      return {{"skip", "tcp_rmem/tcp_wmem are not per-namespace on this kernel"}};
    auto after = TcpBenchmark(c).measure();
    if (!before.ok()) return {{"error", before.error().message()}};
    if (!after.ok()) return {{"error", after.error().message()}};
    return {{"before", std::to_string(before->throughput_bps)},
            {"after", std::to_string(after->throughput_bps)}};
  });
  if (r.contains("skip")) {
    MESSAGE("skipped: " << r["skip"]);
    return;
  }
  REQUIRE_MESSAGE(!r.contains("error"), r["error"]);
  double before = std::stod(r["before"]), after = std::stod(r["after"]);
  MESSAGE("loopback " << before / 1e9 << " Gbit/s with default buffers, " << after / 1e9
                      << " Gbit/s with 4 KiB tcp_rmem/tcp_wmem");
  // Had the benchmark set SO_SNDBUF/SO_RCVBUF itself, the sysctls would not show.
  CHECK(after < before / 2);
}

TEST_CASE("tcp bench (root): on loopback its sockets account for the namespace's TCP counter") {
  // The retransmit guard's node_traffic is /proc/net/snmp less Measurement::loopback
  // (client and server sockets). In a namespace with no other traffic, what is left is
  // the few segments the sockets send before their counters are read (SYN-ACKs) or
  // after (FIN, the last ACKs): a handful per connection, far under min_out_segs.
  if (std::string why = tuner::testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  Report r = tuner::testing::run_in_netns([]() -> Report {
    ProcessRunner runner;
    auto up = runner.run(RunSpec{{"ip", "link", "set", "lo", "up"}});
    if (!up.ok() || !up->success()) return {{"skip", "cannot bring lo up with ip"}};
    TcpConfig c;
    c.duration = 300ms;
    c.rr_duration = 100ms;
    c.streams = 2;
    Root root = Root::live();
    auto before = sample_guards(root, {});
    auto m = TcpBenchmark(c).run();
    auto after = sample_guards(root, {});
    if (!before.ok() || !after.ok()) return {{"error", "cannot read /proc/net/snmp"}};
    if (!m.ok()) return {{"error", m.error().message()}};
    if (!m->loopback || !m->connections) return {{"error", "no loopback counters reported"}};
    GuardDelta d = guard_delta(*before, *after, *m);
    return {{"ns", std::to_string(d.out_segs)},
            {"client", std::to_string(m->connections->segs_out)},
            {"loopback", std::to_string(m->loopback->segs_out)},
            {"node", std::to_string(d.node.segs)},
            {"node_retrans", std::to_string(d.node.retrans)},
            {"retrans", std::to_string(d.retrans_segs) + " namespace, " +
                            std::to_string(m->loopback->retrans) + " sockets"}};
  });
  if (r.contains("skip")) {
    MESSAGE("skipped: " << r["skip"]);
    return;
  }
  REQUIRE_MESSAGE(!r.contains("error"), r["error"]);
  double ns = std::stod(r["ns"]), client = std::stod(r["client"]);
  double loopback = std::stod(r["loopback"]), node = std::stod(r["node"]);
  // The server's sockets (ACKs, the echo) are a large share: the client alone is not.
  CHECK(loopback > client);
  CHECK(ns - client > 100);
  // 3 connections (2 streams, 1 rr): a few segments each are left.
  CHECK(node <= 30);
  CHECK(r["node_retrans"] == "0");
  MESSAGE("namespace " << ns << " segments, benchmark's client " << client << ", client and server "
                       << loopback << ": node traffic " << node << "; retransmits "
                       << r["retrans"]);
}

TEST_CASE("tcp server (root): reports the tcp_wmem maximum of its listener's namespace") {
  if (std::string why = tuner::testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  Report r = tuner::testing::run_in_netns([]() -> Report {
    tuner::testing::VethPair pair("tcpwm");
    if (!pair.error.empty()) return {{"skip", pair.error}};
    // Different values here and there: the answer must be the server's namespace's, not
    // that of the thread that handles the connection (which stays in this one).
    if (std::string e =
            tuner::testing::run_command({"sysctl", "-qw", "net.ipv4.tcp_wmem=4096 16384 2097152"});
        !e.empty())
      return {{"error", e}};
    if (std::string e = pair.run_there({"sysctl", "-qw", "net.ipv4.tcp_wmem=4096 16384 1048576"});
        !e.empty())
      return {{"error", e}};
    TcpConfig c;
    c.placement = TcpConfig::Placement::netns;
    c.netns = pair.netns;
    c.address = pair.peer_address;
    auto f = TcpBenchmark(c).server_facts();
    if (!f.ok()) return {{"error", f.error().message()}};
    auto here = tcp::read_tcp_wmem_max();
    return {{"there", f->tcp_wmem_max ? std::to_string(*f->tcp_wmem_max) : "unknown"},
            {"here", here.ok() ? std::to_string(*here) : here.error().message()}};
  });
  if (r.contains("skip")) {
    MESSAGE("skipped: " << r["skip"]);
    return;
  }
  REQUIRE_MESSAGE(!r.contains("error"), r["error"]);
  CHECK(r["there"] == "1048576");
  CHECK(r["here"] == "2097152");
}
