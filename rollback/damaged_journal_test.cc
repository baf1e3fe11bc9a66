// A damaged journal costs only what the damaged line held (issue #10): every line of a
// real journal is damaged in turn (cut short, garbage, a field of the wrong type), and
// each time the run is still listed, can still be abandoned, and every knob whose
// intent is intact is restored; a knob whose intent is damaged is reported by
// file:line and never written with a guessed value.
#include <doctest/doctest.h>

#include <map>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "rollback/apply.h"
#include "rollback/fake_machine_test.h"
#include "rollback/rollback.h"
#include "rollback/run_summary.h"
#include "rollback/state.h"
#include "tests/support/temp_dir.h"

using namespace tuner;
using testing::factory;
using testing::FakeMachine;

namespace {

const std::map<std::string, std::string> kBefore = {
    {"sysctl:t.a", "1"}, {"sysctl:t.b", "2"}, {"sysctl:t.c", "3"}, {"sysctl:t.d", "4"}};
const std::map<std::string, std::string> kAfter = {
    {"sysctl:t.a", "10"}, {"sysctl:t.b", "20"}, {"sysctl:t.c", "30"}, {"sysctl:t.d", "40"}};

/// A run that stopped after its second group's writes (no decision, no end): the
/// journal a crash leaves, written by the real apply protocol.
struct Crashed {
  std::vector<std::string> lines;
  std::string run_id, state_json;
};

Crashed crashed_run() {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine m;
  m.values = kBefore;
  Plan p;
  p.profiles = {"test"};
  for (const auto& [knob, after] : kAfter)
    p.changes.push_back({knob, knob < "sysctl:t.c" ? "g1" : "g2", {}, after, ""});
  Crashed out;
  {
    auto run = ApplyRun::prepare(p, *sd, factory(m), {});
    REQUIRE(run.ok());
    REQUIRE(run->begin().ok());
    REQUIRE(run->write_group("g1").ok());
    REQUIRE(run->decide("g1", GroupDecision::applied, nlohmann::json::object()).ok());
    REQUIRE(run->write_group("g2").ok());
    out.run_id = run->report().run_id;
  }
  REQUIRE(m.values == kAfter);
  std::string text = testing::read_text(t.path + "/s/runs/" + out.run_id + ".journal");
  for (std::string_view l : split(text, '\n'))
    if (!l.empty()) out.lines.emplace_back(l);
  out.state_json = testing::read_text(t.path + "/s/state.json");
  return out;
}

/// The line damaged one way: "cut", "garbage" or "type" (a string field made a number).
std::string damage(const std::string& line, const std::string& how) {
  if (how == "cut") return line.substr(0, line.size() / 2);
  if (how == "garbage") return "\x01\xff not a record {";
  nlohmann::json j = nlohmann::json::parse(line);
  for (const char* key : {"before", "knob", "kind", "decision"})
    if (j.contains(key)) {
      j[key] = 12345;
      break;
    }
  return j.dump();
}

/// A state dir holding the crashed run with line `n` (1-based) damaged.
StateDir damaged_dir(const testing::TempDir& t, const Crashed& c, std::size_t n,
                     const std::string& how) {
  std::string text;
  for (std::size_t i = 0; i < c.lines.size(); ++i)
    text += (i + 1 == n ? damage(c.lines[i], how) : c.lines[i]) + "\n";
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  testing::write_file(t.path + "/s/runs/" + c.run_id + ".journal", text);
  testing::write_file(t.path + "/s/state.json", c.state_json);
  return std::move(sd).value();
}

}  // namespace

TEST_CASE("damaged journal: every line damaged in turn costs only that line") {
  Crashed c = crashed_run();
  REQUIRE(c.lines.size() == 10);  // begin, 2 intents, 2 done, decision, 2 intents, 2 done
  for (std::size_t n = 1; n <= c.lines.size(); ++n) {
    for (const std::string& how : std::vector<std::string>{"cut", "garbage", "type"}) {
      nlohmann::json original = nlohmann::json::parse(c.lines[n - 1]);
      bool intent = original["type"] == "intent";
      std::string knob = original.value("knob", "");
      CAPTURE(n);
      CAPTURE(how);
      CAPTURE(c.lines[n - 1]);

      // history: the run is listed, with the damaged line named by file:line.
      testing::TempDir listed;
      StateDir sd = damaged_dir(listed, c, n, how);
      RunSummary s = read_run_summary(sd, c.run_id);
      CHECK(s.error.empty());
      REQUIRE(s.damaged.size() == 1);
      CHECK(s.damaged[0].find(".journal:" + std::to_string(n) + ": damaged record skipped") !=
            std::string::npos);
      CHECK(s.unfinished());
      auto unfinished = find_unfinished_run(sd);
      REQUIRE(unfinished.ok());
      CHECK(unfinished->has_value());

      // rollback --abandon works.
      REQUIRE(abandon_run(sd, c.run_id).ok());
      CHECK(read_run_summary(sd, c.run_id).status == RunStatus::abandoned);

      // rollback: every intact before-value goes back; a lost one is never guessed.
      testing::TempDir undone;
      StateDir sd2 = damaged_dir(undone, c, n, how);
      FakeMachine m;
      m.values = kAfter;
      auto r = rollback_run(sd2, c.run_id, factory(m));
      REQUIRE(r.ok());
      // A line whose type and knob are both unreadable may have hidden an intent: an
      // error, not a warning, since nobody can say that everything is back.
      bool unknown = false;
      std::string line_ref = ".journal:" + std::to_string(n) + ": damaged record skipped";
      for (const RunMessage& e : r->errors)
        if (e.message.find("may not be restored") != std::string::npos) {
          unknown = true;
          CHECK(e.message.find(line_ref) != std::string::npos);
          CHECK(e.where.ends_with(".journal:" + std::to_string(n)));
        }
      if (how == "type") CHECK_FALSE(unknown);
      REQUIRE(r->warnings.size() == (unknown ? 0 : 1));
      if (!unknown) {
        CHECK(r->warnings[0].message.find(line_ref) != std::string::npos);
        CHECK(r->warnings[0].where.ends_with(".journal:" + std::to_string(n)));
      }
      for (const auto& kv : kBefore) {
        const std::string& k = kv.first;  // not a binding: CAPTURE cannot take one
        const std::string& before = kv.second;
        bool lost = intent && k == knob;
        CAPTURE(k);
        CHECK(m.values[k] == (lost ? kAfter.at(k) : before));
        for (const std::string& w : m.log) CHECK((!lost || w.rfind(k + "=", 0) != 0));
      }
      // Each knob's done record names it, so a lost intent is always pinned to its knob.
      CHECK(r->errors.size() == (intent ? 1U : 0U) + (unknown ? 1U : 0U));
      if (intent) {
        bool named = false;
        for (const RunMessage& e : r->errors)
          named |= e.knob == knob &&
                   e.message.find(knob + ": could not restore") != std::string::npos &&
                   e.message.find("before-value is lost") != std::string::npos;
        CHECK(named);
      }
      // Nothing a retry could mend: the run is settled, apply may run again.
      CHECK(read_run_summary(sd2, c.run_id).status == RunStatus::rolled_back);
      auto none = find_unfinished_run(sd2);
      REQUIRE(none.ok());
      CHECK_FALSE(none->has_value());
    }
  }
}

TEST_CASE("journal: a field of the wrong type is a damaged record, never coerced") {
  CHECK_FALSE(
      decode_record(R"({"type":"intent","knob":"sysctl:t.a","before":5,"after":"6"})", "f:1").ok());
  CHECK_FALSE(
      decode_record(R"({"type":"intent","knob":"sysctl:t.a","before":"5","after":null})", "f:1")
          .ok());
  CHECK_FALSE(decode_record(R"({"type":"intent","knob":"sysctl:t.a","before":"5"})", "f:1").ok());
  CHECK_FALSE(
      decode_record(R"({"type":"failed","knob":"sysctl:t.a","refused":"yes"})", "f:1").ok());
  CHECK_FALSE(decode_record(R"({"type":"begin","profiles":["a",1]})", "f:1").ok());
  CHECK_FALSE(decode_record(R"({"type":"begin","pid":"12"})", "f:1").ok());
  CHECK_FALSE(decode_record(R"({"type":"decision","group":"g","stats":[1]})", "f:1").ok());
  CHECK_FALSE(decode_record(R"({"type":7})", "f:1").ok());
  auto bad = decode_record(R"({"type":"done","knob":3})", "runs/x.journal:4");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message() == "runs/x.journal:4: \"knob\" is not a string");
  CHECK(decode_record(R"({"type":"intent","knob":"sysctl:t.a","before":"","after":"6"})", "f:1")
            .ok());
}

TEST_CASE("journal: an end status this version does not know is damage, not finished") {
  for (const char* status : {"finishd", "unfinished", "", "FINISHED"}) {
    CAPTURE(status);
    auto bad = decode_record(fmt::format(R"({{"type":"end","status":"{}"}})", status), "f:3");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message() == fmt::format("f:3: end record with unknown status '{}'", status));
  }
  for (const char* status : {"finished", "rolled_back", "rollback_failed", "abandoned"})
    CHECK(decode_record(fmt::format(R"({{"type":"end","status":"{}"}})", status), "f:3").ok());
  auto text = parse_journal("{\"type\":\"begin\",\"run_id\":\"r\",\"kind\":\"apply\"}\n"
                            "{\"type\":\"end\",\"status\":\"done-ish\"}\n",
                            "runs/r.journal");
  CHECK(text.damaged.size() == 1);
  CHECK(summarize_run("r", text).status == RunStatus::unfinished);
}

TEST_CASE("journal: a kind, decision or rollback status this version does not know is damage") {
  struct Bad {
    const char* line;
    const char* message;
  };
  for (const Bad& b : {
           Bad{R"({"type":"begin","kind":"aply"})", "f:1: begin record with unknown kind 'aply'"},
           Bad{R"({"type":"decision","group":"g","decision":"kept?"})",
               "f:1: decision record with unknown decision 'kept?'"},
           Bad{R"({"type":"decision","group":"g"})",
               "f:1: decision record with unknown decision ''"},
           Bad{R"({"type":"rollback","knob":"sysctl:t.a","after":"1","status":"restord"})",
               "f:1: rollback record with unknown status 'restord'"},
       }) {
    CAPTURE(b.line);
    auto bad = decode_record(b.line, "f:1");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message() == b.message);
  }
  // Each name round-trips through a record, as the enum it is.
  JournalRecord d;
  d.type = RecordType::decision;
  d.group = "g";
  for (GroupDecision g :
       {GroupDecision::applied, GroupDecision::kept, GroupDecision::rolled_back}) {
    d.decision = g;
    CHECK(decode_record(encode_record(d), "f:1")->decision == g);
  }
  JournalRecord b;
  b.kind = RunKind::restore;
  CHECK(encode_record(b).find("\"kind\":\"restore\"") != std::string::npos);
  CHECK(decode_record(encode_record(b), "f:1")->kind == RunKind::restore);
  CHECK(decode_record(R"({"type":"begin"})", "f:1")->kind == RunKind::apply);  // no kind: an apply
}

TEST_CASE("journal: a knob id that does not parse is damage (rebuild never copies it)") {
  for (const char* id : {"nonsense", "sysctl:", "sysctl:../../etc/passwd", "irq:12x:affinity"}) {
    CAPTURE(id);
    auto bad = decode_record(
        fmt::format(R"({{"type":"intent","knob":"{}","before":"1","after":"2"}})", id), "f:2");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message().starts_with("f:2: \"knob\" is not a knob id: "));
  }
  auto text = parse_journal(
      "{\"type\":\"intent\",\"knob\":\"bogus\",\"group\":\"g\",\"before\":\"1\",\"after\":\"2\"}\n",
      "runs/r.journal");
  REQUIRE(text.damaged.size() == 1);
  CHECK(text.damaged[0].knob == "bogus");  // named, so rollback can say its before is lost
}
