// The guard soak's test node: counters in a fake /proc and /sys that move while its
// clock sleeps (soak_test.cc, loop_soak_test.cc).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include <fmt/core.h>

#include "base/clock.h"
#include "tests/support/files.h"

namespace tuner::verify::soak_test {

/// A node whose counters move while the clock sleeps: `segs` segments per second, of
/// which `retrans` (a fraction) are retransmitted; `packets` per second through eth0.
struct Node {
  std::string path;
  uint64_t out_segs = 1000, retrans_segs = 10, packets = 500, carrier = 2;
  double segs_per_s = 2000, retrans = 0.001, packets_per_s = 1000, flaps_per_s = 0;
  /// When set, the retransmit rate now (it may read the machine's knobs).
  std::function<double()> retrans_now;
  explicit Node(std::string dir) : path(std::move(dir)) {
    std::filesystem::create_directories(path + "/proc/net");
    std::filesystem::create_directories(path + "/sys/class/net/eth0");
    write();
  }
  void write() const {
    testing::write_file(
        path + "/proc/net/snmp",
        fmt::format("Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens "
                    "AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts "
                    "InCsumErrors\nTcp: 1 200 120000 -1 18 4 0 2 0 42026 {} {} 0 3 0\n",
                    out_segs, retrans_segs));
    testing::write_file(
        path + "/proc/net/dev",
        fmt::format("Inter-|   Receive                                                |  Transmit\n"
                    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
                    "packets errs drop fifo colls carrier compressed\n"
                    "  eth0: 100 {} 0 0 0 0 0 0 100 {} 0 0 0 0 0 0\n",
                    packets, packets));
    testing::write_file(path + "/sys/class/net/eth0/carrier_changes", fmt::format("{}\n", carrier));
  }
  void run_for(Clock::duration d) {
    double s = std::chrono::duration<double>(d).count();
    auto segs = static_cast<uint64_t>(segs_per_s * s);
    out_segs += segs;
    retrans_segs +=
        static_cast<uint64_t>(static_cast<double>(segs) * (retrans_now ? retrans_now() : retrans));
    packets += static_cast<uint64_t>(packets_per_s * s);
    carrier += static_cast<uint64_t>(flaps_per_s * s);
    write();
  }
};

/// A clock on which sleeping lets the node run.
class NodeClock final : public Clock {
 public:
  explicit NodeClock(Node& n) : n_(n) {}
  time_point now() override { return now_; }
  void sleep_for(duration d) override {
    now_ += d;
    slept_ += d;
    n_.run_for(d);
  }
  duration slept_{0};

 private:
  Node& n_;
  time_point now_{};
};

}  // namespace tuner::verify::soak_test
