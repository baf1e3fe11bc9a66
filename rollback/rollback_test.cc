#include "rollback/rollback.h"

#include <doctest/doctest.h>

#include <map>

#include "rollback/fake_machine_test.h"
#include "rollback/state.h"
#include "tests/support/temp_dir.h"

using namespace tuner;
using testing::factory;
using testing::FakeMachine;

namespace {

JournalRecord rec(RecordType t, std::string knob = "", std::string before = "",
                  std::string after = "") {
  JournalRecord r;
  r.type = t;
  r.knob = std::move(knob);
  r.group = "sysctl";
  r.before = std::move(before);
  r.after = std::move(after);
  return r;
}

/// Writes run id's journal: a begin (kind apply, profile "p"), then records.
void write_run(const StateDir& sd, const std::string& id, std::vector<JournalRecord> records) {
  auto j = Journal::create(sd, id);
  REQUIRE(j.ok());
  JournalRecord b = rec(RecordType::begin);
  b.kind = RunKind::apply;
  b.profiles = {"p"};
  records.insert(records.begin(), b);
  REQUIRE(j->append(records).ok());
}

}  // namespace

TEST_CASE("rollback: newest first, each knob back to its first before") {
  JournalText j;
  j.records = {rec(RecordType::begin),
               rec(RecordType::intent, "sysctl:a.x", "1", "2"),
               rec(RecordType::done, "sysctl:a.x"),
               rec(RecordType::intent, "sysctl:a.y", "10", "20"),
               rec(RecordType::intent, "sysctl:a.x", "2", "3"),  // no done: crashed
               rec(RecordType::intent, "irq:57:affinity", "0-7", "3")};
  JournalRecord refused = rec(RecordType::failed, "irq:57:affinity");
  refused.refused = true;
  j.records.push_back(refused);
  auto steps = restore_steps(j);
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].knob == "sysctl:a.x");
  CHECK(steps[0].value == "1");
  CHECK(steps[0].changed == "3");
  CHECK(steps[1].knob == "sysctl:a.y");
  CHECK(steps[1].value == "10");
  CHECK(summarize_run("r", j).status == RunStatus::unfinished);
}

TEST_CASE("rollback: from the journal alone, failures reported, state updated") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  std::string id = "20261129T173000Z-0001";
  write_run(*sd, id,
            {rec(RecordType::intent, "sysctl:a.x", "1", "2"), rec(RecordType::done, "sysctl:a.x"),
             rec(RecordType::intent, "sysctl:a.y", "10", "20")});
  State st;
  st.knobs["sysctl:a.x"] = {"2", "1", id, "sysctl", {}};
  st.knobs["sysctl:t.other"] = {"5", "4", "20261128T000000Z-0000", "sysctl", {}};
  REQUIRE(save_state(*sd, st).ok());

  auto unfinished = find_unfinished_run(*sd);
  REQUIRE(unfinished.ok());
  REQUIRE(unfinished->has_value());
  CHECK((*unfinished)->run_id == id);

  FakeMachine m;
  m.values = {{"sysctl:a.x", "2"}, {"sysctl:a.y", "20"}};
  m.fail.emplace("sysctl:a.y=10", errno_error("cannot write", "/proc/sys/a/y", EACCES));
  auto report = rollback_run(*sd, id, factory(m));
  REQUIRE(report.ok());
  CHECK(m.log == std::vector<std::string>{"sysctl:a.y=10", "sysctl:a.x=1"});
  REQUIRE(report->errors.size() == 1);
  CHECK(report->errors[0].message.find("sysctl:a.y") != std::string::npos);
  CHECK(report->errors[0].knob == "sysctl:a.y");
  CHECK(report->errors[0].message.find("Permission denied") != std::string::npos);

  auto after = load_state(*sd);
  REQUIRE(after.ok());
  CHECK(after->knobs.count("sysctl:a.x") == 0);  // restored: no longer kept
  CHECK(after->knobs.count("sysctl:t.other") == 1);

  // One knob failed: the run still needs attention, and apply keeps refusing.
  auto text = read_journal(*sd, id);
  REQUIRE(text.ok());
  CHECK(summarize_run(id, *text).status == RunStatus::rollback_failed);
  CHECK(summarize_run(id, *text).unfinished());

  // A second try that succeeds finishes it (a.x is back already: not written again);
  // a third is refused.
  m.fail.clear();
  m.log.clear();
  REQUIRE(rollback_run(*sd, id, factory(m)).ok());
  CHECK(m.log == std::vector<std::string>{"sysctl:a.y=10"});
  text = read_journal(*sd, id);
  CHECK(summarize_run(id, *text).status == RunStatus::rolled_back);
  CHECK_FALSE(rollback_run(*sd, id, factory(m)).ok());
  auto none = find_unfinished_run(*sd);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
}

TEST_CASE("rollback: a restore the kernel refuses is tried again after the others") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  std::string id = "20261129T173000Z-0002";
  write_run(*sd, id,
            {rec(RecordType::intent, "cpu:policy0:governor", "powersave", "performance"),
             rec(RecordType::done, "cpu:policy0:governor"),
             rec(RecordType::intent, "cpu:policy0:epp", "balance_performance", "performance"),
             rec(RecordType::done, "cpu:policy0:epp"),
             rec(RecordType::intent, "sysctl:a.x", "1", "2"), rec(RecordType::done, "sysctl:a.x")});
  // intel_pstate: no preference but performance under the performance governor.
  FakeMachine m;
  m.values = {{"cpu:policy0:governor", "performance"},
              {"cpu:policy0:epp", "performance"},
              {"sysctl:a.x", "2"}};
  m.refuse = [&m](const std::string& knob, const std::string& value) -> std::optional<Error> {
    if (knob == "cpu:policy0:epp" && value != "performance" &&
        m.values["cpu:policy0:governor"] == "performance")
      return Error::refused("busy under the performance governor", knob, EBUSY);
    return std::nullopt;
  };
  auto report = rollback_run(*sd, id, factory(m));
  REQUIRE(report.ok());
  CHECK(report->errors.empty());
  CHECK(m.log == std::vector<std::string>{"sysctl:a.x=1", "cpu:policy0:epp=balance_performance",
                                          "cpu:policy0:governor=powersave",
                                          "cpu:policy0:epp=balance_performance"});
  CHECK(m.values["cpu:policy0:epp"] == "balance_performance");
  auto text = read_journal(*sd, id);
  REQUIRE(text.ok());
  CHECK(summarize_run(id, *text).status == RunStatus::rolled_back);
  CHECK(summarize_run(id, *text).restored == 3);

  // Refused again on the second try: reported like any failure.
  m.log.clear();
  std::string id2 = "20261129T173000Z-0003";
  write_run(*sd, id2, {rec(RecordType::intent, "cpu:policy0:epp", "power", "performance")});
  m.values["cpu:policy0:governor"] = "performance";
  m.values["cpu:policy0:epp"] = "performance";
  report = rollback_run(*sd, id2, factory(m));
  REQUIRE(report.ok());
  CHECK(m.log.size() == 2);
  REQUIRE(report->errors.size() == 1);
  CHECK(report->errors[0].message.find("busy under the performance governor") != std::string::npos);
}

TEST_CASE("rollback: abandon marks an unfinished run and only that") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  std::string id = "20261129T173000Z-0002";
  {
    auto j = Journal::create(*sd, id);
    REQUIRE(j.ok());
    REQUIRE(
        j->append({rec(RecordType::begin), rec(RecordType::intent, "sysctl:a.x", "1", "2")}).ok());
  }
  REQUIRE(abandon_run(*sd, id).ok());
  auto text = read_journal(*sd, id);
  CHECK(summarize_run(id, *text).status == RunStatus::abandoned);
  CHECK_FALSE(abandon_run(*sd, id).ok());
}
