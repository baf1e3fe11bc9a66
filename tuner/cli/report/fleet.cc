#include "tuner/cli/report/fleet.h"

#include <algorithm>
#include <string_view>
#include <tuple>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {

namespace {

using nlohmann::json;

std::string join(const std::vector<std::string>& v, const char* sep = ",") {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

/// join for the text: each part stays on the line it is put on (a newline in a node's
/// file name is shown as \n, not as a line of its own).
std::string join_shown(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + escape_controls(s);
  return out;
}

/// "1 node", "3 nodes".
std::string count(std::size_t n, const char* noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

/// Most nodes first, then by value, so the output is the same for the same input.
template <typename T>
void by_size(std::vector<T>& v) {
  std::stable_sort(v.begin(), v.end(),
                   [](const T& a, const T& b) { return a.nodes.size() > b.nodes.size(); });
}

}  // namespace

/// The node a file names by the playbook's convention (NODE.run.json, NODE.probe.json,
/// NODE.error.json: the inventory name); "" for any other name.
std::string node_of_file(const std::string& file) {
  std::string base = file.substr(file.find_last_of('/') + 1);
  for (const char* suffix : {".run.json", ".probe.json", ".error.json"}) {
    std::string_view sv(suffix);
    if (base.size() > sv.size() && base.ends_with(sv))
      return base.substr(0, base.size() - sv.size());
  }
  return "";
}

std::string bounded_text(std::string_view text) {
  if (text.size() <= kMaxReportText) return std::string(text);
  std::size_t cut = kMaxReportText;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}... [truncated, {} bytes]", text.substr(0, cut), text.size());
}

namespace {

/// "tuner.run/2" and the like: a document of a newer tuner than this one.
bool newer_schema(const std::string& schema) {
  for (std::string_view known : {"tuner.run/", "tuner.probe/", "tuner.failure/"})
    if (schema.starts_with(known)) {
      std::string_view v = std::string_view(schema).substr(known.size());
      return !v.empty() && v != "1" && v.find_first_not_of("0123456789") == v.npos;
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

}  // namespace

Result<NodeReport> read_node_report(const json& doc, const std::string& file) {
  if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string())
    return Error::invalid("not a tuner document (no \"schema\")", file);
  const std::string schema = doc["schema"];
  NodeReport r;
  r.source = file;
  if (schema == "tuner.run/1") r.kind = "run";
  else if (schema == "tuner.probe/1") r.kind = "probe";
  else if (schema == "tuner.failure/1") r.kind = "failure";
  else if (newer_schema(schema))
    return Error::invalid("schema " + schema +
                              " is newer than this tuner reads (tuner.run/1, tuner.probe/1, "
                              "tuner.failure/1): summarize with the nodes' tuner version",
                          file);
  else
    return Error::invalid(
        "schema " + schema + ": expected tuner.run/1, tuner.probe/1 or tuner.failure/1", file);
  if (r.kind != "probe") {
    for (auto [key, field] : {std::pair{"time", &r.time}, {"run_id", &r.run_id}}) {
      auto v = optional_string(doc, key, file);
      if (!v.ok()) return v.error();
      *field = std::move(v).value();
    }
  }
  if (doc.contains("node") && doc["node"].is_object()) {
    std::size_t past = 0;
    for (const auto& [k, v] : doc["node"].items()) {
      if (!v.is_string()) continue;
      if (r.facts.size() < kMaxFactsPerNode)
        r.facts[bounded_text(k)] = bounded_text(v.get_ref<const std::string&>());
      else ++past;
    }
    if (past) r.dropped.push_back(fmt::format("{} facts past {}", past, kMaxFactsPerNode));
  }
  if (r.kind == "run") {
    if (doc.contains("groups") && doc["groups"].is_array()) {
      for (const json& g : doc["groups"]) {
        if (!g.is_object() || !g.contains("name") || !g["name"].is_string() ||
            !g.contains("decision") || !g["decision"].is_string())
          return Error::invalid("a group without name and decision", file);
        if (r.decisions.size() < kMaxGroupsPerNode)
          r.decisions[bounded_text(g["name"].get_ref<const std::string&>())] =
              bounded_text(g["decision"].get_ref<const std::string&>());
      }
      if (doc["groups"].size() > kMaxGroupsPerNode)
        r.dropped.push_back(fmt::format(
            "{} groups past {}", doc["groups"].size() - kMaxGroupsPerNode, kMaxGroupsPerNode));
    }
    // Objects {"message", ...}; reports of tuner before 2026-12 had plain strings, and a
    // fleet may still hold nodes that run it.
    if (doc.contains("errors") && doc["errors"].is_array())
      for (const json& e : doc["errors"]) {
        const json* text = e.is_string() ? &e
                           : e.is_object() && e.contains("message") && e["message"].is_string()
                               ? &e["message"]
                               : nullptr;
        if (!text)
          return Error::invalid("an error that is neither {\"message\"} nor a string", file);
        if (r.errors.size() < kMaxErrorsPerNode)
          r.errors.push_back(bounded_text(text->get_ref<const std::string&>()));
      }
    if (doc.contains("errors") && doc["errors"].is_array() &&
        doc["errors"].size() > kMaxErrorsPerNode)
      r.dropped.push_back(fmt::format("{} errors past {}", doc["errors"].size() - kMaxErrorsPerNode,
                                      kMaxErrorsPerNode));
  }
  if (r.kind == "failure") {
    // Written by the playbook when tuner failed before it could write a run report.
    if (!doc.contains("msg") || !doc["msg"].is_string())
      return Error::invalid("a tuner.failure/1 document without \"msg\"", file);
    std::string rc = doc.contains("rc") && doc["rc"].is_number_integer()
                         ? " (exit " + std::to_string(doc["rc"].get<int>()) + ")"
                         : "";
    r.errors.push_back(bounded_text(doc["msg"].get_ref<const std::string&>()) + rc);
  }
  r.node = node_of_file(file);
  if (r.node.empty()) {
    auto host = r.facts.find("hostname");
    r.node = host != r.facts.end() ? host->second : file;
  }
  return r;
}

namespace {

/// Newest first: by time, then run id, then file name, so that the same files give the
/// same answer in any order.
bool newer(const NodeReport* a, const NodeReport* b) {
  return std::tie(a->time, a->run_id, a->source) > std::tie(b->time, b->run_id, b->source);
}

/// The newest of one node's documents of one kind; the others named in dups.
const NodeReport* newest(std::vector<const NodeReport*> docs, const std::string& kind,
                         std::vector<Duplicate>& dups) {
  if (docs.empty()) return nullptr;
  std::sort(docs.begin(), docs.end(), newer);
  if (docs.size() > 1) {
    Duplicate d{docs[0]->node,
                docs[0]->source,
                {},
                fmt::format("{} {} documents: the newest counts", docs.size(), kind)};
    for (std::size_t i = 1; i < docs.size(); ++i) d.ignored.push_back(docs[i]->source);
    dups.push_back(std::move(d));
  }
  return docs[0];
}

/// A failure and a run report of one node that cannot be one rollout's: the failure
/// names another run, or names none beside a run that reported no error (the playbook
/// writes a failure beside a run report only when that run failed).
bool other_runs(const NodeReport& run, const NodeReport& failure) {
  if (!failure.run_id.empty()) return failure.run_id != run.run_id;
  return run.errors.empty();
}

/// One entry per node: a node's probe, run and failure documents merged (the run's
/// facts over the probe's; a failure or a run's errors make the run failed).
std::vector<NodeReport> merge_by_node(const std::vector<NodeReport>& reports,
                                      std::vector<Duplicate>& dups) {
  std::map<std::string, std::map<std::string, std::vector<const NodeReport*>>> by_node;
  for (const NodeReport& r : reports) by_node[r.node][r.kind].push_back(&r);
  std::vector<NodeReport> out;
  out.reserve(by_node.size());
  for (auto& [node, kinds] : by_node) {
    const NodeReport* probe = newest(kinds["probe"], "probe", dups);
    const NodeReport* run = newest(kinds["run"], "run", dups);
    const NodeReport* failure = newest(kinds["failure"], "failure", dups);
    if (run && failure && other_runs(*run, *failure)) {
      // The newer counts; without times to tell, the failure (a node is not shown as
      // fine on a guess).
      bool run_counts = !run->time.empty() && !failure->time.empty() && run->time > failure->time;
      const NodeReport*& old = run_counts ? failure : run;
      dups.push_back({node,
                      (run_counts ? run : failure)->source,
                      {old->source},
                      "a run report and a failure of different rollouts: the newer counts"});
      old = nullptr;
    }
    NodeReport m;
    m.node = node;
    m.kind = run ? "run" : failure ? "failure" : "probe";
    for (const NodeReport* r : {probe, run, failure}) {
      if (!r) continue;
      for (const auto& [k, v] : r->facts)
        if (r->kind != "probe" || !m.facts.contains(k)) m.facts[k] = v;
      for (const auto& [g, d] : r->decisions) m.decisions[g] = d;
      m.errors.insert(m.errors.end(), r->errors.begin(), r->errors.end());
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

FleetSummary summarize_fleet(const std::vector<NodeReport>& documents) {
  FleetSummary s;
  for (const NodeReport& r : documents) s.probes += r.kind == "probe";
  const std::vector<NodeReport> reports = merge_by_node(documents, s.duplicates);
  s.nodes = reports.size();
  for (const NodeReport& r : reports) s.runs += r.kind != "probe";
  std::map<std::string, std::map<std::string, std::vector<std::string>>> values;  // fact -> v
  std::map<std::tuple<std::string, std::string, std::string, bool>, std::vector<std::string>>
      outcomes;
  for (const NodeReport& r : reports) {
    for (const auto& [k, v] : r.facts)
      if (k != "hostname") values[k][v].push_back(r.node);  // identity, not a fact to compare
    if (r.kind == "probe") continue;
    std::vector<std::string> kept, back, applied;
    for (const auto& [g, d] : r.decisions)
      (d == "kept" ? kept : d == "applied" ? applied : back).push_back(g);
    bool failed = !r.errors.empty();
    s.failed += failed;
    outcomes[{join(kept), join(back), join(applied), failed}].push_back(r.node);
  }
  for (auto& [key, nodes] : outcomes) {
    Outcome o;
    std::tie(o.kept, o.rolled_back, o.applied, o.failed) = key;
    o.nodes = std::move(nodes);
    s.outcomes.push_back(std::move(o));
  }
  by_size(s.outcomes);
  for (auto& [fact, by_value] : values) {
    std::size_t known = 0;
    for (const auto& [v, nodes] : by_value) known += nodes.size();
    if (by_value.size() == 1 && known == s.nodes) {
      s.common[fact] = by_value.begin()->first;
      continue;
    }
    FactSpread f;
    f.fact = fact;
    for (auto& [v, nodes] : by_value) f.values.push_back({v, nodes});
    if (known < s.nodes) {
      // Nodes that do not report the fact at all (an older tuner, no such NIC) differ too.
      FactSpread::Value unknown{"(unknown)", {}};
      for (const NodeReport& r : reports)
        if (!r.facts.contains(fact)) unknown.nodes.push_back(r.node);
      f.values.push_back(std::move(unknown));
    }
    by_size(f.values);
    s.differing.push_back(std::move(f));
  }
  return s;
}

std::string format_fleet_text(const FleetSummary& s, const Term& t) {
  std::string out = t.bold("fleet") + fmt::format("  {}: {} ({} failed), {}\n",
                                                  count(s.nodes, "node"), count(s.runs, "run"),
                                                  s.failed, count(s.probes, "probe"));
  // What was left out comes first: a summary of part of the fleet must say so.
  if (!s.skipped.empty())
    out += "\n" + t.yellow(fmt::format("skipped {}", count(s.skipped.size(), "file"))) +
           " (not reports this tuner reads)\n";
  for (const std::string& why : s.skipped) out += "  " + escape_controls(why) + "\n";
  if (!s.duplicates.empty())
    out += "\n" + t.yellow("duplicates") + " (one node, several reports: the newest counts)\n";
  for (const Duplicate& d : s.duplicates)
    out += fmt::format("  {}: {}: {}; not {}\n", escape_controls(d.node), escape_controls(d.why),
                       escape_controls(d.used), join_shown(d.ignored));
  if (!s.outcomes.empty()) out += "\n" + t.bold("outcomes") + "\n";
  for (const Outcome& o : s.outcomes) {
    std::string what;
    if (!o.kept.empty()) what += "kept " + escape_controls(o.kept);
    if (!o.rolled_back.empty())
      what += (what.empty() ? "" : "; ") + ("rolled back " + escape_controls(o.rolled_back));
    if (!o.applied.empty())
      what += (what.empty() ? "" : "; ") + ("applied " + escape_controls(o.applied));
    if (what.empty()) what = "nothing changed";
    if (o.failed) what = t.red("FAILED") + " " + what;
    out += fmt::format("  {:>5} {}  {}\n", o.nodes.size(), o.nodes.size() == 1 ? "node " : "nodes",
                       what);
    if (&o != &s.outcomes.front() || o.failed)
      out += "         " + t.dim(join_shown(o.nodes)) + "\n";
  }
  if (!s.differing.empty())
    out += "\n" + t.bold("differences") + " (facts not equal on every node)\n";
  for (const FactSpread& f : s.differing) {
    bool first = true;
    for (const FactSpread::Value& v : f.values) {
      std::string line = fmt::format("  {:<28} {:<24} {:>5} {}",
                                     escape_controls(first ? f.fact : ""), escape_controls(v.value),
                                     v.nodes.size(), v.nodes.size() == 1 ? "node" : "nodes");
      // The majority needs no names; every other value lists its nodes, highlighted.
      if (first) out += line + "\n";
      else out += t.yellow(line) + "  " + join_shown(v.nodes) + "\n";
      first = false;
    }
  }
  if (!s.common.empty()) out += "\n" + t.bold("equal on every node") + "\n";
  for (const auto& [k, v] : s.common)
    out += fmt::format("  {:<28} {}\n", escape_controls(k), escape_controls(v));
  return out;
}

json fleet_json(const FleetSummary& s) {
  json outcomes = json::array(), differing = json::array(), duplicates = json::array();
  for (const Duplicate& d : s.duplicates)
    duplicates.push_back(
        {{"node", d.node}, {"used", d.used}, {"ignored", d.ignored}, {"why", d.why}});
  for (const Outcome& o : s.outcomes)
    outcomes.push_back({{"kept", o.kept},
                        {"rolled_back", o.rolled_back},
                        {"applied", o.applied},
                        {"failed", o.failed},
                        {"nodes", o.nodes}});
  for (const FactSpread& f : s.differing) {
    json values = json::array();
    for (const FactSpread::Value& v : f.values)
      values.push_back({{"value", v.value}, {"nodes", v.nodes}});
    differing.push_back({{"fact", f.fact}, {"values", values}});
  }
  return {{"schema", "tuner.fleet/1"}, {"nodes", s.nodes},   {"runs", s.runs},
          {"probes", s.probes},        {"failed", s.failed}, {"outcomes", outcomes},
          {"differing", differing},    {"common", s.common}, {"duplicates", duplicates},
          {"skipped", s.skipped}};
}

}  // namespace tuner
