// Root-only: guards read real counters the kernel moved for real, inside namespaces
// this test creates: retransmits caused by nftables dropping 5% of a tcp benchmark's
// packets, and drops and a link flap on a veth pair whose peer goes down.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include <doctest/doctest.h>

#include "base/runner.h"
#include "base/strings.h"
#include "probes/bench/guards.h"
#include "probes/bench/tcp.h"
#include "probes/bench/veth_pair_test.h"
#include "tests/support/netns.h"

using namespace tuner;
using namespace tuner::bench;
using namespace std::chrono_literals;
using tuner::testing::Report;
using tuner::testing::VethPair;

namespace {

/// One tcp trial between the namespaces, with the guards sampled around it.
Result<GuardDelta> trial(const VethPair& pair, const std::vector<std::string>& ifs) {
  TcpConfig c;
  c.placement = TcpConfig::Placement::netns;
  c.netns = pair.netns;
  c.address = pair.peer_address;
  c.port = 5399;
  c.duration = 1s;
  c.rr_duration = 0ms;
  Root root = Root::live();
  auto before = sample_guards(root, ifs);
  if (!before.ok()) return before.error();
  auto m = TcpBenchmark(c).measure();
  if (!m.ok()) return m.error();
  auto after = sample_guards(root, ifs);
  if (!after.ok()) return after.error();
  return guard_delta(*before, *after);
}

bool root_or_skip() {
  std::string why = tuner::testing::netns_unavailable();
  if (!why.empty()) MESSAGE("skipped: " << why);
  return why.empty();
}

}  // namespace

TEST_CASE("guards (root): nftables dropping 5% of packets trips tcp_retrans_pct") {
  if (!root_or_skip()) return;
  if (!find_executable("nft").ok()) {
    MESSAGE("skipped: nft is not installed (apt-get install nftables)");
    return;
  }
  Report r = tuner::testing::run_in_netns([]() -> Report {
    VethPair pair("grd");
    if (!pair.error.empty()) return {{"skip", pair.error}};
    auto base = trial(pair, {pair.local_if});
    if (!base.ok()) return {{"error", base.error().message()}};
    // In the server's namespace: drop 5% of the segments arriving for the benchmark.
    // SYNs are spared: a SYN dropped twice delays connect() past the client's 2 s
    // timeout (retries at 1 s and 3 s), which failed this test under load.
    for (const std::vector<std::string>& argv : std::vector<std::vector<std::string>>{
             {"nft", "add", "table", "inet", "tuner_test"},
             {"nft", "add", "chain", "inet", "tuner_test", "in",
              "{ type filter hook input priority 0; }"},
             {"nft",    "add", "rule",  "inet", "tuner_test", "in",  "tcp", "dport",
              "5399",   "tcp", "flags", "&",    "syn",        "==",  "0",   "numgen",
              "random", "mod", "100",   "<",    "5",          "drop"}}) {
      std::string e = pair.run_there(argv);
      if (!e.empty()) return {{"skip", "nftables unavailable: " + e}};
    }
    auto lossy = trial(pair, {pair.local_if});
    if (!lossy.ok()) return {{"error", lossy.error().message()}};
    auto trips = check_guards(*base, *lossy, GuardLimits::defaults());
    auto none = check_guards(*base, *base, GuardLimits::defaults());
    return {{"base_pct", std::to_string(base->retrans_pct())},
            {"lossy_pct", std::to_string(lossy->retrans_pct())},
            {"lossy_segs", std::to_string(lossy->out_segs)},
            {"trips", std::to_string(trips.size())},
            {"trip", trips.empty() ? "" : trips[0].text},
            {"self_trips", std::to_string(none.size())}};
  });
  if (r.contains("skip")) {
    MESSAGE("skipped: " << r["skip"]);
    return;
  }
  REQUIRE_MESSAGE(!r.contains("error"), r["error"]);
  MESSAGE("retransmits " << r["base_pct"] << "% -> " << r["lossy_pct"] << "% of " << r["lossy_segs"]
                         << " segments: " << r["trip"]);
  CHECK(std::stod(r["base_pct"]) < 1.0);
  CHECK(std::stod(r["lossy_pct"]) > 1.0);
  CHECK(r["trips"] == "1");
  CHECK(r["trip"].rfind("tcp_retrans_pct: ", 0) == 0);
  CHECK(r["self_trips"] == "0");
}

TEST_CASE("guards (root): a veth peer going down shows as a link flap and drops") {
  if (!root_or_skip()) return;
  Report r = tuner::testing::run_in_netns([]() -> Report {
    VethPair pair("flp");
    if (!pair.error.empty()) return {{"skip", pair.error}};
    // A permanent neighbour entry, so packets go to the wire instead of waiting on ARP.
    ProcessRunner runner;
    auto show = runner.run(RunSpec{{"ip", "-n", pair.netns, "-br", "link", "show", pair.peer_if}});
    if (!show.ok() || !show->success()) return {{"error", "ip link show failed"}};
    std::vector<std::string_view> f = split_ws(show->out);
    if (f.size() < 3) return {{"error", "unexpected ip -br output: " + show->out}};
    std::string e =
        tuner::testing::run_command({"ip", "neigh", "replace", pair.peer_address, "lladdr",
                                     std::string(f[2]), "dev", pair.local_if, "nud", "permanent"});
    if (!e.empty()) return {{"error", e}};
    Root root = Root::live();
    auto before = sample_guards(root, {pair.local_if});
    if (!before.ok()) return {{"error", before.error().message()}};
    e = tuner::testing::run_command({"ip", "-n", pair.netns, "link", "set", pair.peer_if, "down"});
    if (!e.empty()) return {{"error", e}};
    int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(9);
    ::inet_pton(AF_INET, pair.peer_address.c_str(), &to.sin_addr);
    int sent = 0;
    for (int i = 0; i < 30; ++i)
      if (::sendto(s, "x", 1, 0, reinterpret_cast<sockaddr*>(&to), sizeof to) == 1) ++sent;
    ::close(s);
    e = tuner::testing::run_command({"ip", "-n", pair.netns, "link", "set", pair.peer_if, "up"});
    if (!e.empty()) return {{"error", e}};
    auto after = sample_guards(root, {pair.local_if});
    if (!after.ok()) return {{"error", after.error().message()}};
    GuardDelta d = guard_delta(*before, *after);
    GuardDelta quiet;
    quiet.trials = 1;
    auto trips = check_guards(quiet, d, GuardLimits::defaults());
    std::string texts;
    for (const GuardTrip& t : trips) texts += t.text + "; ";
    return {{"sent", std::to_string(sent)},
            {"drops", std::to_string(d.nics[pair.local_if].drops())},
            {"flaps", std::to_string(d.nics[pair.local_if].carrier_changes)},
            {"trips", texts}};
  });
  if (r.contains("skip")) {
    MESSAGE("skipped: " << r["skip"]);
    return;
  }
  REQUIRE_MESSAGE(!r.contains("error"), r["error"]);
  MESSAGE(r["trips"]);
  CHECK(std::stoi(r["flaps"]) >= 2);  // down and up
  CHECK(std::stoi(r["drops"]) >= std::stoi(r["sent"]));
  CHECK(r["trips"].find("link_flaps tva") != std::string::npos);
  CHECK(r["trips"].find("nic_drops tva") != std::string::npos);
}
