// The fleet summary's hardware classes on documents as tuner writes them: run reports
// with `class` and reused groups' stats.class_decision, and the canaries' decision
// records; what a person reads in the text, and tuner.fleet/1's `classes`.
#include "tuner/cli/report/fleet_classes.h"

#include <algorithm>

#include <doctest/doctest.h>

#include <fmt/core.h>

namespace tuner {
namespace {

using nlohmann::json;

const Term kPlain(ColorMode::never, 1);
const char* const kA = "hw-aaaaaaaaaaaaaaaa";
const char* const kB = "hw-bbbbbbbbbbbbbbbb";

json class_of(const std::string& key) {
  bool a = key == kA;
  return {{"key", key},
          {"facts",
           {{"cpu_model", "Xeon 8480+"},
            {"bios_version", a ? "2.1" : "1.5"},
            {"kernel", a ? "6.1.0-18-amd64" : "6.8.0-31-generic"}}}};
}

/// A tuner.run/1 of `node` in class `key` (null: a report of tuner before classes).
/// Groups are a vector, not a braced json: `json x = {one_object}` is that object under
/// clang and an array of it under gcc.
json run_doc(const std::string& node, const json& key, const std::vector<json>& groups) {
  json doc = {{"schema", "tuner.run/1"},
              {"time", "2026-12-06T12:00:00Z"},
              {"run_id", "20261206T120000Z-3f2a"},
              {"node", {{"hostname", node}, {"kernel", "6.1.0-18-amd64"}}},
              {"profiles", json::array({"throughput"})},
              {"groups", json(groups)}};
  if (key.is_string()) doc["class"] = class_of(key);
  return doc;
}

json verified(const std::string& name, const std::string& decision) {
  return {{"name", name},
          {"decision", decision},
          {"changes", json::array()},
          {"stats", {{"outcome", decision == "kept" ? "gain" : "no_gain"}, {"effect", 0.05}}}};
}

json reused(const std::string& name, const std::string& decision, const std::string& outcome) {
  return {{"name", name},
          {"decision", decision},
          {"stats",
           {{"outcome", outcome},
            {"soak", {{"decision", outcome == "guard" ? "tripped" : "passed"}}},
            {"class_decision",
             {{"class", kA},
              {"decision", "kept"},
              {"canaries", {"gpu-0000", "gpu-0001"}},
              {"file", "/etc/tuner/decisions.json"},
              {"suspect", outcome == "guard"}}}}}};
}

json canary_group(const std::string& name, const std::string& decision,
                  std::optional<double> effect) {
  return {{"name", name},
          {"decision", decision},
          {"reason", decision == "kept" ? "gain" : "no_gain"},
          {"chosen", nullptr},
          {"knobs", {{"sysctl:net.core.rmem_max", "16777216"}}},
          {"stats",
           {{"outcome", decision == "kept" ? "gain" : "no_gain"},
            {"effect", effect ? json(*effect) : json(nullptr)},
            {"ci", effect ? json{*effect - 0.015, *effect + 0.015} : json{nullptr, nullptr}},
            {"ci_level", 0.95},
            {"p", 0.001}}}};
}

json decision_doc(const std::string& node, const std::string& key,
                  const std::vector<json>& groups) {
  return {
      {"schema", "tuner.decision/1"},
      {"node", node},
      {"time", "2026-12-06T10:00:00Z"},
      {"run_id", "20261206T100000Z-0001"},
      {"class", class_of(key)},
      {"profile", {{"names", json::array({"throughput"})}, {"digest", "fnv1a64:0123456789abcdef"}}},
      {"min_effect", 0.02},
      {"groups", json(groups)}};
}

NodeReport read(const json& doc, const std::string& file) {
  auto r = read_node_report(doc, file);
  REQUIRE_MESSAGE(r.ok(), r.error().message());
  return std::move(r).value();
}

/// Class A: 8 nodes, canaries gpu-0000 and gpu-0001, the rest reused their decision on
/// net-buffers (a guard tripped on gpu-0005 and gpu-0006); class B: 2 canaries that
/// disagree; old-1 ran a tuner before classes.
std::vector<NodeReport> fleet() {
  std::vector<NodeReport> docs;
  for (int i = 0; i < 2; ++i) {
    std::string n = fmt::format("gpu-{:04}", i);
    docs.push_back(
        read(run_doc(n, kA, {verified("net-buffers", "kept"), verified("irq", "rolled_back")}),
             n + ".run.json"));
    std::vector<json> groups = {canary_group("net-buffers", "kept", i ? 0.058 : 0.061),
                                canary_group("irq", "rolled_back", -0.01)};
    if (i == 0) groups.push_back(canary_group("cpu", "kept", 0.02));
    docs.push_back(read(decision_doc(n, kA, groups), n + ".decision.json"));
  }
  for (int i = 2; i < 8; ++i) {
    std::string n = fmt::format("gpu-{:04}", i);
    bool tripped = i == 5 || i == 6;
    std::vector<json> groups = {reused("net-buffers", tripped ? "rolled_back" : "kept",
                                       tripped ? "guard" : "neutral_kept")};
    if (i == 3) groups.push_back(verified("cpu", "kept"));
    docs.push_back(read(run_doc(n, kA, groups), n + ".run.json"));
  }
  for (int i = 8; i < 10; ++i) {
    std::string n = fmt::format("gpu-{:04}", i);
    docs.push_back(read(run_doc(n, kB, {verified("net-buffers", i == 8 ? "kept" : "rolled_back")}),
                        n + ".run.json"));
    docs.push_back(
        read(decision_doc(n, kB,
                          {canary_group("net-buffers", i == 8 ? "kept" : "rolled_back",
                                        i == 8 ? std::optional<double>(0.061) : std::nullopt)}),
             n + ".decision.json"));
  }
  docs.push_back(
      read(run_doc("old-1", nullptr, {verified("net-buffers", "kept")}), "old-1.run.json"));
  return docs;
}

}  // namespace

TEST_CASE("fleet classes: nodes by class, the facts that set a class apart, reuse") {
  FleetSummary s = summarize_fleet(fleet());
  CHECK(s.nodes == 11);
  CHECK(s.decision_records == 4);
  REQUIRE(s.classes.size() == 2);
  const ClassSummary& a = s.classes[0];
  CHECK(a.key == kA);
  CHECK(a.nodes.size() == 8);
  CHECK(a.facts.at("bios_version") == "2.1");
  CHECK(a.differs.empty());  // the largest class
  CHECK(a.reused == std::vector<std::string>{"gpu-0002", "gpu-0003", "gpu-0004", "gpu-0005",
                                             "gpu-0006", "gpu-0007"});
  CHECK(a.verified == std::vector<std::string>{"gpu-0000", "gpu-0001", "gpu-0003"});
  const ClassSummary& b = s.classes[1];
  CHECK(b.key == kB);
  REQUIRE(b.differs.size() == 2);
  CHECK(b.differs[0].fact == "bios_version");
  CHECK(b.differs[0].value == "1.5");
  CHECK(b.differs[0].largest == "2.1");
  CHECK(s.without_class == std::vector<std::string>{"old-1"});

  std::string text = format_fleet_text(s, kPlain);
  INFO(text);
  CHECK(text.find("11 nodes: 11 runs (0 failed), 0 probes, 4 decision records\n") !=
        std::string::npos);
  CHECK(text.find("\nclasses (nodes by hardware class") != std::string::npos);
  CHECK(text.find("  hw-aaaaaaaaaaaaaaaa     8 nodes  gpu-[0000-0007]\n"
                  "                       6 nodes reused a class decision, 3 nodes verified a "
                  "group itself\n") != std::string::npos);
  CHECK(text.find("  hw-bbbbbbbbbbbbbbbb     2 nodes  gpu-[0008-0009]\n"
                  "                       2 nodes reused a class decision") == std::string::npos);
  CHECK(text.find("                       differs from hw-aaaaaaaaaaaaaaaa: bios_version 1.5 (not "
                  "2.1), kernel 6.8.0-31-generic (not 6.1.0-18-amd64)\n") != std::string::npos);
  CHECK(text.find("  class unknown (reports without a class): 1 node  old-1\n") !=
        std::string::npos);
  // The classes come after the outcomes, before the facts.
  CHECK(text.find("\noutcomes") < text.find("\nclasses"));
  CHECK(text.find("\nclasses") < text.find("\ndifferences"));
}

TEST_CASE("fleet classes: merged decisions, disagreeing canaries, suspect decisions") {
  FleetSummary s = summarize_fleet(fleet());
  REQUIRE(s.class_decisions.size() == 2);
  const ClassDecision& a = s.class_decisions[0];
  CHECK(a.key == kA);
  REQUIRE(a.groups.size() == 3);
  CHECK(a.groups[0].name == "cpu");
  CHECK(a.groups[0].decision == "insufficient");
  CHECK(a.groups[1].decision == "rolled_back");
  CHECK(a.groups[2].decision == "kept");
  CHECK(s.class_decisions[1].groups[0].decision == "disagree");
  REQUIRE(s.classes[0].suspects.size() == 1);
  const ClassSummary::Suspect& sus = s.classes[0].suspects[0];
  CHECK(sus.group == "net-buffers");
  CHECK(sus.decision == "kept");
  CHECK(sus.nodes == std::vector<std::string>{"gpu-0005", "gpu-0006"});
  CHECK(sus.canaries == std::vector<std::string>{"gpu-0000", "gpu-0001"});

  std::string text = format_fleet_text(s, kPlain);
  INFO(text);
  CHECK(text.find("\nclass decisions (the canaries' records merged per class and profiles: 4 "
                  "records of 4 canaries; at least 2 must agree)\n"
                  "  hw-aaaaaaaaaaaaaaaa  profile throughput (fnv1a64:0123456789abcdef), "
                  "canaries gpu-[0000-0001]\n"
                  "    cpu              insufficient only gpu-0000 decided it; at least 2 "
                  "canaries must\n"
                  "    irq              rolled_back  gpu-0000 rolled_back (no_gain), gpu-0001 "
                  "rolled_back (no_gain)\n"
                  "    net-buffers      kept         gpu-0000 kept (+6.1%), gpu-0001 kept "
                  "(+5.8%)\n") != std::string::npos);
  CHECK(text.find("  class hw-bbbbbbbbbbbbbbbb: canaries disagree on group net-buffers: gpu-0008 "
                  "kept (+6.1%), gpu-0009 rolled_back (no_gain)\n") != std::string::npos);
  CHECK(text.find("\nSUSPECT class decisions (reused on a node, then rolled back there by the "
                  "guard soak)\n"
                  "  class hw-aaaaaaaaaaaaaaaa group net-buffers (kept by canaries "
                  "gpu-[0000-0001]): a guard tripped on 2 nodes  gpu-[0005-0006]\n") !=
        std::string::npos);
}

TEST_CASE("fleet classes: tuner.fleet/1 lists classes, decisions and suspects in full") {
  FleetSummary s = summarize_fleet(fleet());
  json j = fleet_json(s);
  CHECK(j["decision_records"] == 4);
  CHECK(j["without_class"] == json{"old-1"});
  REQUIRE(j["classes"].size() == 2);
  const json& a = j["classes"][0];
  CHECK(a["key"] == kA);
  CHECK(a["nodes"].size() == 8);
  CHECK(a["facts"]["kernel"] == "6.1.0-18-amd64");
  CHECK(a["differs"].empty());
  CHECK(a["reused"].size() == 6);
  CHECK(a["verified"].size() == 3);
  REQUIRE(a["decisions"].size() == 1);
  const json& d = a["decisions"][0];
  CHECK(!d.contains("key"));
  CHECK(d["profile_digest"] == "fnv1a64:0123456789abcdef");
  CHECK(d["canaries"] == json{"gpu-0000", "gpu-0001"});
  CHECK(d["groups"][2]["name"] == "net-buffers");
  CHECK(d["groups"][2]["why"].get<std::string>().starts_with("2 canaries kept it; effects "
                                                             "compatible"));
  CHECK(d["groups"][2]["check"]["verdict"] == "keep");
  CHECK(d["groups"][2]["canaries"][0]["effect"] == 0.061);
  CHECK(!d["groups"][2].contains("knobs"));
  CHECK(a["suspects"][0] == json{{"group", "net-buffers"},
                                 {"decision", "kept"},
                                 {"canaries", {"gpu-0000", "gpu-0001"}},
                                 {"nodes", {"gpu-0005", "gpu-0006"}}});
  CHECK(j["classes"][1]["differs"][1] ==
        json{{"fact", "kernel"}, {"value", "6.8.0-31-generic"}, {"largest", "6.1.0-18-amd64"}});
}

TEST_CASE("fleet classes: a fleet without classes shows no class section") {
  std::vector<NodeReport> docs{
      read(run_doc("old-1", nullptr, {verified("g", "kept")}), "old-1.run.json"),
      read(run_doc("old-2", nullptr, {verified("g", "kept")}), "old-2.run.json")};
  FleetSummary s = summarize_fleet(docs);
  CHECK(s.classes.empty());
  CHECK(s.without_class.size() == 2);
  CHECK(format_fleet_text(s, kPlain).find("class") == std::string::npos);
  CHECK(fleet_json(s)["classes"].empty());
}

TEST_CASE("fleet classes: a class or class_decision of the wrong shape is unknown, not a crash") {
  json doc = run_doc("n1", kA, {reused("g", "kept", "neutral_kept")});
  for (const json& bad : {json(5), json("hw-1"), json{{"key", 7}}, json{{"key", ""}}}) {
    doc["class"] = bad;
    NodeReport r = read(doc, "n1.run.json");
    CHECK(r.class_key.empty());
    CHECK(r.dropped == std::vector<std::string>{"a \"class\" without a key"});
  }
  doc["class"] = {{"key", kA}, {"facts", {{"kernel", 6}, {"bios_version", "2.1"}}}};
  NodeReport r = read(doc, "n1.run.json");
  CHECK(r.class_key == kA);
  REQUIRE(r.class_facts);
  CHECK(*r.class_facts == std::map<std::string, std::string>{{"bios_version", "2.1"}});
  doc["groups"][0]["stats"]["class_decision"] = {
      {"class", 1}, {"decision", nullptr}, {"canaries", {"a", 2, nullptr}}, {"suspect", "yes"}};
  r = read(doc, "n1.run.json");
  CHECK(r.reused == std::vector<std::string>{"g"});
  CHECK(r.suspects.empty());  // "yes" is no true
  doc["groups"][0]["stats"]["class_decision"]["suspect"] = true;
  r = read(doc, "n1.run.json");
  REQUIRE(r.suspects.size() == 1);
  CHECK(r.suspects[0].class_key.empty());  // none it could read: the node's own
  CHECK(r.suspects[0].decision.empty());
  CHECK(r.suspects[0].canaries == std::vector<std::string>{"a"});
  doc["groups"][0]["stats"]["class_decision"] = "kept";
  CHECK(read(doc, "n1.run.json").reused.empty());
  doc["groups"][0]["stats"] = 3;
  CHECK(read(doc, "n1.run.json").reused.empty());
  // A guard that rolled a reused group back makes it suspect without the flag; a node
  // whose report names no class is in the class its class_decision names.
  doc["groups"][0]["stats"] = {{"class_decision", {{"class", kB}}}, {"outcome", "guard"}};
  doc["groups"][0]["decision"] = "rolled_back";
  doc.erase("class");
  FleetSummary s = summarize_fleet({read(doc, "n1.run.json")});
  REQUIRE(s.classes.size() == 1);
  CHECK(s.classes[0].key == kB);
  CHECK(s.classes[0].nodes == std::vector<std::string>{"n1"});
  REQUIRE(s.classes[0].suspects.size() == 1);
  CHECK(s.classes[0].suspects[0].nodes == std::vector<std::string>{"n1"});
  CHECK(format_fleet_text(s, kPlain).find("group g (reused): a guard tripped on 1 node  n1") !=
        std::string::npos);
}

TEST_CASE("fleet classes: groups a class decision did not write are not counted rolled back") {
  std::vector<NodeReport> docs;
  docs.push_back(read(run_doc("gpu-0002", kA,
                              {reused("net", "kept", "class_kept"),
                               reused("ttl", "rolled_back", "class_rolled_back"),
                               reused("fin", "rolled_back", "class_disagree")}),
                      "gpu-0002.run.json"));
  docs.push_back(
      read(run_doc("gpu-0003", kA, {verified("net", "rolled_back")}), "gpu-0003.run.json"));
  FleetSummary s = summarize_fleet(docs);
  REQUIRE(s.outcomes.size() == 2);
  auto on = [&s](const char* node) {
    return std::find_if(s.outcomes.begin(), s.outcomes.end(),
                        [&](const Outcome& o) { return o.nodes.front() == node; });
  };
  auto reuse = on("gpu-0002"), own = on("gpu-0003");
  REQUIRE(reuse != s.outcomes.end());
  REQUIRE(own != s.outcomes.end());
  CHECK(reuse->kept == "net");
  CHECK(reuse->rolled_back.empty());
  CHECK(reuse->not_written == "fin,ttl");
  CHECK(own->rolled_back == "net");
  CHECK(own->not_written.empty());
  std::string text = format_fleet_text(s, kPlain);
  CHECK(text.find("kept net; not written (class decision) fin,ttl") != std::string::npos);
  CHECK(fleet_json(s)["outcomes"][0].contains("not_written"));
}

}  // namespace tuner
