// Guard metrics: counters sampled before and after each trial, so a change that buys
// throughput with retransmits, drops or link flaps is rolled back even when the main
// metric improves (DESIGN.md "The verify loop"). Read through a Root, parsed from text:
//   /proc/net/snmp                      Tcp: OutSegs, RetransSegs (IPv4 and IPv6: Linux
//                                       keeps one TCP MIB per network namespace)
//   /proc/net/dev                       per interface: rx errs, rx drop (the kernel's
//                                       rx_dropped + rx_missed_errors, where most drivers
//                                       count ring overflows), tx errs, tx drop
//   /sys/class/net/IF/carrier_changes   link flaps (2 per down/up)
// /proc/net/dev rather than five statistics/ files per interface: one read for all
// interfaces (a sample costs ~0.1 ms instead of ~0.1 ms per interface), and it holds
// rx_missed_errors. /proc/net/* is the reading process's network namespace; /sys is the
// namespace it was mounted in.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/bench/bench.h"
#include "probes/root.h"

namespace tuner::bench {

/// The guard metrics a profile's `guards = [{ metric = "...", max_increase = N }]`
/// may name. guard_metric_name / parse_guard_metric own the spelling.
enum class GuardMetric { tcp_retrans_pct, nic_drops, nic_errors, link_flaps };

const char* guard_metric_name(GuardMetric m);
std::optional<GuardMetric> parse_guard_metric(std::string_view name);
/// "tcp_retrans_pct, nic_drops, nic_errors, link_flaps", for "unknown metric" errors.
std::string guard_metric_names();

struct TcpCounters {
  uint64_t out_segs = 0, retrans_segs = 0;
};

/// The Tcp: OutSegs and RetransSegs of /proc/net/snmp text.
Result<TcpCounters> parse_snmp_tcp(std::string_view snmp);

struct NicCounters {
  /// rx_dropped is /proc/net/dev's rx "drop": rx_dropped + rx_missed_errors.
  uint64_t rx_dropped = 0, tx_dropped = 0, rx_errors = 0, tx_errors = 0;
  uint64_t carrier_changes = 0;
  /// Traffic, to tell "no drops" from "nothing to drop" (the guard soak).
  uint64_t rx_packets = 0, tx_packets = 0;
  uint64_t packets() const { return rx_packets + tx_packets; }
  uint64_t drops() const { return rx_dropped + tx_dropped; }
  uint64_t errors() const { return rx_errors + tx_errors; }
};

/// Every interface's drops and errors in /proc/net/dev text (carrier_changes left 0).
Result<std::map<std::string, NicCounters>> parse_net_dev(std::string_view text);

/// Counters at one instant.
struct GuardSample {
  TcpCounters tcp;
  std::map<std::string, NicCounters> nics;
};

/// Drops, errors and carrier changes of `interfaces` (proc/net/dev and
/// sys/class/net/IF/carrier_changes). An interface that is not there is an Error naming
/// it: the verify loop must not take a vanished NIC for a quiet one.
Result<std::map<std::string, NicCounters>> sample_nic_counters(
    const Root& root, const std::vector<std::string>& interfaces);

/// The same reading, with the interfaces that are not there named instead of failing
/// the whole sample: not in proc/net/dev, or without carrier_changes (unregistered
/// between the two reads). `tuner check` samples this twice over its window, so that one
/// NIC that goes away hides none of the others' counters and is itself reported.
struct NicCounterSample {
  std::map<std::string, NicCounters> counters;
  std::vector<std::string> missing;  // in the order asked
};
Result<NicCounterSample> sample_present_nic_counters(const Root& root,
                                                     const std::vector<std::string>& interfaces);

/// Reads the counters of this namespace's TCP and of `interfaces` (names as in
/// /sys/class/net). An interface that is not there is an Error naming it: a NIC that
/// vanished mid-trial must not pass as "no drops".
Result<GuardSample> sample_guards(const Root& root, const std::vector<std::string>& interfaces);

/// TCP segments sent and retransmitted: one trial's, or an arm's summed.
struct TcpCount {
  uint64_t segs = 0, retrans = 0;
};

/// What the counters did over one or more trials of one arm.
struct GuardDelta {
  /// The namespace's TCP counter (/proc/net/snmp OutSegs, RetransSegs), summed.
  uint64_t out_segs = 0, retrans_segs = 0;
  std::map<std::string, NicCounters> nics;
  unsigned trials = 0;
  /// How long the trials' windows lasted, summed (0: not timed). The link-flap guard's
  /// exposure when it has a since-boot prior (tuner/verify/guard_decision.h).
  double seconds = 0;
  /// The benchmark's own connections (Measurement::connections), summed over the
  /// connection_trials trials that reported them.
  ConnectionCounters connections;
  unsigned connection_trials = 0;
  /// What the benchmark's sockets sent over loopback (Measurement::loopback), summed.
  ConnectionCounters loopback;
  /// The node's real traffic: the namespace's counter less the benchmark's loopback
  /// segments, per trial (each clamped at 0), summed. The namespace's counter itself
  /// when the benchmark reported no loopback segments.
  TcpCount node;
  /// Each trial's namespace and node counts, in the order added: the retransmit guard's
  /// dispersion (tuner/verify/count_tests.h). Empty for a delta built by hand.
  struct TcpTrial {
    TcpCount ns, node, bench;  // bench: the benchmark's own connections (TCP_INFO)
  };
  std::vector<TcpTrial> tcp_trials;

  /// True when every trial reported its own connections: the retransmit guard then
  /// judges the node's traffic without the benchmark's loopback segments.
  bool has_connections() const { return trials > 0 && connection_trials == trials; }

  /// RetransSegs / OutSegs in percent; 0 without traffic.
  double retrans_pct() const;
  /// Adds another trial's delta (an arm's trials are summed, then compared per trial;
  /// tcp_trials are appended).
  GuardDelta& operator+=(const GuardDelta& other);
};

/// after - before, one trial. A counter that went down was reset (driver reload): its
/// delta is its value after.
GuardDelta guard_delta(const GuardSample& before, const GuardSample& after);
/// The same, with the trial's own connections when the benchmark reported them.
GuardDelta guard_delta(const GuardSample& before, const GuardSample& after, const Measurement& m);

struct GuardLimit {
  GuardMetric metric;
  /// Percentage points for tcp_retrans_pct; events per trial for the counters.
  double max_increase = 0;
};

struct GuardLimits {
  std::vector<GuardLimit> limits;
  /// Both arms need at least this many TCP segments for the retransmit rate to be
  /// judged: 1 retransmit in 50 segments of background chatter is 2% and means nothing.
  uint64_t min_out_segs = 1000;

  /// tcp_retrans_pct +1 point, nic_drops +10 per trial, nic_errors +0, link_flaps +0;
  /// README.md explains each.
  static GuardLimits defaults();
  /// Replaces (or adds) the limit of l.metric: a profile's guard overrides the default.
  void set(GuardLimit l);
};

/// One guard that tripped, in numbers and as the report prints it:
/// "tcp_retrans_pct: 0.30% -> 7.80%, limit +1.00%",
/// "nic_drops eth0: 0 -> 1532 per trial, limit +10".
struct GuardTrip {
  GuardMetric metric;
  std::string interface;  // "" for tcp_retrans_pct
  double baseline = 0, candidate = 0, max_increase = 0;
  std::string text;
  /// The count test's p-value (tuner/verify/guard_decision.h); 0 from check_guards.
  double p = 0;
  /// The rate the candidate was tested against (guard_decision.h GuardJudgement::bound);
  /// 0 from check_guards.
  double bound = 0;
};

/// Where tcp_retrans_pct's counts come from: the node's traffic (the namespace's
/// counter less the benchmark's loopback segments) when every trial of both arms
/// reported the benchmark's connections, else the namespace's /proc/net/snmp counter.
/// A benchmark across an interface (peer, netns) subtracts nothing: its segments are
/// real traffic. benchmark_connections: the benchmark's own sockets, judged only when
/// the node carried too little traffic of its own (the row's note says so).
enum class RetransSource { namespace_counter, node_traffic, benchmark_connections };
/// "namespace" / "node_traffic" / "benchmark_connections", as the run document spells it.
/// retrans_source() picks one of the first two; the guard falls back to the third.
const char* retrans_source_name(RetransSource s);
RetransSource retrans_source(const GuardDelta& baseline, const GuardDelta& candidate);

/// Compares the candidate arm's counters with the baseline arm's: a guard trips when the
/// candidate's value exceeds the baseline's by more than its max_increase: a raw
/// difference, with no test. The verify loop decides with verify::judge_guards instead. Counters are
/// compared per trial and per interface. Empty when nothing tripped.
std::vector<GuardTrip> check_guards(const GuardDelta& baseline, const GuardDelta& candidate,
                                    const GuardLimits& limits);

}  // namespace tuner::bench
