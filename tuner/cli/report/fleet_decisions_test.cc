// Class decisions: reading tuner.decision/1 records (well-formed and hostile) and the
// merge rule of docs/fleet-decisions.md on hand-made records.
#include "tuner/cli/report/fleet_decisions.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>

#include "tuner/cli/report/fleet.h"
#include "tuner/cli/report/fleet_decisions_rig_test.h"

namespace tuner {

using namespace fleet_rig;
using nlohmann::json;

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

}  // namespace tuner
