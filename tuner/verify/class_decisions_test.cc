// tuner.decisions/1 as apply --decisions reads it, and what a class decision does to a
// node's groups and value searches.
#include "tuner/verify/class_decisions.h"

#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "tests/support/temp_dir.h"
#include "tuner/verify/verified_apply.h"

using namespace tuner;
using namespace tuner::verify;
using nlohmann::json;

namespace {

json two_classes() {
  return json::parse(R"({
    "schema": "tuner.decisions/1", "time": "2026-12-06T10:00:00Z",
    "classes": [
      {"key": "hw-00000000000000aa", "facts": {"cpu_model": "X"}, "profiles": ["net"],
       "profile_digest": "fnv1a64:1111111111111111", "canaries": ["a1", "a2"],
       "groups": [
         {"name": "buffers", "decision": "kept", "chosen": null, "knobs": {},
          "canaries": [{"node": "a1", "decision": "kept"}, {"node": "a2", "decision": "kept"}]},
         {"name": "budget", "decision": "kept", "chosen": "600", "knobs": {},
          "canaries": ["a1", "a2"]},
         {"name": "ttl", "decision": "rolled_back", "chosen": null, "canaries": ["a1", "a2"]},
         {"name": "fin", "decision": "disagree", "chosen": null, "canaries": ["a1", "a2"]},
         {"name": "irq", "decision": "insufficient", "chosen": null, "canaries": ["a1"]}]},
      {"key": "hw-00000000000000aa", "facts": {}, "profiles": ["net"],
       "profile_digest": "fnv1a64:2222222222222222", "canaries": ["b1", "b2"], "groups": []}
    ]})");
}

std::string error_of(const json& doc) {
  auto r = parse_class_decisions(doc, "d.json");
  REQUIRE_FALSE(r.ok());
  return r.error().message();
}

}  // namespace

TEST_CASE("class decisions: a merged file is read per class and profile digest") {
  auto d = parse_class_decisions(two_classes(), "d.json");
  REQUIRE(d.ok());
  REQUIRE(d->classes.size() == 2);
  const ClassDecision* c = d->find("hw-00000000000000aa", "fnv1a64:1111111111111111");
  REQUIRE(c);
  CHECK(c->canaries == std::vector<std::string>{"a1", "a2"});
  CHECK(c->groups.at("buffers").verdict == ClassVerdict::kept);
  CHECK(c->groups.at("buffers").canaries == std::vector<std::string>{"a1", "a2"});
  CHECK(c->groups.at("budget").chosen == "600");
  CHECK(c->groups.at("ttl").verdict == ClassVerdict::rolled_back);
  CHECK(c->groups.at("fin").verdict == ClassVerdict::disagree);
  CHECK(c->groups.at("irq").verdict == ClassVerdict::insufficient);
  CHECK(d->find("hw-00000000000000aa", "fnv1a64:2222222222222222") != c);
  CHECK_FALSE(d->find("hw-00000000000000bb", "fnv1a64:1111111111111111"));
  // What a node that finds nothing is told.
  CHECK(d->why_not_found("hw-00000000000000aa", "fnv1a64:3333333333333333") ==
        "d.json has class hw-00000000000000aa decided with other profiles "
        "(fnv1a64:1111111111111111, fnv1a64:2222222222222222; these are "
        "fnv1a64:3333333333333333)");
  CHECK(d->why_not_found("hw-00000000000000bb", "x") ==
        "d.json has no decision for class hw-00000000000000bb (2 classes: hw-00000000000000aa, "
        "hw-00000000000000aa)");
}

TEST_CASE("class decisions: a malformed or unsafe file is refused with its path") {
  json doc = two_classes();
  doc["schema"] = "tuner.decision/1";
  CHECK(error_of(doc).find("expected tuner.decisions/1") != std::string::npos);
  doc = two_classes();
  doc["classes"][0]["groups"][0]["decision"] = "maybe";
  CHECK(error_of(doc) ==
        "d.json: classes[0].groups[0].decision: 'maybe' is not kept, rolled_back, disagree, "
        "insufficient, needs_canary or unmeasured");
  doc = two_classes();
  doc["classes"][0]["groups"][0]["canaries"] = json::array({"a1"});
  CHECK(error_of(doc).find("kept on fewer than 2 canaries") != std::string::npos);
  // Issue 41: one canary named twice by hand is one canary.
  doc = two_classes();
  doc["classes"][0]["groups"][1]["canaries"] = json::array({"x", "x"});
  CHECK(error_of(doc).find("kept on 1 distinct canary (a node named twice counts once)") !=
        std::string::npos);
  doc = two_classes();
  doc["classes"][0]["groups"][1]["name"] = "buffers";
  CHECK(error_of(doc).find("'buffers' is listed twice") != std::string::npos);
  doc = two_classes();
  doc["classes"][1]["profile_digest"] = "fnv1a64:1111111111111111";
  CHECK(error_of(doc).find("listed twice") != std::string::npos);
  doc = two_classes();
  doc["classes"][0]["key"] = 7;
  CHECK(error_of(doc) == "d.json: classes[0].key: expected a string");
  doc = two_classes();
  doc["classes"][0]["groups"][0]["chosen"] = json::array();
  CHECK(error_of(doc).find("chosen: expected a string or null") != std::string::npos);
  doc = two_classes();
  doc["classes"][0]["groups"][0]["canaries"][0] = json::object();
  CHECK(error_of(doc).find("canaries[0]: expected a node name") != std::string::npos);
  doc = two_classes();
  doc["classes"][0].erase("groups");
  CHECK(error_of(doc) == "d.json: classes[0].groups: missing");
  CHECK(error_of(json::array()).find("not a tuner.decisions/1") != std::string::npos);
}

TEST_CASE("class decisions: the file must be a trusted regular file") {
  testing::TempDir tmp;
  std::string good = tmp.write("d.json", two_classes().dump());
  ::chmod(good.c_str(), 0644);
  ::chmod(tmp.path.c_str(), 0755);
  auto d = read_class_decisions(good);
  REQUIRE_MESSAGE(d.ok(), d.error().message());
  CHECK(d->file == good);
  CHECK_FALSE(read_class_decisions(tmp / "missing.json").ok());
  std::string fifo = tmp / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_FALSE(read_class_decisions(fifo).ok());  // refused, never waited on
  std::string junk = tmp.write("junk.json", "{\"schema\": ");
  CHECK(read_class_decisions(junk).error().message() == junk + ": not JSON");
  std::string deep = tmp.write("deep.json", std::string(100000, '[') + std::string(100000, ']'));
  CHECK_FALSE(read_class_decisions(deep).ok());
  if (::geteuid() == 0) {
    // Anyone may write it: it would choose what root writes.
    ::chmod(good.c_str(), 0666);
    auto open = read_class_decisions(good);
    REQUIRE_FALSE(open.ok());
    CHECK(open.error().message().find("writable") != std::string::npos);
  }
}

TEST_CASE("class decisions: each group's verdict becomes what the node does") {
  auto d = parse_class_decisions(two_classes(), "d.json");
  REQUIRE(d.ok());
  VerifiedApplyOptions o;
  o.decisions_file = "d.json";
  o.class_key = "hw-00000000000000aa";
  o.class_decision = d->find(o.class_key, "fnv1a64:1111111111111111");
  auto kept = reuse_of(o, "buffers");
  REQUIRE(kept);
  CHECK(kept->write);
  CHECK(kept->info["decision"] == "kept");
  CHECK(kept->info["canaries"] == json::array({"a1", "a2"}));
  CHECK(kept->info["file"] == "d.json");
  CHECK(reuse_of(o, "budget")->info["chosen"] == "600");
  CHECK_FALSE(reuse_of(o, "ttl")->write);
  CHECK(reuse_of(o, "ttl")->reason == Reason::class_rolled_back);
  CHECK(reuse_of(o, "fin")->reason == Reason::class_disagree);
  // Too few canaries, or a group the class never decided: verified here...
  CHECK_FALSE(reuse_of(o, "irq"));
  // ... and so is a group whose canaries kept it by incompatible sizes (issue 40).
  auto file = two_classes();
  file["classes"][0]["groups"][4]["decision"] = "needs_canary";
  auto needs = parse_class_decisions(file, "d.json");
  REQUIRE(needs.ok());
  VerifiedApplyOptions n = o;
  n.class_decision = needs->find(o.class_key, "fnv1a64:1111111111111111");
  CHECK(n.class_decision->groups.at("irq").verdict == ClassVerdict::needs_canary);
  CHECK_FALSE(reuse_of(n, "irq"));
  n.require_decision = true;
  CHECK(reuse_of(n, "irq")->reason == Reason::class_undecided);
  // Kept by the canaries with no measurement: no class evidence (issue 41), the same.
  file["classes"][0]["groups"][4]["decision"] = "unmeasured";
  auto unmeasured = parse_class_decisions(file, "d.json");
  REQUIRE(unmeasured.ok());
  VerifiedApplyOptions u = o;
  u.require_decision = false;
  u.class_decision = unmeasured->find(o.class_key, "fnv1a64:1111111111111111");
  CHECK(u.class_decision->groups.at("irq").verdict == ClassVerdict::unmeasured);
  CHECK_FALSE(reuse_of(u, "irq"));
  u.require_decision = true;
  CHECK_FALSE(reuse_of(u, "irq")->write);
  CHECK(reuse_of(u, "irq")->reason == Reason::class_undecided);
  CHECK_FALSE(reuse_of(o, "new-group"));
  // ... unless --require-decision: then not written.
  o.require_decision = true;
  CHECK(reuse_of(o, "irq")->reason == Reason::class_undecided);
  CHECK(reuse_of(o, "new-group")->info["decision"] == "none");
  // Without --decisions nothing is reused.
  VerifiedApplyOptions plain;
  CHECK_FALSE(reuse_of(plain, "buffers"));
}

TEST_CASE("class decisions: a kept search writes the class's chosen value") {
  auto d = parse_class_decisions(two_classes(), "d.json");
  REQUIRE(d.ok());
  const ClassDecision& c = *d->find("hw-00000000000000aa", "fnv1a64:1111111111111111");
  Plan plan;
  plan.changes = {{"sysctl:net.core.netdev_budget", "budget", "300", "450", ""},
                  {"sysctl:net.core.x", "other", "1", "2", ""}};
  PlanSearch s;
  s.group = "budget";
  s.setting = "sysctl:net.core.netdev_budget";
  s.knobs = {"sysctl:net.core.netdev_budget"};
  s.candidates = {{"300", {"300"}, true}, {"450", {"450"}, false}, {"600", {"600"}, false}};
  plan.searches = {s};
  std::vector<std::string> unknown;
  Plan fixed = with_class_choices(plan, c, unknown);
  CHECK(unknown.empty());
  CHECK(fixed.searches.empty());
  CHECK(fixed.changes[0].desired == "600");
  CHECK(fixed.changes[1].desired == "2");
  // A value this node's profile does not search: left to the node, and said.
  plan.searches[0].candidates.pop_back();
  fixed = with_class_choices(plan, c, unknown);
  CHECK(unknown == std::vector<std::string>{"budget: 600"});
  CHECK(fixed.searches.size() == 1);
  CHECK(fixed.changes[0].desired == "450");
}

TEST_CASE("class decisions: a node that starts elsewhere verifies the group itself") {
  json file = two_classes();
  json& fin = file["classes"][0]["groups"][0];  // buffers, kept
  fin["knobs"] = {{"sysctl:net.ipv4.tcp_fin_timeout", "34"}};
  fin["before"] = {{"sysctl:net.ipv4.tcp_fin_timeout", "60"}};
  auto d = parse_class_decisions(file, "d.json");
  REQUIRE_MESSAGE(d.ok(), d.error().message());
  const ClassGroupDecision& g =
      d->find("hw-00000000000000aa", "fnv1a64:1111111111111111")->groups.at("buffers");
  REQUIRE(g.before);
  CHECK(g.knobs.at("sysctl:net.ipv4.tcp_fin_timeout") == "34");
  using Start = std::map<std::string, std::optional<std::string>>;
  const std::string fin_id = "sysctl:net.ipv4.tcp_fin_timeout";
  CHECK(class_start_mismatch(g, Start{{fin_id, "60"}}).empty());
  // The field case: a node at 10 was moved to 34 by a decision made from 60.
  CHECK(class_start_mismatch(g, Start{{fin_id, "10"}}) ==
        "sysctl:net.ipv4.tcp_fin_timeout is 10 here, the canaries started from 60");
  CHECK(class_start_mismatch(g, Start{{fin_id, std::nullopt}}).find("is unread here") !=
        std::string::npos);
  // Another knob set: one more planned, or one the node does not plan (already there).
  CHECK(class_start_mismatch(g, Start{{fin_id, "60"}, {"sysctl:net.core.somaxconn", "128"}})
            .find("this node plans sysctl:net.core.somaxconn") != std::string::npos);
  CHECK(class_start_mismatch(g, Start{}).find("which this node does not plan") !=
        std::string::npos);
  // A file merged from older records has no before-values: nothing shows a fit.
  const ClassGroupDecision& old =
      d->find("hw-00000000000000aa", "fnv1a64:1111111111111111")->groups.at("budget");
  CHECK_FALSE(old.before);
  CHECK(class_start_mismatch(old, Start{}).find("no before-values") != std::string::npos);

  // What apply does with it: verify here, or with --require-decision not write.
  VerifiedApplyOptions o;
  o.decisions_file = "d.json";
  o.class_key = "hw-00000000000000aa";
  o.class_decision = d->find(o.class_key, "fnv1a64:1111111111111111");
  CHECK(reuse_of(o, "buffers", "")->write);
  CHECK_FALSE(reuse_of(o, "buffers", "x is 10 here"));
  CHECK_FALSE(reuse_of(o, "ttl", "x is 10 here"));  // a rolled-back decision too
  o.require_decision = true;
  auto held = reuse_of(o, "buffers", "x is 10 here");
  REQUIRE(held);
  CHECK_FALSE(held->write);
  CHECK(held->reason == Reason::class_undecided);
  CHECK(held->info["start_mismatch"] == "x is 10 here");
  // A bad before-value is refused with its path.
  fin["before"] = {{fin_id, 60}};
  CHECK(error_of(file).find("groups[0].before." + fin_id + ": expected a string or null") !=
        std::string::npos);
}

TEST_CASE("class decisions: planned_start is the group's planned knobs and current values") {
  Plan plan;
  plan.changes = {{"sysctl:a", "g", "1", "2", ""},
                  {"sysctl:b", "g", std::nullopt, "3", ""},
                  {"sysctl:c", "other", "5", "6", ""}};
  auto s = planned_start(plan, "g");
  REQUIRE(s.size() == 2);
  CHECK(s.at("sysctl:a") == "1");
  CHECK_FALSE(s.at("sysctl:b"));
}
