// tuner restore: re-apply the kept settings of state.json (at boot), no benchmarks.
// Journaled as a run of its own (kind "restore"), so it can be rolled back too; it
// writes only what differs and leaves state.json as it is. A kept knob whose object is
// gone is reported gone and skipped; an entry whose id does not parse, skipped. Exit 0 restored or nothing to do, 1 failure (what
// it wrote has been put back).
#include <algorithm>
#include <iostream>

#include <fmt/core.h>

#include "base/result.h"
#include "rollback/apply.h"
#include "rollback/state.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/run_glue.h"
#include "tuner/knobs/knob_id.h"
#include "tuner/plan/planner.h"

namespace po = boost::program_options;

namespace tuner {

int restore_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc("tuner restore: re-apply the kept settings (at boot)");
  desc.add_options()("json", "print the tuner.run/1 JSON document");
  po::variables_map vm;
  if (!parse_options("restore", args, desc, {}, vm, g)) return 0;
  bool json = vm.count("json") > 0;
  require_root("tuner restore");
  auto opened = StateDir::open(g.state_dir, false);
  if (!opened.ok() && opened.error().err == ENOENT) {
    print_run_report(RunReport{}, json, "", g);  // never tuned: nothing to restore
    return 0;
  }
  if (!opened.ok()) fail_runtime(opened.error().message() + " (--state-dir)");
  StateDir dir = std::move(opened).value();
  Lock lock = take_lock(dir);
  auto unfinished = find_unfinished_run(dir);
  if (!unfinished.ok()) fail_runtime(unfinished.error().message());
  if (*unfinished)
    fail_runtime(fmt::format("run {} is unfinished; settle it first with 'tuner rollback' or "
                             "'tuner rollback --abandon {}'. Nothing was changed",
                             (*unfinished)->run_id, (*unfinished)->run_id));
  auto state = load_state(dir);
  if (!state.ok()) fail_runtime(state.error().message());

  LiveKnobs knobs;
  Plan plan;
  // A kept knob whose object is gone (a NIC unplugged or renamed, a CPU offline for
  // good) cannot be restored and must not stop the others: reported gone, left kept
  // in state.json (it comes back when its object does), the rest restored.
  std::vector<ChangeReport> gone;
  for (const auto& [id, k] : state->knobs) {
    // An IRQ kept by number (no MSI index when it was planned): after a reboot the
    // number may be another device's, so it is not re-applied blind (issue 41).
    if (auto parsed = parse_knob_id(id);
        parsed.ok() && parsed->kind == KnobKind::irq_affinity && !parsed->by_owner()) {
      gone.push_back({id, std::nullopt, k.value, ChangeStatus::skipped,
                      "named by IRQ number (no MSI index when planned), which may be another "
                      "device's after a reboot: not restored; 'tuner apply' plans it again"});
      continue;
    }
    auto knob = knobs.make(id);
    std::optional<Error> why;
    if (!knob.ok()) why = knob.error();
    else if (auto v = (*knob)->read(); !v.ok()) why = v.error();
    // A queue's mask is written after its NIC's kept channel count (when that is to be
    // written too): the channel write makes the queue, or resets a driver's XPS map.
    std::string after;
    if (auto parsed = parse_knob_id(id); parsed.ok())
      if (auto parent = made_by(*parsed); parent && state->knobs.contains(parent->str())) {
        auto channels = knobs.make(parent->str());
        auto now = channels.ok() ? (*channels)->read() : Result<std::string>(channels.error());
        if (now.ok() && *now != state->knobs.at(parent->str()).value) after = parent->str();
      }
    if (why && why->is(ErrorKind::missing) && after.empty()) {
      gone.push_back({id, std::nullopt, k.value, ChangeStatus::gone, why->message()});
      continue;
    }
    Change change{id, k.group, std::nullopt, k.value, "kept by run " + k.run_id};
    change.written_after = after;
    plan.changes.push_back(std::move(change));
  }
  // An entry whose id does not parse (a damaged state.json) cannot be restored either:
  // reported skipped, the others restored.
  for (const auto& [id, d] : state->damaged)
    gone.push_back(
        {id, std::nullopt, "", ChangeStatus::skipped, d.why + "; 'tuner state rebuild' drops it"});
  // The order apply wrote them in: a governor before its policy's energy preference.
  order_changes(plan.changes);
  ApplyOptions options;
  options.kind = RunKind::restore;
  options.record_state = false;
  auto fault = fault_after_writes_from_env();
  if (!fault.ok()) fail_input(fault.error().message());
  options.fault_after_writes = *fault;
  auto result = apply_plan(
      plan, dir, [&](const std::string& id) { return knobs.make(id); }, options);
  if (!result.ok()) fail_runtime(result.error().message() + "; nothing was changed");
  for (ChangeReport& c : gone) {
    auto kept = state->knobs.find(c.knob);
    const std::string& group = kept != state->knobs.end() ? kept->second.group
                                                          : state->damaged.at(c.knob).group;
    auto& groups = result->report.groups;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const GroupReport& r) { return r.name == group; });
    if (it == groups.end()) {
      groups.push_back({group, GroupDecision::applied, {}, nlohmann::json::object()});
      it = groups.end() - 1;
    }
    it->changes.push_back(std::move(c));
  }
  result->report.notes = knobs.notes();
  print_run_report(result->report, json, "", g);
  return result->outcome == ApplyOutcome::rolled_back ? 1 : 0;
}

}  // namespace tuner
