#include "tuner/verify/soak.h"

#include <filesystem>
#include <functional>

#include <doctest/doctest.h>
#include <fmt/core.h>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "tuner/verify/loop_rig_test.h"
#include "tuner/verify/soak_rig_test.h"

using namespace tuner;
using namespace tuner::verify;
using namespace tuner::verify::soak_test;

namespace {

SoakOptions options(std::chrono::milliseconds window = std::chrono::seconds(30)) {
  SoakOptions o;
  o.window = window;
  o.limits.set({bench::GuardMetric::tcp_retrans_pct, 0.5});
  o.interfaces = {"eth0"};
  return o;
}

}  // namespace

TEST_CASE("soak: retransmits that rise after the write trip the guard") {
  testing::TempDir tmp;
  Node node(tmp.path);
  NodeClock clock(node);
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  int writes = 0;
  auto r = soak_group(*root, clock, options(), [&]() -> Status {
    ++writes;
    node.retrans = 0.03;  // the change: 0.1% -> 3%
    return Ok{};
  });
  REQUIRE(r.ok());
  CHECK(writes == 1);
  CHECK(clock.slept_ == std::chrono::seconds(60));
  CHECK(r->ran);
  CHECK(r->traffic);
  CHECK(r->tripped);
  CHECK(r->note.empty());
  CHECK(tripped_text(*r).find("tcp_retrans_pct: 0.10% -> 3.00%, limit +0.50%") == 0);
  const nlohmann::json& j = r->json;
  CHECK(j["decision"] == "tripped");
  CHECK(j["window_s"] == 30.0);
  CHECK(j["windows"]["before"]["seconds"] == 30.0);
  CHECK(j["windows"]["before"]["tcp"]["out_segs"] == 60000);
  CHECK(j["windows"]["before"]["tcp"]["retrans_segs"] == 60);
  CHECK(j["windows"]["after"]["tcp"]["retrans_segs"] == 1800);
  CHECK(j["windows"]["after"]["interfaces"]["eth0"]["packets"] == 60000);
  CHECK(j["guards"][0]["metric"] == "tcp_retrans_pct");
  CHECK(j["guards"][0]["source"] == "namespace");
  CHECK(j["guards"][0]["tripped"] == true);
}

TEST_CASE("soak: the same traffic after a harmless write passes") {
  testing::TempDir tmp;
  Node node(tmp.path);
  NodeClock clock(node);
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  auto r = soak_group(*root, clock, options(), [] { return Status(Ok{}); });
  REQUIRE(r.ok());
  CHECK_FALSE(r->tripped);
  CHECK(r->traffic);
  CHECK(r->json["decision"] == "passed");
  CHECK_FALSE(r->json.contains("note"));
}

TEST_CASE("soak: a link that starts flapping after the write trips link_flaps") {
  testing::TempDir tmp;
  Node node(tmp.path);
  NodeClock clock(node);
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  auto r = soak_group(*root, clock, options(), [&]() -> Status {
    node.flaps_per_s = 0.5;  // 15 carrier changes in the window
    return Ok{};
  });
  REQUIRE(r.ok());
  CHECK(r->tripped);
  CHECK(tripped_text(*r).find("link_flaps eth0: 0 -> 15 per trial") == 0);
}

TEST_CASE("soak: a write's own link reset is not judged; flapping after it is") {
  // A channel change on i40e: the write resets the link and waits for it (two carrier
  // changes, a burst of retransmits and 5 s while the clock runs), then traffic is as
  // before. The after-window starts when the write has returned.
  testing::TempDir tmp;
  Node node(tmp.path);
  NodeClock clock(node);
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  auto reset = [&] {
    node.carrier += 2;
    node.retrans_segs += 5000;
    clock.sleep_for(std::chrono::seconds(5));
  };
  auto r = soak_group(*root, clock, options(), [&]() -> Status {
    reset();
    return Ok{};
  });
  REQUIRE(r.ok());
  CHECK_FALSE(r->tripped);
  CHECK(r->json["decision"] == "passed");
  CHECK(r->json["write_s"] == 5.0);
  CHECK(r->json["windows"]["after"]["seconds"] == 30.0);
  // The same reset, and the link keeps flapping after it: tripped.
  auto flapping = soak_group(*root, clock, options(), [&]() -> Status {
    reset();
    node.flaps_per_s = 0.5;
    return Ok{};
  });
  REQUIRE(flapping.ok());
  CHECK(flapping->tripped);
  CHECK(tripped_text(*flapping).find("link_flaps eth0: 0 -> 15 per trial") == 0);
}

TEST_CASE("soak: with no traffic it says so and judges nothing it cannot see") {
  testing::TempDir tmp;
  Node node(tmp.path);
  node.segs_per_s = node.packets_per_s = 0;
  NodeClock clock(node);
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  auto r = soak_group(*root, clock, options(std::chrono::seconds(5)), [] { return Status(Ok{}); });
  REQUIRE(r.ok());
  CHECK_FALSE(r->traffic);
  CHECK_FALSE(r->tripped);
  CHECK(r->note ==
        "no traffic on eth0 during the soak (fewer than 500 packets and 1000 TCP segments in a "
        "window): undecided, nothing judged");
  CHECK(r->json["decision"] == "no_traffic");
  CHECK(r->json["note"] == r->note);
  CHECK(r->json["window_s"] == 5.0);
  CHECK(r->json["min_traffic"]["packets"] == 500);
  CHECK(r->json["min_traffic"]["tcp_segments"] == 1000);
}

TEST_CASE("soak: ARP and LLDP on an idle node are not workload traffic: undecided") {
  // A node being provisioned: no workload yet, only a few broadcast frames a second
  // through eth0 and a little TCP of its own (ssh, a config agent). Before, any packet
  // on a watched interface made this a "passed" soak.
  testing::TempDir tmp;
  Node node(tmp.path);
  node.packets_per_s = 5;
  node.segs_per_s = 10;
  NodeClock clock(node);
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  auto r = soak_group(*root, clock, options(), [] { return Status(Ok{}); });
  REQUIRE(r.ok());
  CHECK_FALSE(r->traffic);
  CHECK_FALSE(r->tripped);
  CHECK(r->json["decision"] == "no_traffic");
  CHECK(r->note.find("undecided") != std::string::npos);
  CHECK(r->json["min_traffic"]["packets"] == 3000);  // 100 per second of a 30 s window
  // 5 a second each way, received and sent: 300 in the window.
  CHECK(r->json["windows"]["before"]["interfaces"]["eth0"]["packets"] == 300);

  // The same node under load: 200 packets a second is traffic, and the soak judges it.
  node.packets_per_s = 200;
  auto busy = soak_group(*root, clock, options(), [] { return Status(Ok{}); });
  REQUIRE(busy.ok());
  CHECK(busy->traffic);
  CHECK(busy->json["decision"] == "passed");

  // A link that starts flapping after the write is evidence with or without traffic.
  node.packets_per_s = 5;
  auto flapping = soak_group(*root, clock, options(), [&]() -> Status {
    node.flaps_per_s = 0.5;
    return Ok{};
  });
  REQUIRE(flapping.ok());
  CHECK_FALSE(flapping->traffic);
  CHECK(flapping->tripped);
  CHECK(flapping->json["decision"] == "tripped");
}

TEST_CASE("soak: a window of 0 writes and samples nothing; errors are returned") {
  testing::TempDir tmp;
  Node node(tmp.path);
  NodeClock clock(node);
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  int writes = 0;
  auto r = soak_group(*root, clock, options(std::chrono::milliseconds(0)), [&]() -> Status {
    ++writes;
    return Ok{};
  });
  REQUIRE(r.ok());
  CHECK(writes == 1);
  CHECK_FALSE(r->ran);
  CHECK(clock.slept_.count() == 0);
  CHECK(r->json.is_null());

  auto failed =
      soak_group(*root, clock, options(), [] { return Status(Error::io("EPERM", "sysctl:t.x")); });
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().what == "EPERM");

  // An interface that vanished is an error, not "no drops".
  SoakOptions gone = options();
  gone.interfaces = {"eth9"};
  auto missing = soak_group(*root, clock, gone, [] { return Status(Ok{}); });
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().what.find("eth9") != std::string::npos);
}

TEST_CASE("soak: the link-flap prior is read from the uptime and each NIC's carrier changes") {
  testing::TempDir tmp;
  Node node(tmp.path);
  testing::write_file(node.path + "/proc/uptime", "3600.50 7100.20\n");
  auto root = Root::open(node.path);
  REQUIRE(root.ok());
  auto prior = read_flap_prior(*root, {"eth0"});
  REQUIRE(prior.ok());
  REQUIRE(prior->count("eth0"));
  CHECK(prior->at("eth0").events == 2);
  CHECK(prior->at("eth0").seconds == doctest::Approx(3600.5));
  // A NIC that is not there: no prior at all, not an error (the trials alone judge).
  auto gone = read_flap_prior(*root, {"eth0", "eth9"});
  REQUIRE(gone.ok());
  CHECK(gone->empty());
  // An uptime that is not one is an error naming the file.
  testing::write_file(node.path + "/proc/uptime", "soon\n");
  auto bad = read_flap_prior(*root, {"eth0"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().where == "proc/uptime");
}
