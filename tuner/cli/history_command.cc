// tuner history: runs newest first, with status (finished, unfinished, rolled_back,
// rollback_failed, abandoned), kind, profiles and counts. Read-only.
#include <iostream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/result.h"
#include "rollback/journal.h"
#include "rollback/rollback.h"
#include "tuner/cli/cli.h"
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
  if (!dir.ok() && dir.error().err != ENOENT) fail_runtime(dir.error().message() + " (--state-dir)");
  if (dir.ok()) {
    auto ids = list_runs(*dir);
    if (!ids.ok()) fail_runtime(ids.error().message());
    for (auto it = ids->rbegin(); it != ids->rend(); ++it) {
      auto text = read_journal(*dir, *it);
      if (!text.ok()) fail_runtime(text.error().message());
      runs.push_back(summarize_run(*it, *text));
    }
  }
  if (vm.count("json")) {
    nlohmann::json j{{"schema", "tuner.history/1"}, {"runs", nlohmann::json::array()}};
    for (const auto& r : runs)
      j["runs"].push_back({{"run_id", r.run_id}, {"kind", r.kind}, {"time", r.time},
                           {"status", run_status_name(r.status)}, {"profiles", r.profiles},
                           {"changes", r.intents}, {"done", r.done}, {"skipped", r.skipped},
                           {"failed", r.failed}, {"restored", r.restored}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  if (runs.empty()) {
    fmt::print("no runs recorded in {}\n", g.state_dir);
    return 0;
  }
  Term term(g.color, 1);
  for (const auto& r : runs) {
    std::string status = run_status_name(r.status);
    if (r.unfinished()) status = term.red(status);
    else if (r.status == RunStatus::finished) status = term.green(status);
    std::string profiles;
    for (const auto& p : r.profiles) profiles += (profiles.empty() ? "" : ",") + p;
    fmt::print("{}  {:<8} {:<16} {:<20} {} changes, {} done, {} skipped, {} failed, {} restored\n",
               r.run_id, r.kind, status, profiles.empty() ? "-" : profiles, r.intents, r.done,
               r.skipped, r.failed, r.restored);
  }
  return 0;
}

}  // namespace tuner
