// tuner report FILE|DIR...: the fleet summary of reports a playbook fetched (tuner.run/1
// from apply --report or --json, tuner.probe/1 from probe --json, tuner.status/1 from
// status --json, the playbook's tuner.failure/1, the canaries' tuner.decision/1). A
// directory means every *.json in it. Reads files only; changes nothing but the files
// it is told to write (--html, --decisions-out: the merged tuner.decisions/1). Files it
// cannot read as a report are skipped and named; exit 2 only when none could be read,
// or --decisions-out has no decision record to merge. --fail-on makes it a CI gate
// (report/fleet_gate.h).
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <iostream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/fd_io.h"
#include "base/json_nesting.h"
#include "base/result.h"
#include "base/strings.h"
#include "rollback/journal.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/report/fleet.h"
#include "tuner/cli/report/fleet_gate.h"
#include "tuner/cli/report/html_report.h"
#include "tuner/cli/report/json_text.h"
#include "tuner/cli/run_glue.h"

namespace po = boost::program_options;

namespace tuner {

namespace {

/// FILE as is; DIR as its *.json files, sorted. Subdirectories are not entered: their
/// names go to `skipped`, for a note.
std::vector<std::string> expand(const std::string& arg, std::vector<std::string>& skipped) {
  struct stat st {};
  if (::stat(arg.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return {arg};
  std::vector<std::string> files;
  if (DIR* d = ::opendir(arg.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      std::string path = arg + "/" + name;
      struct stat sub {};
      if (::stat(path.c_str(), &sub) == 0 && S_ISDIR(sub.st_mode)) skipped.push_back(path);
      else if (name.size() > 5 && name.ends_with(".json")) files.push_back(path);
    }
    ::closedir(d);
  }
  std::sort(files.begin(), files.end());
  std::sort(skipped.begin(), skipped.end());
  return files;
}

/// "tuner: warning: ..." on stderr, controls escaped (file names are anyone's).
void warn(const std::string& message) {
  fmt::print(stderr, "tuner: warning: {}\n", escape_controls(message));
}

/// What parse_report counted of the parts it bounds.
struct ParseCounts {
  std::size_t facts = 0;        // the node's facts (`node`)
  std::size_t class_facts = 0;  // `class.facts`
  std::size_t knobs = 0;        // a decision record's groups' knobs, all together
};

/// Parses only what read_node_report reads (schema, time, run_id, node, profiles, the
/// class's key, the decision record's profile, min_effect and identity, groups' names,
/// decisions and what a canary's or a reused group's verdict says (reason, chosen, knobs,
/// stats' effect, p, ci, ci_level, scale, direction, outcome and class_decision), errors, msg, rc, knobs' ids, states and drift,
/// unfinished_run), and the first kMaxFactsPerNode of the node's and the class's facts
/// (`counts` counts them all): a report padded with other data or millions of facts
/// costs its text, not a DOM of it.
nlohmann::json parse_report(const std::string& text, ParseCounts& counts) {
  using Event = nlohmann::json::parse_event_t;
  std::string top, second, third;  // the keys above: at depth 1, a group's, its stats'
  counts = {};
  auto keep = [&](int depth, Event event, nlohmann::json& parsed) {
    if (event != Event::key) return true;
    const auto& key = parsed.get_ref<const std::string&>();
    if (depth == 1) {
      top = key;
      return key == "schema" || key == "time" || key == "run_id" || key == "node" ||
             key == "profiles" || key == "groups" || key == "errors" || key == "msg" ||
             key == "rc" || key == "knobs" || key == "unfinished_run" || key == "findings" ||
             key == "class" || key == "profile" || key == "min_effect" || key == "identity";
    }
    if (top == "identity") return depth == 2 && (key == "machine_id" || key == "hostname");
    if (depth == 2 && top == "node") return ++counts.facts <= kMaxFactsPerNode;
    if (top == "class") {  // {key, facts}: depth 3 is a fact
      if (depth == 2) return key == "key" || key == "facts";
      return depth == 3 && ++counts.class_facts <= kMaxFactsPerNode;
    }
    if (top == "profile") return depth == 2 && (key == "names" || key == "digest");
    if (top == "groups") {
      if (depth == 3) {
        second = key;
        return key == "name" || key == "decision" || key == "reason" || key == "chosen" ||
               key == "knobs" || key == "before" || key == "stats";
      }
      if (depth == 4 && (second == "knobs" || second == "before"))
        return ++counts.knobs <= kMaxKnobsPerDecision;
      if (depth == 4 && second == "stats") {
        third = key;
        // The class check's numbers (docs/fleet-decisions.md "The class check").
        return key == "effect" || key == "p" || key == "outcome" || key == "class_decision" ||
               key == "ci" || key == "ci_level" || key == "scale" || key == "direction";
      }
      if (depth == 5 && second == "stats" && third == "class_decision")
        return key == "class" || key == "decision" || key == "canaries" || key == "file" ||
               key == "suspect";
      return false;  // inside `chosen`, or deeper than any of the above
    }
    if (depth == 3 && top == "knobs") return key == "knob" || key == "state" || key == "drift";
    if (depth == 3 && top == "findings")
      return key == "rule" || key == "severity" || key == "subject";
    return true;
  };
  return nlohmann::json::parse(text, keep, false);
}

}  // namespace

int report_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc(
      "tuner report FILE|DIR...: summarize a fleet's reports (tuner.run/1, tuner.probe/1,\n"
      "tuner.status/1, tuner.check/1, tuner.failure/1, tuner.decision/1): why nodes\n"
      "failed, what each profile's nodes kept and rolled back, the hardware classes and\n"
      "their canaries' decisions, which kept settings drifted, the health findings, and\n"
      "the facts on which nodes differ.\n"
      "A file that is not a report this tuner reads (another program's, a newer\n"
      "tuner's) is skipped with a warning; the rest is summarized.\n"
      "Exit: 0 summarized, 2 nothing could be read (or --decisions-out and no\n"
      "tuner.decision/1 read), 5 an output file could not be written; with --fail-on,\n"
      "1 a node failed, 4 a node's run is unfinished, 3 a kept setting drifted");
  std::vector<std::string> inputs, fail_on;
  desc.add_options()("json", "print the tuner.fleet/1 JSON document")(
      "fail-on", po::value(&fail_on)->value_name("failed|drift"),
      "exit non-zero when a node failed or drifted (repeatable, or comma-separated)")(
      "html", po::value<std::string>()->value_name("FILE"),
      "also write every verify decision with its trials as one HTML page")(
      "decisions-out", po::value<std::string>()->value_name("FILE"),
      "also merge the canaries' tuner.decision/1 records per hardware class into FILE\n"
      "(tuner.decisions/1, for tuner apply --decisions; docs/fleet-decisions.md)")(
      "file", po::value(&inputs)->value_name("FILE"), "report file or directory (repeatable)");
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  if (!parse_options("report", args, desc, pos, vm, g)) return 0;
  check_output_option(vm, "html");
  check_output_option(vm, "decisions-out");
  if (inputs.empty()) fail_input("report: name the report files or directories to summarize");
  auto gate = parse_fleet_gate(fail_on);
  if (!gate.ok()) fail_input("report: " + gate.error().message());
  std::vector<NodeReport> reports;
  std::vector<std::string> bad, subdirs, merged;
  std::size_t fact_bytes = 0, facts_left_out = 0;
  std::map<std::string, std::shared_ptr<const std::map<std::string, std::string>>> class_facts;
  for (const std::string& arg : inputs) {
    for (const std::string& file : expand(arg, subdirs)) {
      // Reports are small; the limit keeps a wrong path (a disk image) from filling memory.
      auto text = read_file(file, ReadLimits{.max_bytes = 64u << 20, .regular_only = true});
      if (!text.ok()) {
        bad.push_back(text.error().message());
        continue;
      }
      if (Status depth = check_json_nesting(*text, file); !depth.ok()) {
        bad.push_back(depth.error().message());
        continue;
      }
      ParseCounts counts;
      auto doc = parse_report(*text, counts);
      if (doc.is_discarded()) {
        bad.push_back(file + ": not JSON");
        continue;
      }
      // A merged decision file is this command's own output (--decisions-out): a
      // rollout keeps it beside the reports it was made from, and it is no node's.
      if (auto schema = doc.find("schema"); schema != doc.end() && *schema == "tuner.decisions/1") {
        merged.push_back(file);
        continue;
      }
      auto r = read_node_report(doc, file);
      if (!r.ok()) {
        bad.push_back(r.error().message());
        continue;
      }
      // A decision record says what the rest of its class writes: never cut, refused.
      if (r->kind == "decision" &&
          (counts.knobs > kMaxKnobsPerDecision || counts.class_facts > kMaxFactsPerNode)) {
        bad.push_back(fmt::format("{}: a tuner.decision/1 with more than {} knobs or {} class "
                                  "facts: refused (a decision record is never cut)",
                                  file, kMaxKnobsPerDecision, kMaxFactsPerNode));
        continue;
      }
      if (counts.facts > kMaxFactsPerNode)
        r->dropped.push_back(
            fmt::format("{} facts past {}", counts.facts - kMaxFactsPerNode, kMaxFactsPerNode));
      if (counts.class_facts > kMaxFactsPerNode)
        r->dropped.push_back(fmt::format("{} class facts past {}",
                                         counts.class_facts - kMaxFactsPerNode, kMaxFactsPerNode));
      for (const std::string& d : r->dropped) warn(fmt::format("report: {}: {} left out", file, d));
      // The whole fleet's facts are bounded too: past it, a document counts without them.
      for (const auto& [k, v] : r->facts) fact_bytes += k.size() + v.size();
      // Nodes of one class have equal class facts: one copy of them is held.
      if (r->class_facts) {
        auto [seen, fresh] = class_facts.try_emplace(r->class_key, r->class_facts);
        if (!fresh && *seen->second == *r->class_facts) r->class_facts = seen->second;
        else
          for (const auto& [k, v] : *r->class_facts) fact_bytes += k.size() + v.size();
      }
      if (fact_bytes > kMaxFleetFactBytes) {
        facts_left_out += !r->facts.empty();
        r->facts.clear();
        if (r->kind != "decision") r->class_facts.reset();
      }
      reports.push_back(std::move(r).value());
    }
  }
  for (const std::string& d : subdirs)
    warn(fmt::format("report: {}: a directory, not read (name its files or the directory "
                     "itself)",
                     d));
  if (facts_left_out)
    warn(fmt::format("report: the facts of {} documents were left out: all facts together "
                     "passed {} MiB",
                     facts_left_out, kMaxFleetFactBytes >> 20));
  if (reports.empty()) {
    if (bad.empty() && !merged.empty())
      fail_input("report: " + escape_controls(merged.front()) +
                 " is a merged decision file (tuner.decisions/1), which describes no node: "
                 "name the nodes' reports and the canaries' tuner.decision/1 records");
    if (bad.empty()) fail_input("report: no *.json files in " + inputs.front());
    std::string list;
    // One line per file, whatever its name holds (a newline cannot forge another).
    for (const std::string& b : bad) list += "\n  " + escape_controls(b);
    fail_input(fmt::format("report: none of {} files is a tuner report; nothing summarized:{}",
                           bad.size(), list));
  }
  // One foreign or newer file must not hide the fleet (nor stop a rollout that
  // summarizes after each batch): the rest is summarized, the file named.
  Term err(g.color, 2);
  for (const std::string& b : bad)
    std::cerr << err.printable("tuner: " + err.yellow("warning") + ": report: skipped " +
                               escape_controls(b) + "\n");
  // A merged file without a record would tell every node its class has no decision.
  if (vm.count("decisions-out") &&
      std::none_of(reports.begin(), reports.end(),
                   [](const NodeReport& r) { return r.kind == "decision"; }))
    fail_input(fmt::format("report: --decisions-out: no tuner.decision/1 among the {} "
                           "document{} read (a canary writes one with tuner apply "
                           "--decisions-out); nothing written",
                           reports.size(), reports.size() == 1 ? "" : "s"));
  FleetSummary s = summarize_fleet(reports);
  s.skipped = std::move(bad);
  Term term(g.color, 1);
  if (vm.count("json")) print_document(fleet_json(s));
  else std::cout << term.printable(format_fleet_text(s, term));
  if (vm.count("html")) {
    std::cout.flush();
    if (Status st = write_html_report(vm["html"].as<std::string>(), reports, s); !st.ok())
      fail_output(st.error().message() + " (--html)");
  }
  if (vm.count("decisions-out")) {
    std::cout.flush();
    std::string text = json_text(decisions_json(s.class_decisions, utc_now()));
    if (Status st = write_file_atomic(vm["decisions-out"].as<std::string>(), text, 0644); !st.ok())
      fail_output(st.error().message() + " (--decisions-out)");
  }
  FleetVerdict verdict = fleet_verdict(s, *gate);
  if (verdict.exit) fmt::print(stderr, "tuner: report: {} (--fail-on)\n", verdict.why);
  return verdict.exit;
}

}  // namespace tuner
