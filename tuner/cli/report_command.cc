// tuner report FILE|DIR...: the fleet summary of reports a playbook fetched (tuner.run/1
// from apply --report or --json, tuner.probe/1 from probe --json, tuner.status/1 from
// status --json, the playbook's tuner.failure/1). A directory means every *.json in it.
// Reads files only; changes nothing. Files it cannot read as a report are skipped and
// named; exit 2 only when none could be read. --fail-on makes it a CI gate
// (report/fleet_gate.h).
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <iostream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/fd_io.h"
#include "base/json_nesting.h"
#include "base/result.h"
#include "base/strings.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/report/fleet.h"
#include "tuner/cli/report/fleet_gate.h"
#include "tuner/cli/report/html_report.h"
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

/// Parses only what read_node_report reads (schema, time, run_id, node, profiles, groups'
/// names and decisions, errors, msg, rc, knobs' ids, states and drift, unfinished_run),
/// and the first kMaxFactsPerNode of the node's facts (`facts` counts them all): a report
/// padded with other data or millions of facts costs its text, not a DOM of it.
nlohmann::json parse_report(const std::string& text, std::size_t& facts) {
  using Event = nlohmann::json::parse_event_t;
  std::string top;
  facts = 0;
  auto keep = [&](int depth, Event event, nlohmann::json& parsed) {
    if (event != Event::key) return true;
    const auto& key = parsed.get_ref<const std::string&>();
    if (depth == 1) {
      top = key;
      return key == "schema" || key == "time" || key == "run_id" || key == "node" ||
             key == "profiles" || key == "groups" || key == "errors" || key == "msg" ||
             key == "rc" || key == "knobs" || key == "unfinished_run" || key == "findings";
    }
    if (depth == 2 && top == "node") return ++facts <= kMaxFactsPerNode;
    if (depth == 3 && top == "groups") return key == "name" || key == "decision";
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
      "tuner.status/1, tuner.check/1, tuner.failure/1): why nodes failed, what each\n"
      "profile's nodes kept and rolled back, which kept settings drifted, the health\n"
      "findings, and the facts on which nodes differ.\n"
      "A file that is not a report this tuner reads (another program's, a newer\n"
      "tuner's) is skipped with a warning; the rest is summarized.\n"
      "Exit: 0 summarized, 2 nothing could be read; with --fail-on, 1 a node failed,\n"
      "4 a node's run is unfinished, 3 a kept setting drifted");
  std::vector<std::string> inputs, fail_on;
  desc.add_options()("json", "print the tuner.fleet/1 JSON document")(
      "fail-on", po::value(&fail_on)->value_name("failed|drift"),
      "exit non-zero when a node failed or drifted (repeatable, or comma-separated)")(
      "html", po::value<std::string>()->value_name("FILE"),
      "also write every verify decision with its trials as one HTML page")(
      "file", po::value(&inputs)->value_name("FILE"), "report file or directory (repeatable)");
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  if (!parse_options("report", args, desc, pos, vm, g)) return 0;
  check_output_option(vm, "html");
  if (inputs.empty()) fail_input("report: name the report files or directories to summarize");
  auto gate = parse_fleet_gate(fail_on);
  if (!gate.ok()) fail_input("report: " + gate.error().message());
  std::vector<NodeReport> reports;
  std::vector<std::string> bad, subdirs;
  std::size_t fact_bytes = 0, facts_left_out = 0;
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
      std::size_t facts = 0;
      auto doc = parse_report(*text, facts);
      if (doc.is_discarded()) {
        bad.push_back(file + ": not JSON");
        continue;
      }
      auto r = read_node_report(doc, file);
      if (!r.ok()) {
        bad.push_back(r.error().message());
        continue;
      }
      if (facts > kMaxFactsPerNode)
        r->dropped.push_back(
            fmt::format("{} facts past {}", facts - kMaxFactsPerNode, kMaxFactsPerNode));
      for (const std::string& d : r->dropped) warn(fmt::format("report: {}: {} left out", file, d));
      // The whole fleet's facts are bounded too: past it, a document counts without them.
      for (const auto& [k, v] : r->facts) fact_bytes += k.size() + v.size();
      if (fact_bytes > kMaxFleetFactBytes) {
        facts_left_out += !r->facts.empty();
        r->facts.clear();
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
  FleetVerdict verdict = fleet_verdict(s, *gate);
  if (verdict.exit) fmt::print(stderr, "tuner: report: {} (--fail-on)\n", verdict.why);
  return verdict.exit;
}

}  // namespace tuner
