// Changes written after another of the same plan (Change::written_after): a queue's
// mask after the channel change that makes the queue, or whose driver rewrites it.
#include <doctest/doctest.h>

#include "rollback/apply.h"
#include "rollback/fake_machine_test.h"
#include "rollback/journal.h"
#include "tests/support/temp_dir.h"

using namespace tuner;
using testing::factory;
using testing::FakeMachine;

namespace {

const char* const kChannels = "nic:eth0:channels";

/// eth0 with 2 queues; 4 channels make tx-2 and tx-3 (the driver maps tx-3 to CPU 2)
/// and rewrite tx-0's map; 2 channels remove them again.
void set_up(FakeMachine& m) {
  m.values = {{kChannels, "combined=2"}, {"nic:eth0:xps:tx-0", "1"}, {"nic:eth0:xps:tx-1", "none"}};
  m.on_write = [&m](const std::string& id, const std::string& value) {
    if (id != kChannels) return;
    if (value == "combined=4") {
      m.values["nic:eth0:xps:tx-0"] = "0";
      m.values["nic:eth0:xps:tx-2"] = "none";
      m.values["nic:eth0:xps:tx-3"] = "2";
    } else {
      m.values.erase("nic:eth0:xps:tx-2");
      m.values.erase("nic:eth0:xps:tx-3");
    }
  };
}

Plan plan() {
  Plan p;
  p.profiles = {"test"};
  p.changes.push_back({kChannels, "nic", {}, "combined=4", ""});
  for (const auto& [q, mask] : std::vector<std::pair<std::string, std::string>>{
           {"0", "3"}, {"1", "none"}, {"2", "none"}, {"3", "1"}, {"5", "none"}}) {
    Change c{"nic:eth0:xps:tx-" + q, "nic", {}, mask, ""};
    c.written_after = kChannels;
    p.changes.push_back(c);
  }
  return p;
}

}  // namespace

TEST_CASE("apply after: masks of queues a channel change makes are read and written after it") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine live;
  set_up(live);
  auto r = apply_plan(plan(), *sd, factory(live), {});
  REQUIRE_MESSAGE(r.ok(), r.error().message());
  CHECK(r->outcome == ApplyOutcome::applied);
  // tx-0 against the driver's rewritten map; tx-1 and tx-2 are as desired once the
  // channels change; tx-5 does not appear: skipped, not a failure.
  CHECK(live.log == std::vector<std::string>{"nic:eth0:channels=combined=4", "nic:eth0:xps:tx-0=3",
                                             "nic:eth0:xps:tx-3=1"});
  REQUIRE(r->report.groups.size() == 1);
  const auto& changes = r->report.groups[0].changes;
  REQUIRE(changes.size() == 4);
  CHECK(changes[1].knob == "nic:eth0:xps:tx-0");
  CHECK(changes[1].before == "0");
  CHECK(changes[2].before == "2");
  CHECK(changes[3].knob == "nic:eth0:xps:tx-5");
  CHECK(changes[3].status == ChangeStatus::skipped);
  // Each intent is durable before its write, with the value read after the channels.
  auto j = read_journal(*sd, r->report.run_id);
  REQUIRE(j.ok());
  std::vector<std::string> intents;
  for (const auto& rec : j->records)
    if (rec.type == RecordType::intent) intents.push_back(rec.knob + ":" + rec.before);
  CHECK(intents == std::vector<std::string>{"nic:eth0:channels:combined=2", "nic:eth0:xps:tx-0:0",
                                            "nic:eth0:xps:tx-3:2"});
  // Rolled back from the journal alone: masks first, then the channels.
  REQUIRE(rollback_run(*sd, r->report.run_id, factory(live)).ok());
  CHECK(live.values.at(kChannels) == "combined=2");
  CHECK(live.values.at("nic:eth0:xps:tx-0") == "0");
  CHECK(!live.values.contains("nic:eth0:xps:tx-3"));
}

TEST_CASE("apply after: a queue's mask is live only while the channel change is") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine live;
  set_up(live);
  auto run = ApplyRun::prepare(plan(), *sd, factory(live), {});
  REQUIRE_MESSAGE(run.ok(), run.error().message());
  REQUIRE(run->begin().ok());
  REQUIRE(run->write_group("nic").ok());
  // A bisect subset without the channel change: the masks go with it, and no write to a
  // queue that is gone is tried.
  Status s = run->set_live("nic", {"nic:eth0:xps:tx-3"});
  CHECK_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message()));
  CHECK(live.values.at(kChannels) == "combined=2");
  CHECK(!live.values.contains("nic:eth0:xps:tx-3"));
  REQUIRE(run->redo_group("nic").ok());
  CHECK(live.values.at(kChannels) == "combined=4");
  CHECK(live.values.at("nic:eth0:xps:tx-0") == "3");
  CHECK(live.values.at("nic:eth0:xps:tx-3") == "1");
  REQUIRE(run->decide("nic", GroupDecision::applied, {}).ok());
  REQUIRE(run->finish().ok());
}
