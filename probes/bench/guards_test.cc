#include "probes/bench/guards.h"

#include <chrono>
#include <string>

#include <doctest/doctest.h>

#include "tests/support/files.h"

using namespace tuner;
using namespace tuner::bench;

namespace {

// /proc/net/snmp of the build VM (Debian 12, kernel 6.18) after the tcp benchmark's own
// tests had run on it, pasted as read (long lines wrapped at spaces).
constexpr const char* kSnmp =
    "Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams "
    "InUnknownProtos InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout "
    "ReasmReqds ReasmOKs ReasmFails FragOKs FragFails FragCreates OutTransmits\n"
    "Ip: 2 64 1916891 0 0 0 0 0 1916891 1533639 0 0 0 0 0 0 0 0 0 1533639\n"
    "Icmp: InMsgs InErrors InCsumErrors InDestUnreachs InTimeExcds InParmProbs InSrcQuenchs "
    "InRedirects InEchos InEchoReps InTimestamps InTimestampReps InAddrMasks InAddrMaskReps "
    "OutMsgs OutErrors OutRateLimitGlobal OutRateLimitHost OutDestUnreachs OutTimeExcds "
    "OutParmProbs OutSrcQuenchs OutRedirects OutEchos OutEchoReps OutTimestamps "
    "OutTimestampReps OutAddrMasks OutAddrMaskReps\n"
    "Icmp: 1 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "IcmpMsg: InType3\n"
    "IcmpMsg: 1\n"
    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
    "EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
    "Tcp: 1 200 120000 -1 55 39 2 10 0 1916855 1916054 471 0 9 0\n"
    "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors "
    "IgnoredMulti MemErrors\n"
    "Udp: 35 0 0 36 0 0 0 0 0\n"
    "UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors "
    "InCsumErrors IgnoredMulti MemErrors\n"
    "UdpLite: 0 0 0 0 0 0 0 0 0\n";

GuardDelta tcp_delta(uint64_t out, uint64_t retrans, unsigned trials = 1) {
  GuardDelta d;
  d.out_segs = out;
  d.retrans_segs = retrans;
  d.trials = trials;
  return d;
}

}  // namespace

TEST_CASE("guards: /proc/net/snmp Tcp counters (MaxConn -1 does not get in the way)") {
  auto t = parse_snmp_tcp(kSnmp);
  REQUIRE(t.ok());
  CHECK(t->out_segs == 1916054);
  CHECK(t->retrans_segs == 471);
  CHECK(parse_snmp_tcp("Ip: Forwarding\nIp: 1\n").error().message() ==
        "/proc/net/snmp: no Tcp: lines");
  CHECK_FALSE(parse_snmp_tcp("Tcp: OutSegs RetransSegs\nTcp: 1\n").ok());
  CHECK_FALSE(parse_snmp_tcp("Tcp: InSegs\nTcp: 1\n").ok());
}

TEST_CASE("guards: /proc/net/dev drops and errors per interface") {
  // The build VM's /proc/net/dev, pasted as read, plus one line written in the kernel's
  // layout ("%6s: %7llu ...") for a long name with non-zero counters, which this VM's
  // NICs do not have.
  const char* text =
      "Inter-|   Receive                                                |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
      "errs drop fifo colls carrier compressed\n"
      "    lo: 89760047316 1915976    0    0    0     0          0         0 89760047316 "
      "1915976    0    0    0     0       0          0\n"
      "  ifb0:       0       0    0    0    0     0          0         0        0       0    "
      "0    0    0     0       0          0\n"
      "  ifb1:       0       0    0    0    0     0          0         0        0       0    "
      "0    0    0     0       0          0\n"
      "  eth0: 39448400     918    0    0    0     0          0         0    47317     588    "
      "0    0    0     0       0          0\n"
      "enp59s0f0np0: 912873460122 602199132    3 18234    0     0          0      1043 "
      "48102938470 98231029    0    7    0     0       0          0\n";
  auto dev = parse_net_dev(text);
  REQUIRE_MESSAGE(dev.ok(), (dev.ok() ? "" : dev.error().message()));
  CHECK(dev->size() == 5);
  CHECK((*dev)["eth0"].drops() == 0);
  const NicCounters& mlx = (*dev)["enp59s0f0np0"];  // no blanks before a long name
  CHECK(mlx.rx_errors == 3);
  CHECK(mlx.rx_dropped == 18234);
  CHECK(mlx.tx_dropped == 7);
  CHECK(mlx.drops() == 18241);
  CHECK_FALSE(parse_net_dev("h1\nh2\n  eth0: 1 2 3\n").ok());
}

TEST_CASE("guards: a sample of a captured machine through Root") {
  auto root = Root::open(std::string(TUNER_TEST_DATA) + "/bench/root-vm");
  REQUIRE(root.ok());
  auto s = sample_guards(*root, {"eth0"});
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message()));
  CHECK(s->tcp.out_segs == 41687);
  CHECK(s->tcp.retrans_segs == 4);
  REQUIRE(s->nics.count("eth0"));
  CHECK(s->nics["eth0"].carrier_changes == 2);
  CHECK(s->nics["eth0"].drops() == 0);
  auto missing = sample_guards(*root, {"eth0", "ens9"});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message() == "/proc/net/dev: no interface ens9 in this network namespace");
  CHECK_FALSE(sample_guards(*root, {"../../etc"}).ok());
}

TEST_CASE("guards: a NIC that is not there is named; the others are still read") {
  auto root = Root::open(std::string(TUNER_TEST_DATA) + "/bench/root-vm");
  REQUIRE(root.ok());
  // ens9 is in neither file; ifb0 is in proc/net/dev but has no sys/class/net entry, as
  // a NIC unregistered between the two reads.
  auto s = sample_present_nic_counters(*root, {"ens9", "eth0", "ifb0"});
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message()));
  CHECK(s->missing == std::vector<std::string>{"ens9", "ifb0"});
  REQUIRE(s->counters.count("eth0"));
  CHECK(s->counters.size() == 1);
  CHECK(s->counters["eth0"].carrier_changes == 2);
  CHECK(s->counters["eth0"].rx_packets == 918);
  // The verify loop's reader still refuses the whole sample.
  auto strict = sample_nic_counters(*root, {"eth0", "ifb0"});
  REQUIRE_FALSE(strict.ok());
  CHECK(strict.error().message() == "/proc/net/dev: no interface ifb0 in this network namespace");
  CHECK_FALSE(sample_present_nic_counters(*root, {"../../etc"}).ok());
}

TEST_CASE("guards: the metric names profiles use, and only those") {
  for (GuardMetric m : {GuardMetric::tcp_retrans_pct, GuardMetric::nic_drops,
                        GuardMetric::nic_errors, GuardMetric::link_flaps})
    CHECK(parse_guard_metric(guard_metric_name(m)) == m);
  CHECK(parse_guard_metric("tcp_retrans_pct") == GuardMetric::tcp_retrans_pct);  // shipped profiles
  CHECK_FALSE(parse_guard_metric("tcp_retrans").has_value());
  CHECK(guard_metric_names() == "tcp_retrans_pct, nic_drops, nic_errors, link_flaps");
}

TEST_CASE("guards: delta over a trial, and a counter reset counts from zero") {
  GuardSample a, b;
  a.tcp = {1000, 10};
  b.tcp = {5000, 50};
  a.nics["eth0"] = {5, 1, 0, 0, 2};
  b.nics["eth0"] = {9, 1, 0, 3, 4};
  GuardDelta d = guard_delta(a, b);
  CHECK(d.out_segs == 4000);
  CHECK(d.retrans_segs == 40);
  CHECK(d.retrans_pct() == doctest::Approx(1.0));
  CHECK(d.nics["eth0"].drops() == 4);
  CHECK(d.nics["eth0"].errors() == 3);
  CHECK(d.nics["eth0"].carrier_changes == 2);
  b.nics["eth0"].rx_dropped = 3;  // the driver was reloaded mid-trial
  CHECK(guard_delta(a, b).nics["eth0"].rx_dropped == 3);
  CHECK(GuardDelta{}.retrans_pct() == 0);
}

TEST_CASE("guards: retransmits rising past the limit trip, as the report prints it") {
  GuardLimits limits = GuardLimits::defaults();
  auto trips = check_guards(tcp_delta(100000, 300), tcp_delta(100000, 7800), limits);
  REQUIRE(trips.size() == 1);
  CHECK(trips[0].metric == GuardMetric::tcp_retrans_pct);
  CHECK(trips[0].text == "tcp_retrans_pct: 0.30% -> 7.80%, limit +1.00%");
  CHECK(trips[0].candidate == doctest::Approx(7.8));
  // Within the limit, or better: nothing trips.
  CHECK(check_guards(tcp_delta(100000, 300), tcp_delta(100000, 1200), limits).empty());
  CHECK(check_guards(tcp_delta(100000, 300), tcp_delta(100000, 0), limits).empty());
  // A profile's tighter guard (shipped profiles use 0.5) replaces the default.
  limits.set({GuardMetric::tcp_retrans_pct, 0.5});
  CHECK(check_guards(tcp_delta(100000, 300), tcp_delta(100000, 1200), limits).size() == 1);
  // Too few segments to judge (a membw trial with only background chatter).
  CHECK(check_guards(tcp_delta(40, 0), tcp_delta(50, 5), limits).empty());
}

TEST_CASE("guards: NIC counters are compared per trial and per interface") {
  GuardDelta base = tcp_delta(0, 0, 3), cand = tcp_delta(0, 0, 3);
  base.nics["eth0"] = {6, 0, 0, 0, 0};   // 2 drops per trial of background noise
  cand.nics["eth0"] = {60, 0, 0, 0, 0};  // 20 per trial: rings too small
  cand.nics["eth1"] = {0, 0, 0, 1, 2};   // one error, one down/up
  auto trips = check_guards(base, cand, GuardLimits::defaults());
  REQUIRE(trips.size() == 3);
  CHECK(trips[0].text == "nic_drops eth0: 2 -> 20 per trial, limit +10");
  CHECK(trips[1].text == "nic_errors eth1: 0 -> 0.333333 per trial, limit +0");
  CHECK(trips[2].text == "link_flaps eth1: 0 -> 0.666667 per trial, limit +0");
  CHECK(trips[2].interface == "eth1");
  // Background drops alone stay under the limit.
  cand.nics["eth0"] = {30, 0, 0, 0, 0};
  cand.nics.erase("eth1");
  CHECK(check_guards(base, cand, GuardLimits::defaults()).empty());
}

TEST_CASE("guards: an arm's trials add up") {
  GuardDelta arm;
  GuardDelta t1 = tcp_delta(1000, 10), t2 = tcp_delta(3000, 10);
  t1.nics["eth0"] = {1, 2, 3, 4, 5};
  arm += t1;
  arm += t2;
  CHECK(arm.trials == 2);
  CHECK(arm.out_segs == 4000);
  CHECK(arm.retrans_pct() == doctest::Approx(0.5));
  CHECK(arm.nics["eth0"].carrier_changes == 5);
}

TEST_CASE("guards: sampling the live machine is cheap") {
  Root root = Root::live();
  std::vector<std::string> ifs = {"lo"};
  auto first = sample_guards(root, ifs);
  REQUIRE_MESSAGE(first.ok(), (first.ok() ? "" : first.error().message()));
  const int n = 200;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) REQUIRE(sample_guards(root, ifs).ok());
  auto per = (std::chrono::steady_clock::now() - t0) / n;
  MESSAGE("one guard sample (snmp + 1 interface): "
          << std::chrono::duration_cast<std::chrono::microseconds>(per).count() << " us");
  CHECK(per < std::chrono::milliseconds(5));
}

TEST_CASE("guards: real captures, a healthy arm against 5% packet loss") {
  auto read = [](const std::string& name) {
    return tuner::testing::read_text(std::string(TUNER_TEST_DATA) + "/bench/" + name);
  };
  // Healthy: two captures of the build VM's own counters, minutes apart.
  GuardSample vm_then, vm_now;
  vm_then.tcp = *parse_snmp_tcp(read("root-vm/proc/net/snmp"));
  vm_now.tcp = *parse_snmp_tcp(kSnmp);
  GuardDelta healthy = guard_delta(vm_then, vm_now);
  // Lossy: a fresh namespace before and after iperf3 through a 5%-dropping firewall.
  GuardSample fresh, lossy_after;
  fresh.tcp = *parse_snmp_tcp(read("proc-net-snmp-netns-fresh"));
  lossy_after.tcp = *parse_snmp_tcp(read("proc-net-snmp-netns-5pct-loss"));
  CHECK(fresh.tcp.out_segs == 0);
  GuardDelta lossy = guard_delta(fresh, lossy_after);
  CHECK(lossy.out_segs == 94763);
  CHECK(lossy.retrans_segs == 5255);
  auto trips = check_guards(healthy, lossy, GuardLimits::defaults());
  REQUIRE(trips.size() == 1);
  CHECK(trips[0].text == "tcp_retrans_pct: 0.02% -> 5.55%, limit +1.00%");
  CHECK(check_guards(lossy, healthy, GuardLimits::defaults()).empty());  // getting better
}

TEST_CASE("guards: the node's traffic is the namespace's counter less the loopback benchmark's") {
  GuardSample a, b;
  a.tcp = {1000, 10};
  b.tcp = {31000, 90};  // 30000 segments, 80 retransmits in the namespace
  Measurement m;
  m.connections = ConnectionCounters{20000, 0};  // the client's sockets
  m.loopback = ConnectionCounters{25005, 5};     // client and server: 25000 sent once, 5 again
  GuardDelta d = guard_delta(a, b, m);
  // OutSegs counts a segment once, tcpi_segs_out each retransmission too.
  CHECK(d.node.segs == 5000);
  CHECK(d.node.retrans == 75);
  CHECK(d.out_segs == 30000);
  REQUIRE(d.tcp_trials.size() == 1);
  CHECK(d.tcp_trials[0].ns.segs == 30000);
  CHECK(d.tcp_trials[0].node.retrans == 75);
  CHECK(d.tcp_trials[0].bench.segs == 20000);
  // A benchmark across an interface (peer) reports no loopback segments: nothing is
  // subtracted. Without connections (exec), the node is the namespace.
  Measurement peer;
  peer.connections = ConnectionCounters{20000, 0};
  CHECK(guard_delta(a, b, peer).node.segs == 30000);
  CHECK(guard_delta(a, b).node.retrans == 80);
  // More loopback segments than the counter moved (a read just after the sample): 0.
  m.loopback = ConnectionCounters{40000, 100};
  CHECK(guard_delta(a, b, m).node.segs == 0);
  CHECK(guard_delta(a, b, m).node.retrans == 0);
  // An arm sums the node's counts and keeps each trial's.
  GuardDelta arm = guard_delta(a, b, peer);
  arm += guard_delta(a, b, m);
  CHECK(arm.node.segs == 30000);
  CHECK(arm.tcp_trials.size() == 2);
  CHECK(arm.has_connections());
}
