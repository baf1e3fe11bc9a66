// Class decisions: the class check (class_pool.h) in the merge, canaries counted by
// identity, unmeasured keeps, and where the canaries started (docs/fleet-decisions.md).
#include <doctest/doctest.h>

#include <string>

#include "tuner/cli/report/fleet.h"
#include "tuner/cli/report/fleet_decisions.h"
#include "tuner/cli/report/fleet_decisions_rig_test.h"

namespace tuner {

using namespace fleet_rig;
using nlohmann::json;

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

// Issue 41: a decision is about where the canaries started.
TEST_CASE("fleet decisions: canaries' before-values travel, and two starts decide nothing") {
  auto from = [](const std::string& node, const std::string& fin) {
    CanaryGroup g = group("fin", "kept");
    g.before.emplace()["sysctl:net.core.rmem_max"] = fin;
    return record(node, {g});
  };
  MergedGroup same = only_group(merge_decisions({from("a1", "212992"), from("a2", "212992")}));
  CHECK(same.decision == "kept");
  REQUIRE(same.before);
  CHECK(same.before->at("sysctl:net.core.rmem_max") == "212992");
  json doc = decisions_json(merge_decisions({from("a1", "212992"), from("a2", "212992")}), "t");
  CHECK(doc["classes"][0]["groups"][0]["before"] == json{{"sysctl:net.core.rmem_max", "212992"}});
  // Two starting points: neither is the class's.
  MergedGroup apart = only_group(merge_decisions({from("a1", "212992"), from("a2", "4096")}));
  CHECK(apart.decision == "insufficient");
  CHECK(apart.why.find("started from different values (sysctl:net.core.rmem_max 212992 on a1, "
                       "4096 on a2)") != std::string::npos);
  CHECK_FALSE(apart.before);
  // One changed a knob the other did not (already there): two starts as well.
  DecisionRecord b = from("a2", "212992");
  b.groups[0].before->emplace("sysctl:net.core.wmem_max", "4096");
  CHECK(only_group(merge_decisions({from("a1", "212992"), b})).decision == "insufficient");
  // A record of an older tuner has none: the merged group has none either (nodes verify).
  DecisionRecord old = from("a2", "212992");
  old.groups[0].before.reset();
  MergedGroup unknown = only_group(merge_decisions({from("a1", "212992"), old}));
  CHECK(unknown.decision == "kept");
  CHECK_FALSE(unknown.before);
  CHECK(decisions_json(merge_decisions({from("a1", "212992"), old}),
                       "t")["classes"][0]["groups"][0]["before"]
            .is_null());
}

TEST_CASE("fleet decisions: a record's before-values are read, and refused when malformed") {
  json doc = decision_doc("a1");
  doc["groups"][0]["before"] = {{"sysctl:net.core.rmem_max", "212992"}, {"sysctl:x", nullptr}};
  auto r = read_decision_record(doc, "a1.json");
  REQUIRE_MESSAGE(r.ok(), r.error().message());
  REQUIRE(r->groups[0].before);
  CHECK(r->groups[0].before->at("sysctl:net.core.rmem_max") == "212992");
  CHECK_FALSE(r->groups[0].before->at("sysctl:x"));
  doc["groups"][0]["before"] = {{"sysctl:x", 5}};
  auto bad = read_decision_record(doc, "a1.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message().find("groups[0].before[\"sysctl:x\"] is not a value") !=
        std::string::npos);
  doc["groups"][0]["before"] = "60";
  CHECK_FALSE(read_decision_record(doc, "a1.json").ok());
}

}  // namespace tuner
