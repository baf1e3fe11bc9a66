// tuner rollback [RUN_ID | --last] [--force] [--abandon RUN_ID] [--json]: put back what
// a run changed, from its journal alone. Exit 0 all restored (or gone, or never
// changed), 1 a knob could not be restored (the run stays unfinished when a retry could
// mend it; run it again), 2 nothing to roll back / bad id, 3 done, but a knob someone
// else changed since the run was left as it is (--force restores it).
#include <iostream>

#include <fmt/core.h>

#include "base/interrupt.h"
#include "base/result.h"
#include "rollback/journal.h"
#include "rollback/rollback.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/run_glue.h"

namespace po = boost::program_options;

namespace tuner {

int rollback_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc(
      "tuner rollback [RUN_ID | --last]: undo a run, newest change first.\n"
      "Without arguments: the unfinished run (a crashed or killed apply).\n"
      "A setting someone else changed since the run is left as it is (exit 3) unless\n"
      "--force. --abandon RUN_ID marks an unfinished run finished WITHOUT undoing it, so\n"
      "apply can run again; its changes stay as they are.\n"
      "Exit: 0 restored, 1 a knob could not be restored, 2 nothing to roll back,\n"
      "3 a changed setting was left as it is");
  std::string run_id, abandon;
  desc.add_options()("run-id", po::value(&run_id)->value_name("RUN_ID"),
                     "the run to undo (see 'tuner history')")(
      "last", "undo the newest apply that is still in force")(
      "abandon", po::value(&abandon)->value_name("RUN_ID"),
      "forget an unfinished run without undoing it")(
      "force", "restore settings someone else changed since the run too (on a run already rolled "
               "back: the ones its rollback left)")("json", "print the tuner.run/1 JSON document");
  po::positional_options_description pos;
  pos.add("run-id", 1);
  po::variables_map vm;
  if (!parse_options("rollback", args, desc, pos, vm, g)) return 0;
  int given = !run_id.empty() + (vm.count("last") > 0) + !abandon.empty();
  if (given > 1) fail_input("give one of RUN_ID, --last or --abandon RUN_ID");
  bool force = vm.count("force") > 0;
  if (force && !abandon.empty()) fail_input("--force undoes a run; --abandon keeps it");
  for (const std::string* id : {&run_id, &abandon})
    if (!id->empty() && !valid_run_id(*id))
      fail_input(
          fmt::format("'{}' is not a run id (YYYYMMDDTHHMMSSZ-xxxx; see 'tuner history')", *id));
  require_root("tuner rollback");

  auto opened = StateDir::open(g.state_dir, false);
  if (!opened.ok()) {
    if (opened.error().err == ENOENT)
      fail_input(fmt::format("no runs recorded in {}: nothing to roll back", g.state_dir));
    fail_runtime(opened.error().message() + " (--state-dir)");
  }
  StateDir dir = std::move(opened).value();
  Lock lock = take_lock(dir);

  if (!abandon.empty()) {
    if (auto s = abandon_run(dir, abandon); !s.ok()) fail_input(s.error().message());
    fmt::print("run {} abandoned: its changes were left as they are\n", abandon);
    return 0;
  }
  if (vm.count("last")) {
    auto runs = list_runs(dir);
    if (!runs.ok()) fail_runtime(runs.error().message());
    if (runs->empty()) fail_input(fmt::format("no runs recorded in {}", g.state_dir));
    // The newest apply still in force. A `restore` run (boot) only re-applies what
    // earlier applies kept; undoing it would leave their settings in place, so --last
    // undoes the apply itself, whose before-values are the untuned machine's.
    // With --force, a rolled-back apply whose rollback left changed settings counts too.
    for (auto it = runs->rbegin(); it != runs->rend() && run_id.empty(); ++it) {
      RunSummary run = read_run_summary(dir, *it);
      if (!run.error.empty() || run.kind != RunKind::apply || run.status == RunStatus::abandoned)
        continue;
      if (run.status != RunStatus::rolled_back || (force && !run.left.empty())) run_id = *it;
    }
    if (run_id.empty()) fail_input("no applied run left to roll back (see 'tuner history')");
  } else if (run_id.empty()) {
    auto unfinished = find_unfinished_run(dir);
    if (!unfinished.ok()) fail_runtime(unfinished.error().message());
    if (!*unfinished)
      fail_input("no unfinished run to roll back; name one with RUN_ID or --last "
                 "(see 'tuner history')");
    run_id = (*unfinished)->run_id;
  }

  // A signal now would leave the run half put back: finish first (base/interrupt.h).
  catch_interrupts("finishing the rollback first");
  LiveKnobs knobs;
  RollbackOptions options;
  options.force = force;
  auto report = rollback_run(
      dir, run_id, [&](const std::string& id) { return knobs.make(id); }, options);
  if (!report.ok()) {
    if (report.error().err == ENOENT) fail_input(report.error().message());
    fail_runtime(report.error().message());
  }
  report->notes = knobs.notes();
  print_run_report(*report, vm.count("json") > 0, "", g);
  if (!report->errors.empty()) return 1;
  for (const GroupReport& group : report->groups)
    for (const ChangeReport& c : group.changes)
      if (c.status == ChangeStatus::changed_since) return 3;
  return 0;
}

}  // namespace tuner
