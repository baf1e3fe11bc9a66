// tuner history: runs newest first, with status (finished, unfinished, rolled_back,
// rollback_failed, abandoned), kind, profiles and counts. Read-only.
#include <iostream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/result.h"
#include "rollback/journal.h"
#include "rollback/rollback.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/report/state_report.h"
#include "tuner/cli/report/term.h"

namespace po = boost::program_options;

namespace tuner {

int history_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc("tuner history: list runs, newest first");
  desc.add_options()("json", "print {\"schema\":\"tuner.history/1\",\"runs\":[...]}");
  po::variables_map vm;
  if (!parse_options("history", args, desc, {}, vm, g)) return 0;
  std::vector<RunSummary> runs;
  auto dir = StateDir::open(g.state_dir, false);
  if (!dir.ok() && dir.error().err != ENOENT)
    fail_runtime(dir.error().message() + " (--state-dir)");
  if (dir.ok()) {
    auto ids = list_runs(*dir);
    if (!ids.ok()) fail_runtime(ids.error().message());
    // A damaged or unreadable journal is listed with why: history always works.
    for (auto it = ids->rbegin(); it != ids->rend(); ++it)
      runs.push_back(read_run_summary(*dir, *it));
  }
  if (vm.count("json")) {
    print_document(history_json(runs));
    return 0;
  }
  Term term(g.color, 1);
  if (runs.empty()) {
    fmt::print("{}", term.printable(fmt::format("no runs recorded in {}\n", g.state_dir)));
    return 0;
  }
  fmt::print("{}", term.printable(format_history(runs, term)));
  return 0;
}

}  // namespace tuner
