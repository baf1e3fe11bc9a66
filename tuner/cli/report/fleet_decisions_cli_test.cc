// `tuner report --decisions-out` end to end: canaries' tuner.decision/1 records as apply
// writes them (verify::decision_record_json) merged by the real binary into a
// tuner.decisions/1 that apply --decisions reads back (verify::parse_class_decisions);
// no record, a refused output, hostile records.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "rollback/run_report.h"
#include "tests/support/cli.h"
#include "tests/support/temp_dir.h"
#include "tuner/verify/class_decisions.h"
#include "tuner/verify/decision_record.h"

namespace tuner {
namespace {

using nlohmann::json;
using testing::run_tuner;
using testing::shell_quote;
using testing::TempDir;

constexpr const char* kKey = "hw-3f9c0a51d2e47b88";

/// A canary's record as apply --decisions-out writes it: net-buffers kept (or rolled
/// back), and a value search that chose `ring`.
std::string canary_record(const std::string& node, bool keep, const std::string& ring) {
  RunReport r;
  r.run_id = "20261206T100000Z-3f2a";
  r.time = "2026-12-06T10:00:00Z";
  r.node["hostname"] = node;
  json stats = {{"outcome", keep ? "gain" : "no_gain"},
                {"effect", keep ? 0.061 : -0.01},
                {"ci", {keep ? 0.046 : -0.03, keep ? 0.077 : 0.01}},
                {"ci_level", 0.95},
                {"p", 0.001},
                {"bench", "iperf"},
                {"guards", json::array()}};
  r.groups = {{"net-buffers",
               keep ? GroupDecision::kept : GroupDecision::rolled_back,
               {{"sysctl:net.core.rmem_max", "212992", "16777216", ChangeStatus::applied, ""}},
               stats},
              {"ring",
               GroupDecision::kept,
               {{"nic:eth0:rx-ring", "1024", ring, ChangeStatus::applied, ""}},
               {{"outcome", "gain"},
                {"search", {{"chosen", ring}}},
                {"effect", 0.07},
                {"ci", {0.055, 0.085}},
                {"ci_level", 0.95}}}};
  verify::DecisionRecordFacts facts;
  facts.hw_class = {{"key", kKey}, {"facts", {{"kernel", "6.1.0-18-amd64"}}}};
  facts.profiles = {"throughput"};
  facts.profile_digest = "fnv1a64:0123456789abcdef";
  facts.false_keep_rate = 0.05;
  facts.tuner_version = "0.9.0";
  facts.min_effect = 0.02;
  return verify::decision_record_json(r, facts).dump(2);
}

std::string read_text(const std::string& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("decision record: min_effect and the node's identity are written") {
  json doc = json::parse(canary_record("c1", true, "4096"));
  CHECK(doc["min_effect"] == 0.02);
  CHECK(doc["identity"]["hostname"] == "c1");
  CHECK(doc["identity"]["machine_id"].is_null());  // none given
  // Where the canary started, per knob: a node elsewhere verifies (issue 41).
  CHECK(doc["groups"][0]["before"] == json{{"sysctl:net.core.rmem_max", "212992"}});
  CHECK(doc["groups"][1]["before"] == json{{"nic:eth0:rx-ring", "1024"}});
  TempDir dir;
  dir.write("id", "0123456789abcdef0123456789abcdef\n");
  CHECK(verify::read_machine_id(dir / "id") == "0123456789abcdef0123456789abcdef");
  dir.write("bad", "not an id\n");
  CHECK(verify::read_machine_id(dir / "bad").empty());
  CHECK(verify::read_machine_id(dir / "missing").empty());
}

TEST_CASE("report --decisions-out: apply's records merged into a file apply --decisions reads") {
  TempDir dir;
  dir.write("reports/c1.decision.json", canary_record("c1", true, "4096"));
  dir.write("reports/c2.decision.json", canary_record("c2", true, "8192"));
  const std::string out = dir / "decisions.json";
  auto r = run_tuner("report --color never --decisions-out " + shell_quote(out) + " " +
                     shell_quote(dir / "reports"));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("2 decision records") != std::string::npos);
  CHECK(r.out.find("canaries disagree on group ring: c1 kept 4096 (+7.0%), c2 kept 8192 "
                   "(+7.0%)") != std::string::npos);
  // The kept group's class check, in the text too.
  CHECK(r.out.find("class check: effects compatible") != std::string::npos);
  json doc = json::parse(read_text(out));
  CHECK(doc["schema"] == "tuner.decisions/1");
  const json& g = doc["classes"][0]["groups"];
  CHECK(g[0]["name"] == "net-buffers");
  CHECK(g[0]["decision"] == "kept");
  CHECK(g[0]["knobs"]["sysctl:net.core.rmem_max"] == "16777216");
  CHECK(g[0]["canaries"][0]["effect"] == 0.061);
  CHECK(g[1]["decision"] == "disagree");
  auto parsed = verify::parse_class_decisions(doc, out);
  REQUIRE_MESSAGE(parsed.ok(), parsed.error().message());
  const verify::ClassDecision* c = parsed->find(kKey, "fnv1a64:0123456789abcdef");
  REQUIRE(c);
  CHECK(c->canaries == std::vector<std::string>{"c1", "c2"});
  CHECK(c->groups.at("net-buffers").verdict == verify::ClassVerdict::kept);
  CHECK(c->groups.at("ring").verdict == verify::ClassVerdict::disagree);

  // The same value chosen by both: a kept search, its value for the rest of the class.
  dir.write("reports/c2.decision.json", canary_record("c2", true, "4096"));
  r = run_tuner("report --json --decisions-out " + shell_quote(out) + " " +
                shell_quote(dir / "reports"));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  parsed = verify::parse_class_decisions(json::parse(read_text(out)), out);
  REQUIRE_MESSAGE(parsed.ok(), parsed.error().message());
  CHECK(parsed->classes[0].groups.at("ring").chosen == "4096");
  json fleet = json::parse(r.out);
  CHECK(fleet["classes"][0]["decisions"][0]["groups"][1]["why"].get<std::string>().starts_with(
      "2 canaries kept it, all chose 4096; effects compatible"));
  CHECK(fleet["classes"][0]["decisions"][0]["groups"][1]["check"]["verdict"] == "keep");

  // The merged file kept beside the records (a rollout's directory) is read as what it
  // is: no warning, no node; alone, it is an error that says so.
  std::string copy = dir.write("reports/decisions.json", read_text(out));
  r = run_tuner("report --json " + shell_quote(dir / "reports"));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.err.empty());
  CHECK(json::parse(r.out)["skipped"].empty());
  r = run_tuner("report " + shell_quote(copy));
  CHECK(r.code == 2);
  CHECK(r.err.find("is a merged decision file (tuner.decisions/1), which describes no node") !=
        std::string::npos);
}

TEST_CASE("report --decisions-out: no record, or an output it must not replace: exit 2") {
  TempDir dir;
  dir.write("reports/n1.run.json", R"({"schema": "tuner.run/1", "groups": []})");
  const std::string out = dir / "decisions.json";
  auto r =
      run_tuner("report --decisions-out " + shell_quote(out) + " " + shell_quote(dir / "reports"));
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("--decisions-out: no tuner.decision/1 among the 1 document read") !=
        std::string::npos);
  CHECK(!std::filesystem::exists(out));

  dir.write("reports/c1.decision.json", canary_record("c1", true, "4096"));
  std::filesystem::create_symlink(dir / "elsewhere.json", out);
  r = run_tuner("report --decisions-out " + shell_quote(out) + " " + shell_quote(dir / "reports"));
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("--decisions-out") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "elsewhere.json"));
}

TEST_CASE("report: hostile decision records are skipped and named, the rest merged") {
  TempDir dir;
  dir.write("r/c1.decision.json", canary_record("c1", true, "4096"));
  dir.write("r/c2.decision.json", canary_record("c2", true, "4096"));
  json base = json::parse(canary_record("c3", true, "4096"));
  // Padding that the summary never reads costs no memory and changes nothing.
  json padded = json::parse(canary_record("c4", true, "4096"));
  padded["groups"][0]["stats"]["trials"] = json::array();
  for (int i = 0; i < 2000; ++i) padded["groups"][0]["stats"]["trials"].push_back(i);
  dir.write("r/c4.decision.json", padded.dump());
  json many = base;
  for (int i = 0; i < 5000; ++i) many["groups"][0]["knobs"][fmt::format("sysctl:k{}", i)] = "1";
  dir.write("r/many.decision.json", many.dump());
  json wrong = base;
  wrong["groups"][0]["decision"] = "applied";
  dir.write("r/wrong.decision.json", wrong.dump());
  dir.write("r/cut.decision.json", base.dump().substr(0, 100));
  auto r = run_tuner("report --json --color never " + shell_quote(dir / "r"));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  json fleet = json::parse(r.out);
  CHECK(fleet["decision_records"] == 3);
  CHECK(fleet["skipped"].size() == 3);
  CHECK(r.err.find("many.decision.json: a tuner.decision/1 with more than 4096 knobs") !=
        std::string::npos);
  CHECK(r.err.find("wrong.decision.json: groups[0].decision is \"applied\"") != std::string::npos);
  CHECK(r.err.find("cut.decision.json: not JSON") != std::string::npos);
  const json& groups = fleet["classes"][0]["decisions"][0]["groups"];
  INFO(groups[0].dump());
  CHECK(groups[0]["decision"] == "kept");
  CHECK(groups[0]["canaries"].size() == 3);
}

}  // namespace tuner
