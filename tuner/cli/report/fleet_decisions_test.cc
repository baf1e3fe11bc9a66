// Class decisions: reading tuner.decision/1 records (well-formed and hostile) and the
// merge rule of docs/fleet-decisions.md on hand-made records.
#include "tuner/cli/report/fleet_decisions.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>

#include "tuner/cli/report/fleet.h"

namespace tuner {
namespace {

using nlohmann::json;

CanaryGroup group(const std::string& name, const std::string& decision,
                  std::optional<double> effect = std::nullopt,
                  std::optional<std::string> chosen = std::nullopt) {
  CanaryGroup g;
  g.name = name;
  g.decision = decision;
  g.reason = decision == "kept" ? "gain" : "no_gain";
  g.chosen = std::move(chosen);
  g.knobs = {{"sysctl:net.core.rmem_max", "16777216"}};
  // A kept gain is measured: +6% unless said, its 95% interval 1.5% below the effect
  // (a standard error near 0.8%, as 40 trials per arm at 3% noise give).
  if (decision == "kept" && !effect) effect = 0.06;
  g.effect = effect;
  g.p = effect ? std::optional<double>(0.001) : std::nullopt;
  if (decision == "kept") {
    g.ci_low = *effect - 0.015;
    g.ci_level = 0.95;
  }
  return g;
}

/// A kept gain with its interval's lower end said.
CanaryGroup gain(const std::string& name, double effect, double ci_low) {
  CanaryGroup g = group(name, "kept", effect);
  g.ci_low = ci_low;
  return g;
}

DecisionRecord record(const std::string& node, std::vector<CanaryGroup> groups,
                      const std::string& digest = "fnv1a64:0123456789abcdef",
                      const std::string& key = "hw-3f9c0a51d2e47b88") {
  DecisionRecord r;
  r.node = node;
  r.source = node + ".decision.json";
  r.time = "2026-12-06T10:00:00Z";
  r.class_key = key;
  r.class_facts = {{"cpu_model", "Xeon"}, {"kernel", "6.1.0-18-amd64"}};
  r.profiles = {"throughput"};
  r.profile_digest = digest;
  r.min_effect = 0.02;
  r.groups = std::move(groups);
  return r;
}

/// The one group of the one class merged (a copy: the merge is often a temporary).
MergedGroup only_group(const std::vector<ClassDecision>& merged) {
  REQUIRE(merged.size() == 1);
  REQUIRE(merged[0].groups.size() == 1);
  return merged[0].groups[0];
}

/// A tuner.decision/1 as docs/fleet-decisions.md shows it.
json decision_doc(const std::string& node) {
  return {{"schema", "tuner.decision/1"},
          {"node", node},
          {"time", "2026-12-06T10:00:00Z"},
          {"run_id", "20261206T100000Z-3f2a"},
          {"tuner_version", "0.9.0"},
          {"class", {{"key", "hw-3f9c0a51d2e47b88"}, {"facts", {{"cpu_model", "Xeon"}}}}},
          {"profile", {{"names", {"throughput"}}, {"digest", "fnv1a64:0123456789abcdef"}}},
          {"false_keep_rate", 0.05},
          {"min_effect", 0.02},
          {"groups",
           {{{"name", "net-buffers"},
             {"decision", "kept"},
             {"reason", "gain"},
             {"seed", 1234},
             {"chosen", nullptr},
             {"knobs", {{"sysctl:net.core.rmem_max", "16777216"}}},
             {"stats",
              {{"outcome", "gain"},
               {"effect", 0.061},
               {"ci", {0.046, 0.077}},
               {"ci_level", 0.95},
               {"scale", "ratio"},
               {"direction", "higher"},
               {"p", 0.001}}}}}}};
}

}  // namespace

TEST_CASE("fleet decisions: two canaries that kept a group make it kept") {
  auto merged = merge_decisions({record("gpu-a02", {group("net-buffers", "kept", 0.058)}),
                                 record("gpu-a01", {group("net-buffers", "kept", 0.061)})});
  const MergedGroup& g = only_group(merged);
  CHECK(g.decision == "kept");
  CHECK(!g.chosen);
  CHECK(g.knobs.at("sysctl:net.core.rmem_max") == "16777216");
  REQUIRE(g.canaries.size() == 2);
  CHECK(g.canaries[0].node == "gpu-a01");  // by node, whatever the order given
  CHECK(g.canaries[0].effect == 0.061);
  CHECK(merged[0].canaries == std::vector<std::string>{"gpu-a01", "gpu-a02"});
  CHECK(merged[0].profiles == std::vector<std::string>{"throughput"});

  json doc = decisions_json(merged, "2026-12-06T11:00:00Z");
  CHECK(doc["schema"] == "tuner.decisions/1");
  CHECK(doc["time"] == "2026-12-06T11:00:00Z");
  const json& c = doc["classes"][0];
  CHECK(c["key"] == "hw-3f9c0a51d2e47b88");
  CHECK(c["facts"]["cpu_model"] == "Xeon");
  CHECK(c["profile_digest"] == "fnv1a64:0123456789abcdef");
  CHECK(c["groups"][0]["decision"] == "kept");
  CHECK(c["groups"][0]["chosen"].is_null());
  CHECK(c["groups"][0]["knobs"]["sysctl:net.core.rmem_max"] == "16777216");
  CHECK(c["groups"][0]["canaries"][1] == json{{"node", "gpu-a02"},
                                              {"decision", "kept"},
                                              {"reason", "gain"},
                                              {"chosen", nullptr},
                                              {"effect", 0.058},
                                              {"p", 0.001},
                                              {"ci_low", 0.058 - 0.015}});
  // The class check that let it through, with what it assumed.
  const json& check = c["groups"][0]["check"];
  CHECK(check["verdict"] == "keep");
  CHECK(check["min_effect"] == 0.02);
  CHECK(check["node_spread"] == 0.015);
  CHECK(check["canary_bias"] == 0.01);
  CHECK(check["df"] == 1);
  CHECK(check["low"].get<double>() > 0.02);
  CHECK(g.why.find("effects compatible") != std::string::npos);
}

TEST_CASE("fleet decisions: two canaries that rolled a group back make it rolled_back") {
  const MergedGroup& g = only_group(merge_decisions(
      {record("a1", {group("irq", "rolled_back")}), record("a2", {group("irq", "rolled_back")})}));
  CHECK(g.decision == "rolled_back");
  CHECK(g.why == "2 canaries rolled it back");
  CHECK(decisions_json(merge_decisions({record("a1", {group("irq", "rolled_back")})}),
                       "t")["classes"][0]["groups"][0]["canaries"][0]["effect"]
            .is_null());
}

TEST_CASE("fleet decisions: one kept, one rolled back: the canaries disagree") {
  auto merged = merge_decisions(
      {record("a1", {group("g", "kept", 0.061)}), record("a2", {group("g", "rolled_back")})});
  const MergedGroup& g = only_group(merged);
  CHECK(g.decision == "disagree");
  CHECK(g.why == "a1 kept it, a2 rolled it back");
  CHECK(decisions_json(merged, "t")["classes"][0]["groups"][0]["chosen"].is_null());
}

TEST_CASE(
    "fleet decisions: a search kept with different values disagrees; the same value is kept") {
  const MergedGroup& differ =
      only_group(merge_decisions({record("a1", {group("ring", "kept", 0.06, "4096")}),
                                  record("a2", {group("ring", "kept", 0.07, "8192")})}));
  CHECK(differ.decision == "disagree");
  CHECK(differ.why == "the canaries chose different values: a1 4096, a2 8192");
  auto same = merge_decisions({record("a1", {group("ring", "kept", 0.06, "4096")}),
                               record("a2", {group("ring", "kept", 0.07, "4096")})});
  CHECK(only_group(same).decision == "kept");
  CHECK(only_group(same).chosen == "4096");
  CHECK(only_group(same).why.starts_with("2 canaries kept it, all chose 4096; effects "
                                         "compatible"));
  CHECK(decisions_json(same, "t")["classes"][0]["groups"][0]["chosen"] == "4096");
  // The spelling is the value: 4096 and 0x1000 differ.
  CHECK(only_group(merge_decisions({record("a1", {group("ring", "kept", 0.06, "4096")}),
                                    record("a2", {group("ring", "kept", 0.07, "0x1000")})}))
            .decision == "disagree");
  // A search rolled back everywhere is rolled back, whatever each tried.
  CHECK(only_group(merge_decisions({record("a1", {group("ring", "rolled_back", {}, "4096")}),
                                    record("a2", {group("ring", "rolled_back", {}, "8192")})}))
            .decision == "rolled_back");
}

TEST_CASE("fleet decisions: a knob two canaries wrote differently is a disagreement") {
  CanaryGroup other = group("net-buffers", "kept", 0.065);
  other.knobs["sysctl:net.core.rmem_max"] = "33554432";
  other.knobs["sysctl:net.core.wmem_max"] = "16777216";
  const MergedGroup& g = only_group(
      merge_decisions({record("a1", {group("net-buffers", "kept", 0.06)}), record("a2", {other})}));
  CHECK(g.decision == "disagree");
  CHECK(g.why == "the canaries wrote sysctl:net.core.rmem_max differently (33554432 on a2)");
  // Knobs one canary wrote and the other did not (it had them already) are not.
  other.knobs["sysctl:net.core.rmem_max"] = "16777216";
  const MergedGroup& union_of = only_group(
      merge_decisions({record("a1", {group("net-buffers", "kept", 0.06)}), record("a2", {other})}));
  CHECK(union_of.decision == "kept");
  CHECK(union_of.knobs.size() == 2);
}

TEST_CASE("fleet decisions: one canary is insufficient, per group") {
  auto merged = merge_decisions({record("a1", {group("g", "kept", 0.06), group("h", "kept")}),
                                 record("a2", {group("g", "kept", 0.065)})});
  REQUIRE(merged.size() == 1);
  REQUIRE(merged[0].groups.size() == 2);
  CHECK(merged[0].groups[0].decision == "kept");
  CHECK(merged[0].groups[1].name == "h");
  CHECK(merged[0].groups[1].decision == "insufficient");
  CHECK(merged[0].groups[1].why == "only a1 decided it; at least 2 canaries must");
  CHECK(only_group(merge_decisions({record("a1", {group("g", "kept")})})).decision ==
        "insufficient");
}

TEST_CASE("fleet decisions: other profiles or another class are separate entries") {
  auto merged = merge_decisions({record("a1", {group("g", "kept")}, "fnv1a64:1"),
                                 record("a2", {group("g", "kept")}, "fnv1a64:2"),
                                 record("b1", {group("g", "kept")}, "fnv1a64:1", "hw-b"),
                                 record("b2", {group("g", "kept")}, "fnv1a64:1", "hw-b")});
  REQUIRE(merged.size() == 3);
  CHECK(merged[0].profile_digest == "fnv1a64:1");
  CHECK(merged[0].groups[0].decision == "insufficient");
  CHECK(merged[1].profile_digest == "fnv1a64:2");
  CHECK(merged[1].groups[0].decision == "insufficient");
  CHECK(merged[2].key == "hw-b");
  CHECK(merged[2].groups[0].decision == "kept");
}

TEST_CASE("fleet decisions: a node's newest record counts, its older ones are named") {
  DecisionRecord old = record("a1", {group("g", "rolled_back")});
  old.time = "2026-12-05T10:00:00Z";
  old.source = "old/a1.decision.json";
  std::vector<DecisionRecord> records{record("a1", {group("g", "kept")}), old,
                                      record("a2", {group("g", "kept")})};
  std::vector<OlderRecords> older;
  auto merged = merge_decisions(records, &older);
  CHECK(only_group(merged).decision == "kept");
  CHECK(only_group(merged).canaries.size() == 2);
  REQUIRE(older.size() == 1);
  CHECK(older[0].node == "a1");
  CHECK(older[0].used == "a1.decision.json");
  CHECK(older[0].ignored == std::vector<std::string>{"old/a1.decision.json"});
  // Any order gives the same answer.
  std::reverse(records.begin(), records.end());
  CHECK(decisions_json(merge_decisions(records), "t") == decisions_json(merged, "t"));
}

TEST_CASE("fleet decisions: a tuner.decision/1 is read as docs/fleet-decisions.md shows it") {
  auto r = read_node_report(decision_doc("gpu-a01"), "reports/x.json");
  REQUIRE(r.ok());
  CHECK(r->kind == "decision");
  CHECK(r->node == "gpu-a01");  // the record's own name, the file's being no NODE.*.json
  CHECK(r->class_key == "hw-3f9c0a51d2e47b88");
  REQUIRE(r->record);
  CHECK(r->record->node == "gpu-a01");
  CHECK(r->record->profile_digest == "fnv1a64:0123456789abcdef");
  REQUIRE(r->record->groups.size() == 1);
  const CanaryGroup& g = r->record->groups[0];
  CHECK(g.decision == "kept");
  CHECK(g.reason == "gain");
  CHECK(g.effect == 0.061);
  CHECK(g.p == 0.001);
  CHECK(g.ci_low == 0.046);
  CHECK(g.ci_level == 0.95);
  CHECK(g.scale == verify::Scale::ratio);
  CHECK_FALSE(g.lower_is_better);
  CHECK(r->record->min_effect == 0.02);
  CHECK(g.knobs.at("sysctl:net.core.rmem_max") == "16777216");
  // The playbook's file name names the node, as for every other document.
  auto named = read_node_report(decision_doc("gpu-a01"), "reports/a01.decision.json");
  REQUIRE(named.ok());
  CHECK(named->node == "a01");
  CHECK(named->record->node == "a01");
  // A decision of a newer tuner is not guessed at.
  json newer = decision_doc("n");
  newer["schema"] = "tuner.decision/2";
  auto refused = read_node_report(newer, "n.json");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message().find("newer than this tuner reads") != std::string::npos);
}

TEST_CASE("fleet decisions: a malformed record is refused with why, never cut or guessed") {
  auto refused = [](const std::function<void(json&)>& spoil) {
    json doc = decision_doc("n");
    spoil(doc);
    auto r = read_node_report(doc, "n.decision.json");
    return r.ok() ? std::string() : r.error().message();
  };
  CHECK(refused([](json&) {}).empty());
  CHECK(refused([](json& d) { d.erase("class"); }).find("without \"class\"") != std::string::npos);
  CHECK(refused([](json& d) { d["class"] = "hw-1"; }).find("without \"class\"") !=
        std::string::npos);
  CHECK(refused([](json& d) { d["class"]["key"] = 7; }).find("class.key is not a string") !=
        std::string::npos);
  CHECK(refused([](json& d) { d["class"]["key"] = ""; }).find("class.key is empty") !=
        std::string::npos);
  CHECK(refused([](json& d) {
          d["class"]["key"] = "hw-3F9C0A51D2E47B88";
        }).find("is not a class key") != std::string::npos);
  CHECK(refused([](json& d) { d["class"]["key"] = "hw-3f9c\nline"; }).find("is not a class key") !=
        std::string::npos);
  CHECK(refused([](json& d) {
          d["class"]["facts"] = {{"kernel", 6}};
        }).find("not a string") != std::string::npos);
  CHECK(refused([](json& d) { d.erase("profile"); }).find("without \"profile\"") !=
        std::string::npos);
  CHECK(refused([](json& d) { d["profile"].erase("digest"); }).find("has no \"digest\"") !=
        std::string::npos);
  CHECK(refused([](json& d) { d["profile"]["names"] = {1}; }).find("profile.names") !=
        std::string::npos);
  CHECK(refused([](json& d) { d["groups"] = json::object(); }).find("without \"groups\"") !=
        std::string::npos);
  CHECK(refused([](json& d) { d["groups"][0] = 5; }).find("groups[0] is not an object") !=
        std::string::npos);
  CHECK(refused([](json& d) {
          d["groups"][0]["decision"] = "applied";
        }).find("kept or rolled_back") != std::string::npos);
  CHECK(refused([](json& d) { d["groups"][0].erase("name"); }).find("groups[0] has no \"name\"") !=
        std::string::npos);
  CHECK(refused([](json& d) {
          d["groups"][0]["chosen"] = {{"a", 1}};
        }).find("chosen is not a value") != std::string::npos);
  CHECK(refused([](json& d) {
          d["groups"][0]["chosen"] = 4096;
        }).find("chosen is not a value as the profile spells it") != std::string::npos);
  CHECK(refused([](json& d) {
          d["groups"][0]["knobs"] = {{"sysctl:x", 1}};
        }).find("not a string") != std::string::npos);
  CHECK(refused([](json& d) {
          d["groups"][0]["knobs"]["sysctl:x"] = std::string(5000, 'v');
        }).find("past 4096 bytes") != std::string::npos);
  CHECK(refused([](json& d) {
          d["groups"][0]["name"] = std::string(5000, 'n');
        }).find("is never cut") != std::string::npos);
  CHECK(refused([](json& d) {
          d["groups"][0]["name"] = std::string(65, 'n');
        }).find("groups[0]: group name must be 1 to 64 characters") != std::string::npos);
  CHECK(refused([](json& d) {
          d["groups"][0]["name"] = "net\nbuffers";
        }).find("only [A-Za-z0-9_-] are allowed") != std::string::npos);
  CHECK(refused([](json& d) { d["node"] = 17; }).find("the record.node is not a string") !=
        std::string::npos);
  CHECK(refused([](json& d) { d["groups"].push_back(d["groups"][0]); }).find("decided twice") !=
        std::string::npos);
  CHECK(refused([](json& d) {
          json g = d["groups"][0];
          d["groups"] = json::array();
          for (int i = 0; i < 300; ++i) {
            g["name"] = "g" + std::to_string(i);
            d["groups"].push_back(g);
          }
        }).find("300 groups, past 256") != std::string::npos);
  // Stats of the wrong shape hold no numbers; the record still counts.
  json odd = decision_doc("n");
  odd["groups"][0]["stats"] = {{"effect", "big"}, {"p", nullptr}};
  odd["groups"][0].erase("reason");
  auto r = read_node_report(odd, "n.decision.json");
  REQUIRE(r.ok());
  CHECK(!r->record->groups[0].effect);
  CHECK(r->record->groups[0].reason.empty());
  odd["groups"][0]["stats"] = "x";
  CHECK(read_node_report(odd, "n.decision.json").ok());
}

// Issue 40: canaries that kept a group must agree for the same reason.
TEST_CASE("fleet decisions: kept by sizes too different for node spread needs a third canary") {
  // +3% and +20%, each tight: both kept on their own, as two agreeing canaries were kept
  // before the class check.
  MergedGroup g = only_group(merge_decisions(
      {record("a1", {gain("g", 0.03, 0.022)}), record("a2", {gain("g", 0.20, 0.18)})}));
  CHECK(g.decision == "needs_canary");
  REQUIRE(g.check);
  CHECK(g.check->result.verdict == verify::ClassCheck::heterogeneous);
  CHECK(g.check->result.q_p < 0.05);
  CHECK(g.why.find("a third canary decides") != std::string::npos);
  CHECK(g.why.find("a1 +3.0%, a2 +20.0%") != std::string::npos);
  CHECK(!g.chosen);
  json doc = decisions_json(merge_decisions({record("a1", {gain("g", 0.03, 0.022)}),
                                             record("a2", {gain("g", 0.20, 0.18)})}),
                            "t");
  CHECK(doc["classes"][0]["groups"][0]["decision"] == "needs_canary");
  CHECK(doc["classes"][0]["groups"][0]["check"]["verdict"] == "heterogeneous");
  // With a third canary that is heterogeneous too, the class disagrees.
  MergedGroup three = only_group(merge_decisions({record("a1", {gain("g", 0.03, 0.022)}),
                                                  record("a2", {gain("g", 0.20, 0.18)}),
                                                  record("a3", {gain("g", 0.04, 0.03)})}));
  CHECK(three.decision == "disagree");
  CHECK(three.check->result.df == 2);
  // A third canary in line with one of them, a spread it explains: kept.
  MergedGroup settled = only_group(
      merge_decisions({record("a1", {gain("g", 0.07, 0.06)}), record("a2", {gain("g", 0.08, 0.07)}),
                       record("a3", {gain("g", 0.075, 0.065)})}));
  CHECK(settled.decision == "kept");
}

TEST_CASE("fleet decisions: kept gains whose pooled bound has no margin are not reused") {
  // +3% on both, tight intervals: each canary cleared min_effect 2% on its own, but the
  // class's bound, widened by node spread and a shared bias, does not.
  MergedGroup g = only_group(merge_decisions(
      {record("a1", {gain("g", 0.03, 0.025)}), record("a2", {gain("g", 0.031, 0.026)})}));
  CHECK(g.decision == "insufficient");
  REQUIRE(g.check);
  CHECK(g.check->result.verdict == verify::ClassCheck::no_margin);
  CHECK(g.check->result.low < 0.02);
  CHECK(g.why.find("finds no margin") != std::string::npos);
  CHECK(g.why.find("node spread 1.5%") != std::string::npos);
  // Without the spread and bias, the same canaries would clear it.
  verify::ClassCheckConfig none;
  none.node_spread = none.canary_bias = 0;
  CHECK(only_group(merge_decisions({record("a1", {gain("g", 0.03, 0.025)}),
                                    record("a2", {gain("g", 0.031, 0.026)})},
                                   nullptr, none))
            .decision == "kept");
}

TEST_CASE("fleet decisions: a kept gain without its interval or min_effect is not reused") {
  CanaryGroup bare = group("g", "kept", 0.10);
  bare.ci_low.reset();
  MergedGroup g =
      only_group(merge_decisions({record("a1", {group("g", "kept", 0.10)}), record("a2", {bare})}));
  CHECK(g.decision == "insufficient");
  CHECK(g.why.find("a2's record has no effect interval") != std::string::npos);
  DecisionRecord old = record("a2", {group("g", "kept", 0.10)});
  old.min_effect.reset();
  MergedGroup no_min = only_group(merge_decisions({record("a1", {group("g", "kept", 0.10)}), old}));
  CHECK(no_min.decision == "insufficient");
  CHECK(no_min.why.find("no min_effect") != std::string::npos);
  // A neutral keep is no gain claim: the check does not apply, agreement keeps it.
  CanaryGroup n1 = group("g", "kept"), n2 = group("g", "kept");
  n1.reason = n2.reason = "neutral_kept";
  n1.effect = n2.effect = 0.001;
  MergedGroup neutral = only_group(merge_decisions({record("a1", {n1}), record("a2", {n2})}));
  CHECK(neutral.decision == "kept");
  CHECK(!neutral.check);
}

TEST_CASE("fleet decisions: the class check reads min_effect and the scale from the record") {
  json doc = decision_doc("a1");
  doc["groups"][0]["stats"]["scale"] = "sideways";
  auto bad = read_node_report(doc, "a1.decision.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message().find("not ratio or difference") != std::string::npos);
  doc = decision_doc("a1");
  doc["groups"][0]["stats"]["direction"] = "lower";
  auto lower = read_node_report(doc, "a1.decision.json");
  REQUIRE(lower.ok());
  CHECK(lower->record->groups[0].lower_is_better);
  // Two records as apply writes them merge into a kept group with its check.
  auto a = read_node_report(decision_doc("a1"), "a1.json");
  auto b = read_node_report(decision_doc("a2"), "a2.json");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  MergedGroup g = only_group(merge_decisions({*a->record, *b->record}));
  CHECK(g.decision == "kept");
  REQUIRE(g.check);
  CHECK(g.check->config.min_effect == 0.02);
}

// Issue 41: a canary is who its record says it is, not the file it arrived in.
TEST_CASE("fleet decisions: one record under two names is one canary, and said so") {
  json doc = decision_doc("gpu-a01.example");
  doc["identity"] = {{"machine_id", "0123456789abcdef0123456789abcdef"},
                     {"hostname", "gpu-a01.example"}};
  auto alias = read_node_report(doc, "reports/a01.decision.json");
  auto fqdn = read_node_report(doc, "reports/gpu-a01.example.decision.json");
  REQUIRE(alias.ok());
  REQUIRE(fqdn.ok());
  CHECK(alias->record->machine_id == "0123456789abcdef0123456789abcdef");
  CHECK(alias->record->hostname == "gpu-a01.example");
  std::vector<OlderRecords> older;
  auto merged = merge_decisions({*alias->record, *fqdn->record}, &older);
  REQUIRE(merged.size() == 1);
  CHECK(merged[0].canaries.size() == 1);
  CHECK(only_group(merged).decision == "insufficient");
  REQUIRE(older.size() == 1);
  CHECK(older[0].names == std::vector<std::string>{"a01", "gpu-a01.example"});
  // A second machine makes two canaries.
  json other = decision_doc("gpu-a02.example");
  other["identity"] = {{"machine_id", "fedcba9876543210fedcba9876543210"},
                       {"hostname", "gpu-a02.example"}};
  auto a02 = read_node_report(other, "reports/a02.decision.json");
  REQUIRE(a02.ok());
  auto two = merge_decisions({*alias->record, *fqdn->record, *a02->record});
  CHECK(two[0].canaries.size() == 2);
  CHECK(only_group(two).decision == "kept");
  // Without an identity block (an older tuner) the record's own hostname is the node.
  json old_doc = decision_doc("gpu-a01.example");
  auto old1 = read_node_report(old_doc, "x/a01.decision.json");
  auto old2 = read_node_report(old_doc, "x/gpu-a01.decision.json");
  REQUIRE(old1.ok());
  REQUIRE(old2.ok());
  CHECK(merge_decisions({*old1->record, *old2->record})[0].canaries.size() == 1);
  // One image cloned (one machine-id) under two hostnames: two nodes.
  json clone = doc;
  clone["identity"]["hostname"] = "gpu-a03.example";
  auto a03 = read_node_report(clone, "reports/a03.decision.json");
  REQUIRE(a03.ok());
  CHECK(merge_decisions({*alias->record, *a03->record})[0].canaries.size() == 2);
  // A malformed identity is refused.
  json bad = doc;
  bad["identity"] = "me";
  CHECK_FALSE(read_node_report(bad, "b.decision.json").ok());
}

// Issue 41: a keep with no measurement is no evidence for the class.
TEST_CASE("fleet decisions: canaries that kept a group unmeasured make it unmeasured") {
  CanaryGroup u1 = group("nic", "kept"), u2 = group("nic", "kept");
  u1.reason = u2.reason = "not_measurable_kept";
  u1.effect = u2.effect = u1.ci_low = u2.ci_low = std::nullopt;
  MergedGroup g = only_group(merge_decisions({record("a1", {u1}), record("a2", {u2})}));
  CHECK(g.decision == "unmeasured");
  CHECK(g.why.find("a1, a2 kept it with no measurement") != std::string::npos);
  CHECK(!g.check);
  // One measured gain does not vouch for the other's unmeasured keep.
  MergedGroup mixed =
      only_group(merge_decisions({record("a1", {group("nic", "kept", 0.10)}), record("a2", {u2})}));
  CHECK(mixed.decision == "unmeasured");
  CHECK(mixed.why.find("a2 kept it with no measurement") != std::string::npos);
  // Rolled back by one, kept unmeasured by the other: they disagree, as before.
  CHECK(
      only_group(merge_decisions({record("a1", {group("nic", "rolled_back")}), record("a2", {u2})}))
          .decision == "disagree");
  // A soak that saw no workload traffic is no measurement either.
  CanaryGroup q1 = u1, q2 = u2;
  q1.reason = q2.reason = "soak_undecided";
  CHECK(only_group(merge_decisions({record("a1", {q1}), record("a2", {q2})})).decision ==
        "unmeasured");
  json doc = decisions_json(merge_decisions({record("a1", {u1}), record("a2", {u2})}), "t");
  CHECK(doc["classes"][0]["groups"][0]["decision"] == "unmeasured");
  CHECK(doc["classes"][0]["groups"][0]["check"].is_null());
}

}  // namespace tuner
