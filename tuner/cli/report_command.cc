// tuner report FILE|DIR...: the fleet summary of reports a playbook fetched (tuner.run/1
// from apply --report or --json, tuner.probe/1 from probe --json). A directory means
// every *.json in it. Reads files only; changes nothing. Files it cannot read as a report
// are skipped and named; exit 2 only when none could be read.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <iostream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/fd_io.h"
#include "base/result.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/report/fleet.h"

namespace po = boost::program_options;

namespace tuner {

namespace {

/// FILE as is; DIR as its *.json files, sorted.
std::vector<std::string> expand(const std::string& arg) {
  struct stat st {};
  if (::stat(arg.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return {arg};
  std::vector<std::string> files;
  if (DIR* d = ::opendir(arg.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 5 && name.ends_with(".json")) files.push_back(arg + "/" + name);
    }
    ::closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int report_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc(
      "tuner report FILE|DIR...: summarize a fleet's reports (tuner.run/1, tuner.probe/1):\n"
      "what each node kept and rolled back, and the facts on which nodes differ.\n"
      "A file that is not a report this tuner reads (another program's, a newer\n"
      "tuner's) is skipped with a warning; the rest is summarized.\n"
      "Exit: 0 summarized, 2 nothing could be read");
  std::vector<std::string> inputs;
  desc.add_options()("json", "print the tuner.fleet/1 JSON document")(
      "file", po::value(&inputs)->value_name("FILE"), "report file or directory (repeatable)");
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  if (!parse_options("report", args, desc, pos, vm, g)) return 0;
  if (inputs.empty()) fail_input("report: name the report files or directories to summarize");
  std::vector<NodeReport> reports;
  std::vector<std::string> bad;
  for (const std::string& arg : inputs) {
    for (const std::string& file : expand(arg)) {
      // Reports are small; the limit keeps a wrong path (a disk image) from filling memory.
      auto text = read_file(file, ReadLimits{.max_bytes = 64u << 20, .regular_only = true});
      if (!text.ok()) {
        bad.push_back(text.error().message());
        continue;
      }
      auto doc = nlohmann::json::parse(*text, nullptr, false);
      if (doc.is_discarded()) {
        bad.push_back(file + ": not JSON");
        continue;
      }
      auto r = read_node_report(doc, file);
      if (!r.ok()) bad.push_back(r.error().message());
      else reports.push_back(std::move(r).value());
    }
  }
  if (reports.empty()) {
    if (bad.empty()) fail_input("report: no *.json files in " + inputs.front());
    std::string list;
    for (const std::string& b : bad) list += "\n  " + b;
    fail_input(fmt::format("report: none of {} files is a tuner report; nothing summarized:{}",
                           bad.size(), list));
  }
  // One foreign or newer file must not hide the fleet (nor stop a rollout that
  // summarizes after each batch): the rest is summarized, the file named.
  Term err(g.color, 2);
  for (const std::string& b : bad)
    std::cerr << err.printable("tuner: " + err.yellow("warning") + ": report: skipped " + b + "\n");
  FleetSummary s = summarize_fleet(reports);
  s.skipped = std::move(bad);
  Term term(g.color, 1);
  if (vm.count("json")) print_document(fleet_json(s));
  else std::cout << term.printable(format_fleet_text(s, term));
  return 0;
}

}  // namespace tuner
