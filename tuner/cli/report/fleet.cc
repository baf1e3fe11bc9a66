// The fleet summary: one node per name, its documents merged; failures by reason,
// outcomes by profile, drift by setting; the facts compared in fleet_facts.cc.
#include "tuner/cli/report/fleet.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <tuple>

#include <fmt/core.h>

#include "tuner/cli/report/fleet_classes.h"
#include "tuner/cli/report/fleet_facts.h"

namespace tuner {

namespace {

std::string join(const std::vector<std::string>& v, const char* sep = ",") {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

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

/// One node: its documents merged but for the facts and the class, which stay in the
/// documents.
struct MergedNode {
  NodeReport report;
  NodeFactSources facts;
  ClassNode cls;
};

/// One entry per node, by name: a node's probe, run, status and failure documents merged
/// (the run's facts over the probe's; a failure or a run's errors make the run failed).
std::vector<MergedNode> merge_by_node(const std::vector<NodeReport>& reports,
                                      std::vector<Duplicate>& dups) {
  std::map<std::string, std::map<std::string, std::vector<const NodeReport*>>> by_node;
  for (const NodeReport& r : reports) by_node[r.node][r.kind].push_back(&r);
  std::vector<MergedNode> out;
  out.reserve(by_node.size());
  for (auto& [node, kinds] : by_node) {
    const NodeReport* probe = newest(kinds["probe"], "probe", dups);
    const NodeReport* run = newest(kinds["run"], "run", dups);
    const NodeReport* failure = newest(kinds["failure"], "failure", dups);
    const NodeReport* status = newest(kinds["status"], "status", dups);
    const NodeReport* check = newest(kinds["check"], "check", dups);
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
    MergedNode merged;
    NodeReport& m = merged.report;
    m.node = merged.facts.node = node;
    m.kind = run       ? "run"
             : failure ? "failure"
             : status  ? "status"
             : check   ? "check"
             : probe   ? "probe"
                       : "decision";
    // A canary's records are merged per class and profiles (fleet_decisions.h), not here.
    merged.cls = {node, run, probe, kinds["decision"]};
    for (const NodeReport* r : {run, failure, status}) {
      if (!r) continue;
      for (const auto& [g, d] : r->decisions) m.decisions[g] = d;
      // The run's own errors first: they name the knob; the playbook's message follows.
      m.errors.insert(m.errors.end(), r->errors.begin(), r->errors.end());
    }
    // Facts: a status's or failure's (should they carry any) over the run's, the run's
    // over the probe's.
    for (const NodeReport* r : {status, failure, run, probe})
      if (r && !r->facts.empty()) merged.facts.sources.push_back(&r->facts);
    if (run) m.profiles = run->profiles;
    if (failure) m.rc = failure->rc;
    if (check) m.findings = check->findings;
    if (status) {
      m.drift = status->drift;
      m.unfinished_run = status->unfinished_run;
    }
    out.push_back(std::move(merged));
  }
  return out;
}

/// error before warning before info (tuner.check/1's severities), anything else last.
int severity_rank(const std::string& severity) {
  return severity == "error" ? 0 : severity == "warning" ? 1 : severity == "info" ? 2 : 3;
}

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

/// "20261201T101500Z-3f2a" at text[at]: its length, else 0.
std::size_t run_id_at(std::string_view text, std::size_t at) {
  auto digits = [&](std::size_t from, std::size_t n) {
    return from + n <= text.size() && std::all_of(text.begin() + from, text.begin() + from + n,
                                                  [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(at, 8) || at + 17 > text.size() || text[at + 8] != 'T' || !digits(at + 9, 6) ||
      text.substr(at + 15, 2) != "Z-")
    return 0;
  std::size_t end = at + 17;
  while (end < text.size() && std::isxdigit(static_cast<unsigned char>(text[end])) &&
         !std::isupper(static_cast<unsigned char>(text[end])))
    ++end;
  return end - at >= 21 ? end - at : 0;
}

}  // namespace

// One cause is one line however many nodes it stopped.
std::string failure_reason(std::string_view message, std::string_view node) {
  std::string out;
  for (std::size_t i = 0; i < message.size();) {
    const bool word_start = i == 0 || !word_char(message[i - 1]);
    if (std::size_t n = word_start ? run_id_at(message, i) : 0) {
      out += "<run_id>";
      i += n;
    } else if (word_start && node.size() >= 2 && message.substr(i, node.size()) == node &&
               (i + node.size() == message.size() || !word_char(message[i + node.size()]))) {
      out += "<node>";
      i += node.size();
    } else if (word_start && message.substr(i, 4) == "pid " && i + 4 < message.size() &&
               std::isdigit(static_cast<unsigned char>(message[i + 4]))) {
      out += "pid <pid>";
      for (i += 4; i < message.size() && std::isdigit(static_cast<unsigned char>(message[i]));) ++i;
    } else {
      out += message[i++];
    }
  }
  return out;
}

FleetSummary summarize_fleet(const std::vector<NodeReport>& documents) {
  FleetSummary s;
  for (const NodeReport& r : documents) {
    s.probes += r.kind == "probe";
    s.statuses += r.kind == "status";
    s.checks += r.kind == "check";
  }
  const std::vector<MergedNode> merged = merge_by_node(documents, s.duplicates);
  s.nodes = merged.size();
  using OutcomeKey = std::tuple<std::vector<std::string>, std::string, std::string, std::string,
                                std::string, bool>;
  std::map<OutcomeKey, std::vector<std::string>> outcomes;
  std::map<std::vector<std::string>, std::size_t> per_profiles;
  std::map<std::pair<std::optional<int>, std::string>, std::vector<std::string>> failures;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> drift;
  std::map<std::tuple<int, std::string, std::string, std::string>, std::vector<std::string>>
      findings;
  for (const MergedNode& node : merged) {
    const NodeReport& r = node.report;
    for (const NodeReport::Drift& d : r.drift) drift[{d.knob, d.state}].push_back(r.node);
    s.drifted += !r.drift.empty();
    for (const NodeReport::Finding& f : r.findings)
      findings[{severity_rank(f.severity), f.rule, f.severity, f.subject}].push_back(r.node);
    if (!r.unfinished_run.empty()) s.unfinished[r.node] = r.unfinished_run;
    if (r.kind != "run" && r.kind != "failure") continue;
    ++s.runs;
    std::vector<std::string> kept, back, applied, unwritten;
    for (const auto& [g, d] : r.decisions)
      (d == "kept"          ? kept
       : d == "applied"     ? applied
       : d == "not_written" ? unwritten
                            : back)
          .push_back(g);
    bool failed = !r.errors.empty();
    s.failed += failed;
    if (failed) failures[{r.rc, failure_reason(r.errors.front(), r.node)}].push_back(r.node);
    outcomes[{r.profiles, join(kept), join(back), join(applied), join(unwritten), failed}]
        .push_back(r.node);
    ++per_profiles[r.profiles];
  }
  for (auto& [key, nodes] : failures)
    s.failures.push_back({key.first, key.second, std::move(nodes)});
  std::stable_sort(s.failures.begin(), s.failures.end(), [](const Failure& a, const Failure& b) {
    return a.nodes.size() > b.nodes.size();
  });
  for (auto& [key, nodes] : outcomes) {
    Outcome o;
    std::tie(o.profiles, o.kept, o.rolled_back, o.applied, o.not_written, o.failed) = key;
    o.nodes = std::move(nodes);
    s.outcomes.push_back(std::move(o));
  }
  // Profiles with most nodes first, then by name; in each, the most common outcome first.
  std::stable_sort(s.outcomes.begin(), s.outcomes.end(), [&](const Outcome& a, const Outcome& b) {
    if (a.profiles != b.profiles) {
      std::size_t na = per_profiles[a.profiles], nb = per_profiles[b.profiles];
      return na != nb ? na > nb : a.profiles < b.profiles;
    }
    return a.nodes.size() > b.nodes.size();
  });
  for (auto& [key, nodes] : drift) s.drift.push_back({key.first, key.second, std::move(nodes)});
  std::stable_sort(s.drift.begin(), s.drift.end(), [](const DriftSpread& a, const DriftSpread& b) {
    return a.nodes.size() > b.nodes.size();
  });
  for (auto& [key, nodes] : findings)
    s.findings.push_back({std::get<1>(key), std::get<2>(key), std::get<3>(key), std::move(nodes)});
  // The map ordered them by severity; within one, the most nodes first.
  std::stable_sort(s.findings.begin(), s.findings.end(),
                   [](const FindingSpread& a, const FindingSpread& b) {
                     int ra = severity_rank(a.severity), rb = severity_rank(b.severity);
                     return ra != rb ? ra < rb : a.nodes.size() > b.nodes.size();
                   });
  std::vector<NodeFactSources> facts;
  facts.reserve(merged.size());
  for (const MergedNode& node : merged) facts.push_back(node.facts);
  compare_facts(facts, s);
  std::vector<ClassNode> classes;
  classes.reserve(merged.size());
  for (const MergedNode& node : merged) classes.push_back(node.cls);
  summarize_classes(classes, s);
  return s;
}

}  // namespace tuner
