// The node's own earlier verdicts, as `tuner plan` marks them (rejected_here): only the
// newest decision on exactly the planned changes, from exactly the current values, and
// only a rollback by this node's verify loop.
#include "tuner/verify/earlier_verdicts.h"

#include <doctest/doctest.h>

#include "rollback/journal.h"
#include "tests/support/temp_dir.h"

using namespace tuner;
using namespace tuner::verify;

namespace {

struct Group {
  std::string name;
  std::vector<std::tuple<std::string, std::string, std::string>> intents;  // knob, before, after
  GroupDecision decision;
  std::string outcome;
};

JournalRecord rec(RecordType type) {
  JournalRecord r;
  r.type = type;
  return r;
}

/// Writes a run's journal: begin, each group's intents and decision, and an end unless
/// unfinished.
std::string run(const StateDir& dir, const std::vector<Group>& groups, bool finished = true,
                RunKind kind = RunKind::apply) {
  std::string id = new_run_id(dir);
  auto j = Journal::create(dir, id);
  REQUIRE(j.ok());
  std::vector<JournalRecord> records;
  JournalRecord begin = rec(RecordType::begin);
  begin.run_id = id;
  begin.kind = kind;
  begin.time = "2026-12-07T10:00:00Z";
  records.push_back(begin);
  for (const Group& g : groups) {
    for (const auto& [knob, before, after] : g.intents) {
      JournalRecord r = rec(RecordType::intent);
      r.knob = knob, r.group = g.name, r.before = before, r.after = after;
      records.push_back(r);
    }
    JournalRecord d = rec(RecordType::decision);
    d.group = g.name;
    d.decision = g.decision;
    d.stats = {{"outcome", g.outcome}};
    records.push_back(d);
  }
  if (finished) {
    JournalRecord end = rec(RecordType::end);
    end.end_status = RunStatus::finished;
    records.push_back(end);
  }
  REQUIRE(j->append(records).ok());
  return id;
}

Plan plan_of(const std::vector<std::tuple<std::string, std::string, std::string, std::string>>& c) {
  Plan p;
  for (const auto& [knob, group, current, desired] : c) {
    p.changes.push_back({knob, group, current, desired, ""});
    if (p.groups.empty() || p.groups.back().name != group) {
      PlanGroup g;
      g.name = group;
      p.groups.push_back(g);
    }
  }
  return p;
}

const Group harm{
    "sysctl", {{"sysctl:net.core.somaxconn", "4096", "7096"}}, GroupDecision::rolled_back, "harm"};

}  // namespace

TEST_CASE("earlier verdicts: a group rolled back here from these values is marked") {
  testing::TempDir t;
  auto dir = StateDir::open(t.path + "/s", true);
  REQUIRE(dir.ok());
  Plan plan = plan_of({{"sysctl:net.core.somaxconn", "sysctl", "4096", "7096"},
                       {"sysctl:net.ipv4.tcp_keepalive_time", "keepalive", "7200", "7199"}});
  CHECK(rejected_here(*dir, plan).empty());  // no run yet

  std::string id = run(*dir, {harm});
  auto marked = rejected_here(*dir, plan);
  REQUIRE(marked.size() == 1);
  CHECK(marked.at("sysctl").run_id == id);
  CHECK(marked.at("sysctl").outcome == Reason::harm);
  CHECK(marked.at("sysctl").time == "2026-12-07T10:00:00Z");

  SUBCASE("a later run of another profile with the same group name does not hide it") {
    run(*dir, {{"sysctl",
                {{"sysctl:net.ipv4.ip_default_ttl", "64", "63"}},
                GroupDecision::kept,
                "gain"}});
    CHECK(rejected_here(*dir, plan).at("sysctl").run_id == id);
  }
  SUBCASE("a newer decision that kept the same changes settles it") {
    run(*dir,
        {{"sysctl", {{"sysctl:net.core.somaxconn", "4096", "7096"}}, GroupDecision::kept, "gain"}});
    CHECK(rejected_here(*dir, plan).empty());
  }
  SUBCASE("an unfinished run or a restore decides nothing") {
    run(*dir,
        {{"sysctl", {{"sysctl:net.core.somaxconn", "4096", "7096"}}, GroupDecision::kept, "gain"}},
        false);
    run(*dir,
        {{"sysctl",
          {{"sysctl:net.core.somaxconn", "4096", "7096"}},
          GroupDecision::applied,
          "gain"}},
        true, RunKind::restore);
    CHECK(rejected_here(*dir, plan).at("sysctl").run_id == id);
  }
}

TEST_CASE("earlier verdicts: other changes, another start or a class's verdict are not marked") {
  testing::TempDir t;
  auto dir = StateDir::open(t.path + "/s", true);
  REQUIRE(dir.ok());
  run(*dir, {harm});
  // Someone changed the value since: the rejection was of another start.
  CHECK(rejected_here(*dir, plan_of({{"sysctl:net.core.somaxconn", "sysctl", "5000", "7096"}}))
            .empty());
  // The profile asks for another value, or for one knob more.
  CHECK(rejected_here(*dir, plan_of({{"sysctl:net.core.somaxconn", "sysctl", "4096", "8192"}}))
            .empty());
  CHECK(rejected_here(*dir, plan_of({{"sysctl:net.core.somaxconn", "sysctl", "4096", "7096"},
                                     {"sysctl:net.core.netdev_budget", "sysctl", "300", "600"}}))
            .empty());
  // A current value the plan could not read matches nothing.
  Plan unknown = plan_of({{"sysctl:net.core.somaxconn", "sysctl", "4096", "7096"}});
  unknown.changes[0].current.reset();
  CHECK(rejected_here(*dir, unknown).empty());

  testing::TempDir t2;
  auto dir2 = StateDir::open(t2.path + "/s", true);
  REQUIRE(dir2.ok());
  run(*dir2, {{"sysctl",
               {{"sysctl:net.core.somaxconn", "4096", "7096"}},
               GroupDecision::rolled_back,
               "class_rolled_back"}});
  CHECK(rejected_here(*dir2, plan_of({{"sysctl:net.core.somaxconn", "sysctl", "4096", "7096"}}))
            .empty());

  // A group that proved a gain and went back because the run failed: a run that does
  // not fail keeps it, so it is no rejection.
  testing::TempDir t3;
  auto dir3 = StateDir::open(t3.path + "/s", true);
  REQUIRE(dir3.ok());
  run(*dir3, {{"sysctl",
               {{"sysctl:net.core.somaxconn", "4096", "7096"}},
               GroupDecision::rolled_back,
               "gain"}});
  CHECK(rejected_here(*dir3, plan_of({{"sysctl:net.core.somaxconn", "sysctl", "4096", "7096"}}))
            .empty());
}
