// Reading one node's document for the fleet summary: what it says, bounded.
#include <cmath>
#include <string_view>

#include <fmt/core.h>

#include "base/hash.h"
#include "tuner/cli/report/fleet.h"

namespace tuner {

namespace {

using nlohmann::json;

/// The node a file names by the playbook's convention (NODE.run.json, NODE.probe.json,
/// NODE.error.json, NODE.status.json, NODE.check.json: the inventory name); "" for any
/// other name.
std::string node_of_file(const std::string& file) {
  std::string base = file.substr(file.find_last_of('/') + 1);
  for (const char* suffix : {".run.json", ".probe.json", ".error.json", ".status.json",
                             ".check.json", ".decision.json"}) {
    std::string_view sv(suffix);
    if (base.size() > sv.size() && base.ends_with(sv))
      return base.substr(0, base.size() - sv.size());
  }
  return "";
}

/// "tuner.run/2" and the like: a document of a newer tuner than this one.
bool newer_schema(const std::string& schema) {
  for (std::string_view known : {"tuner.run/", "tuner.probe/", "tuner.failure/", "tuner.status/",
                                 "tuner.check/", "tuner.decision/"})
    if (schema.starts_with(known)) {
      std::string_view v = std::string_view(schema).substr(known.size());
      return !v.empty() && v != "1" && v.find_first_not_of("0123456789") == std::string_view::npos;
    }
  return false;
}

/// A string member, or "" when it is absent or null.
Result<std::string> optional_string(const json& doc, const char* key, const std::string& file) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::string();
  if (!it->is_string()) return Error::invalid(fmt::format("\"{}\" is not a string", key), file);
  return it->get<std::string>();
}

/// doc[key] when it is an array, else null.
const json* array_of(const json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_array() ? &*it : nullptr;
}

void read_facts(const json& doc, NodeReport& r) {
  auto node = doc.find("node");
  if (node == doc.end() || !node->is_object()) return;
  std::size_t past = 0;
  for (const auto& [k, v] : node->items()) {
    if (!v.is_string()) continue;
    if (r.facts.size() < kMaxFactsPerNode)
      r.facts[bounded_text(k)] = bounded_text(v.get_ref<const std::string&>());
    else ++past;
  }
  if (past) r.dropped.push_back(fmt::format("{} facts past {}", past, kMaxFactsPerNode));
}

/// `class` {key, facts} of a run or probe: absent or null in documents of tuner before
/// classes (the node's class is unknown); anything else that is not one is noted.
void read_class(const json& doc, NodeReport& r) {
  auto cls = doc.find("class");
  if (cls == doc.end() || cls->is_null()) return;
  auto key = cls->is_object() ? cls->find("key") : cls->end();
  if (!cls->is_object() || key == cls->end() || !key->is_string() ||
      key->get_ref<const std::string&>().empty()) {
    r.dropped.emplace_back("a \"class\" without a key");
    return;
  }
  r.class_key = bounded_text(key->get_ref<const std::string&>());
  auto facts = cls->find("facts");
  if (facts == cls->end() || !facts->is_object()) return;
  std::map<std::string, std::string> read;
  std::size_t past = 0;
  for (const auto& [k, v] : facts->items()) {
    if (!v.is_string()) continue;
    if (read.size() < kMaxFactsPerNode)
      read[bounded_text(k)] = bounded_text(v.get_ref<const std::string&>());
    else ++past;
  }
  if (past) r.dropped.push_back(fmt::format("{} class facts past {}", past, kMaxFactsPerNode));
  r.class_facts = std::make_shared<const std::map<std::string, std::string>>(std::move(read));
}

/// A group's stats.class_decision (the group reused its class's decision), else nothing.
/// A fleet's every node may have a few: all but the suspect ones cost a name.
void read_reuse(const json& group, const std::string& name, NodeReport& r) {
  auto stats = group.find("stats");
  if (stats == group.end() || !stats->is_object()) return;
  auto cd = stats->find("class_decision");
  if (cd == stats->end() || !cd->is_object()) return;
  auto text = [](const json& obj, const char* key) {
    auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? bounded_text(it->get_ref<const std::string&>())
                                              : std::string();
  };
  r.reused.push_back(name);
  std::string cls = text(*cd, "class");
  if (r.class_key.empty() && r.reused_class.empty()) r.reused_class = cls;
  auto flag = cd->find("suspect");
  const bool suspect =
      (flag != cd->end() && flag->is_boolean() && flag->get<bool>()) ||
      (text(group, "decision") == "rolled_back" && text(*stats, "outcome") == "guard");
  if (!suspect) return;
  NodeReport::Suspect s{name, cls == r.class_key ? "" : cls, text(*cd, "decision"), {}};
  if (auto c = cd->find("canaries"); c != cd->end() && c->is_array())
    for (const json& n : *c)
      if (n.is_string() && s.canaries.size() < kMaxCanariesPerGroup)
        s.canaries.push_back(bounded_text(n.get_ref<const std::string&>()));
  r.suspects.push_back(std::move(s));
}

Status read_run(const json& doc, const std::string& file, NodeReport& r) {
  if (const json* profiles = array_of(doc, "profiles"))
    for (const json& p : *profiles)
      if (p.is_string() && r.profiles.size() < kMaxGroupsPerNode)
        r.profiles.push_back(bounded_text(p.get_ref<const std::string&>()));
  if (const json* groups = array_of(doc, "groups")) {
    for (const json& g : *groups) {
      if (!g.is_object() || !g.contains("name") || !g["name"].is_string() ||
          !g.contains("decision") || !g["decision"].is_string())
        return Error::invalid("a group without name and decision", file);
      if (r.decisions.size() < kMaxGroupsPerNode) {
        std::string name = bounded_text(g["name"].get_ref<const std::string&>());
        read_reuse(g, name, r);
        std::string decision = bounded_text(g["decision"].get_ref<const std::string&>());
        // A group a class decision kept from being written was never rolled back here.
        if (auto st = g.find("stats"); st != g.end() && st->is_object())
          if (auto o = st->find("outcome");
              o != st->end() && o->is_string() &&
              o->get_ref<const std::string&>().starts_with("class_") &&
              o->get_ref<const std::string&>() != "class_kept")
            decision = "not_written";
        r.decisions[std::move(name)] = std::move(decision);
      }
    }
    if (groups->size() > kMaxGroupsPerNode)
      r.dropped.push_back(
          fmt::format("{} groups past {}", groups->size() - kMaxGroupsPerNode, kMaxGroupsPerNode));
  }
  // Objects {"message", ...}; reports of tuner before 2026-12 had plain strings, and a
  // fleet may still hold nodes that run it.
  if (const json* errors = array_of(doc, "errors")) {
    for (const json& e : *errors) {
      const json* text = e.is_string() ? &e
                         : e.is_object() && e.contains("message") && e["message"].is_string()
                             ? &e["message"]
                             : nullptr;
      if (!text) return Error::invalid("an error that is neither {\"message\"} nor a string", file);
      if (r.errors.size() < kMaxErrorsPerNode)
        r.errors.push_back(bounded_text(text->get_ref<const std::string&>()));
    }
    if (errors->size() > kMaxErrorsPerNode)
      r.dropped.push_back(
          fmt::format("{} errors past {}", errors->size() - kMaxErrorsPerNode, kMaxErrorsPerNode));
  }
  return Ok{};
}

/// tuner status --json: the drifted settings and an unfinished run.
Status read_status(const json& doc, const std::string& file, NodeReport& r) {
  const json* knobs = array_of(doc, "knobs");
  if (!knobs) return Error::invalid("a tuner.status/1 document without \"knobs\"", file);
  std::size_t past = 0;
  for (const json& k : *knobs) {
    if (!k.is_object() || !k.contains("knob") || !k["knob"].is_string() || !k.contains("drift") ||
        !k["drift"].is_boolean())
      return Error::invalid("a kept setting without knob and drift", file);
    if (!k["drift"].get<bool>()) continue;
    if (r.drift.size() == kMaxDriftPerNode) {
      ++past;
      continue;
    }
    auto state = optional_string(k, "state", file);
    if (!state.ok()) return state.error();
    r.drift.push_back({bounded_text(k["knob"].get_ref<const std::string&>()),
                       state->empty() ? "changed" : bounded_text(*state)});
  }
  if (past) r.dropped.push_back(fmt::format("{} drifted settings past {}", past, kMaxDriftPerNode));
  auto unfinished = optional_string(doc, "unfinished_run", file);
  if (!unfinished.ok()) return unfinished.error();
  r.unfinished_run = bounded_text(*unfinished);
  return Ok{};
}

/// tuner check --json: each finding's rule, severity and subject.
Status read_check(const json& doc, const std::string& file, NodeReport& r) {
  const json* findings = array_of(doc, "findings");
  if (!findings) return Error::invalid("a tuner.check/1 document without \"findings\"", file);
  for (const json& f : *findings) {
    if (!f.is_object() || !f.contains("rule") || !f["rule"].is_string() ||
        !f.contains("severity") || !f["severity"].is_string())
      return Error::invalid("a finding without rule and severity", file);
    if (r.findings.size() == kMaxDriftPerNode) {
      r.dropped.push_back(fmt::format("{} findings past {}", findings->size() - kMaxDriftPerNode,
                                      kMaxDriftPerNode));
      break;
    }
    auto subject = optional_string(f, "subject", file);
    if (!subject.ok()) return subject.error();
    r.findings.push_back({bounded_text(f["rule"].get_ref<const std::string&>()),
                          bounded_text(f["severity"].get_ref<const std::string&>()),
                          bounded_text(*subject)});
  }
  return Ok{};
}

}  // namespace

std::string bounded_text(std::string_view text) {
  if (text.size() <= kMaxReportText) return std::string(text);
  std::size_t cut = kMaxReportText;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  // The whole text's hash: two values that differ only past the cut still compare
  // unequal (a fleet's facts are compared as read; issue 41).
  return fmt::format("{}... [truncated, {} bytes, fnv1a64:{}]", text.substr(0, cut), text.size(),
                     hex64(fnv1a64(text)));
}

Result<NodeReport> read_node_report(const json& doc, const std::string& file) {
  if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string())
    return Error::invalid("not a tuner document (no \"schema\")", file);
  const std::string schema = doc["schema"];
  NodeReport r;
  r.source = file;
  if (schema == "tuner.run/1") r.kind = "run";
  else if (schema == "tuner.probe/1") r.kind = "probe";
  else if (schema == "tuner.failure/1") r.kind = "failure";
  else if (schema == "tuner.status/1") r.kind = "status";
  else if (schema == "tuner.check/1") r.kind = "check";
  else if (schema == "tuner.decision/1") r.kind = "decision";
  else if (newer_schema(schema))
    return Error::invalid("schema " + bounded_text(schema) +
                              " is newer than this tuner reads (tuner.run/1, tuner.probe/1, "
                              "tuner.status/1, tuner.check/1, tuner.failure/1, "
                              "tuner.decision/1): summarize with the nodes' tuner version",
                          file);
  else
    return Error::invalid("schema " + bounded_text(schema) +
                              ": expected tuner.run/1, tuner.probe/1, tuner.status/1, "
                              "tuner.check/1, tuner.failure/1 or tuner.decision/1",
                          file);
  if (r.kind == "decision") {
    auto record = read_decision_record(doc, file);
    if (!record.ok()) return record.error();
    r.record = std::move(record).value();
    r.time = bounded_text(r.record->time);
    r.run_id = bounded_text(r.record->run_id);
    r.class_key = bounded_text(r.record->class_key);
    std::map<std::string, std::string> facts;
    for (const auto& [k, v] : r.record->class_facts) facts[bounded_text(k)] = bounded_text(v);
    r.class_facts = std::make_shared<const std::map<std::string, std::string>>(std::move(facts));
  }
  if (r.kind == "run" || r.kind == "probe") read_class(doc, r);
  if (r.kind == "run" || r.kind == "failure") {
    for (auto [key, field] : {std::pair{"time", &r.time}, {"run_id", &r.run_id}}) {
      auto v = optional_string(doc, key, file);
      if (!v.ok()) return v.error();
      *field = std::move(v).value();
    }
  }
  read_facts(doc, r);
  if (r.kind == "run")
    if (Status st = read_run(doc, file, r); !st.ok()) return st.error();
  if (r.kind == "status")
    if (Status st = read_status(doc, file, r); !st.ok()) return st.error();
  if (r.kind == "check")
    if (Status st = read_check(doc, file, r); !st.ok()) return st.error();
  if (r.kind == "failure") {
    // Written by the playbook when tuner failed before it could write a run report.
    if (!doc.contains("msg") || !doc["msg"].is_string())
      return Error::invalid("a tuner.failure/1 document without \"msg\"", file);
    // An exit status, or Ansible's -N for a signal; a number past those is not one.
    if (auto rc = doc.find("rc");
        rc != doc.end() && rc->is_number_integer() && std::abs(rc->get<double>()) <= 65535)
      r.rc = rc->get<int>();
    r.errors.push_back(bounded_text(doc["msg"].get_ref<const std::string&>()));
  }
  r.node = node_of_file(file);
  // A decision record names its node itself (a string, where other documents have facts).
  if (r.node.empty() && r.record && !r.record->node.empty()) r.node = bounded_text(r.record->node);
  if (r.node.empty()) {
    auto host = r.facts.find("hostname");
    r.node = host != r.facts.end() ? host->second : file;
  }
  if (r.record) r.record->node = r.node;
  return r;
}

}  // namespace tuner
