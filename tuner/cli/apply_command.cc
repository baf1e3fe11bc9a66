// tuner apply: profile -> plan -> journaled writes, each group verified by the verify
// loop (kept only when its benchmark proves a gain and no guard trips) unless
// --no-verify. Exit codes: 0 done (whatever the loop kept or rolled back), or nothing
// to change; 1 runtime failure (not root, another tuner running, an unfinished run, a
// write that failed: everything this run wrote has been rolled back); 2 bad input or
// usage (a profile, a benchmark that cannot run here, --root/--topology, no
// confirmation): nothing was changed.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <fmt/core.h>

#include "base/interrupt.h"
#include "base/result.h"
#include "base/strings.h"
#include "probes/inventory_json.h"
#include "rollback/apply.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/run_glue.h"
#include "tuner/cli/target_options.h"
#include "tuner/plan/planner.h"
#include "tuner/profile/parse_bench.h"
#include "tuner/profile/profile.h"

#include "tuner/cli/plan_for.h"
#include "tuner/cli/report/plan_text.h"
#include "tuner/cli/report/progress.h"
#include "tuner/cli/report/prometheus.h"
#include "tuner/verify/schedule.h"
#include "tuner/verify/verified_apply.h"

namespace po = boost::program_options;

namespace tuner {

namespace {

// A person confirms on a terminal; anything else must say --yes.
void confirm(const Plan& plan, const GlobalOptions& g) {
  if (!::isatty(STDIN_FILENO))
    fail_input("refusing to change this machine without confirmation: stdin is not a "
               "terminal; review 'tuner plan' and pass --yes. Nothing was changed");
  Term term(g.color, STDERR_FILENO);
  fmt::print(stderr, "{}", term.printable(format_plan(plan, term)));
  fmt::print(stderr, "apply {} change{}? [y/N] ", plan.changes.size(),
             plan.changes.size() == 1 ? "" : "s");
  std::string answer;
  if (!std::getline(std::cin, answer) || (answer != "y" && answer != "Y" && answer != "yes"))
    fail_input("not confirmed; nothing was changed");
}

}  // namespace

int apply_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc(
      "tuner apply: apply a profile, journaled so it can be rolled back.\n"
      "Refuses while an earlier run is unfinished (see 'tuner rollback').\n"
      "Without a terminal, --yes is required. Exit: 0 done or nothing to change,\n"
      "1 failure (changes rolled back; not root; another tuner running), 2 bad input,\n"
      "5 the run stands but --report or --prometheus could not be written");
  std::vector<std::string> profiles, bench;
  std::string report_file, prometheus_file;
  desc.add_options()("profile", po::value(&profiles)->value_name("PROFILE"),
                     "profile name or .toml path (repeatable; later wins)")(
      "no-verify", "apply without the verify loop (each group's decision: applied)")(
      "bench", po::value(&bench)->value_name("NAME"),
      "benchmark that decides every group (repeatable; default: the profile's)")(
      "budget", po::value<std::string>()->value_name("DURATION"),
      "time budget of the verify loop, e.g. 10m (default 10m)")(
      "seed", po::value<std::string>()->value_name("N"),
      "the trial order's seed (default: a fresh one from the kernel; each group's "
      "stats.seed and the journal say which): replays a run's order")(
      "yes,y", "do not ask for confirmation")("json", "print the tuner.run/1 JSON document")(
      "report", po::value(&report_file)->value_name("FILE"),
      "also write the tuner.run/1 JSON to FILE")(
      "prometheus", po::value(&prometheus_file)->value_name("FILE"),
      "also write the outcome as Prometheus metrics to FILE (node_exporter textfile)");
  add_selection_options(desc);
  add_target_options(desc);
  po::variables_map vm;
  if (!parse_options("apply", args, desc, {}, vm, g)) return 0;
  check_output_option(vm, "report");
  check_output_option(vm, "prometheus");
  if (vm.count("root") || vm.count("topology"))
    fail_input("apply changes the live machine only; --root and --topology are for "
               "'tuner plan' and 'tuner probe'. Nothing was changed");
  bool verify = !vm.count("no-verify");
  std::chrono::milliseconds budget = std::chrono::minutes(10);
  if (vm.count("budget")) {
    auto b = parse_duration(vm["budget"].as<std::string>());
    if (!b || b->count() <= 0)
      fail_input("--budget " + vm["budget"].as<std::string>() +
                 ": expected a duration such as 90s or 10m");
    budget = *b;
  }
  std::uint64_t seed = verify::fresh_seed();
  if (vm.count("seed")) {
    const auto& text = vm["seed"].as<std::string>();
    auto n = parse_u64(text);
    if (!n || *n >= (std::uint64_t{1} << 53))
      fail_input("apply: --seed " + text + ": expected a whole number below 2^53");
    seed = *n;
  }
  auto fault = fault_after_writes_from_env();
  if (!fault.ok()) fail_input(fault.error().message());
  auto fault_decisions = fault_after_decisions_from_env();
  if (!fault_decisions.ok()) fail_input(fault_decisions.error().message());
  require_root("tuner apply");

  // Plan first: a bad profile is reported before anything, the state dir included,
  // is created. apply_plan re-reads every current value under the lock anyway.
  Target target = open_target(vm);
  Planned planned = plan_with_context(g, profiles, target, vm.count("strict") > 0);
  const Plan& plan = planned.plan;
  if (verify && bench.empty() && planned.profile.verify.bench.empty() &&
      std::none_of(planned.profile.groups.begin(), planned.profile.groups.end(),
                   [](const auto& kv) { return kv.second.bench && !kv.second.bench->empty(); }))
    fail_input("profile " + planned.profile.name +
               " names no benchmark ([verify] bench) to verify its changes with; name one "
               "with --bench " +
               builtin_bench_list("|") +
               ", or apply unverified with --no-verify. "
               "Nothing was changed");
  if (!verify && !plan.searches.empty())
    fail_input("profile " + planned.profile.name + " searches " + plan.searches.front().setting +
               " (and " + std::to_string(plan.searches.size() - 1) +
               " more): only the verify loop can choose a value; drop --no-verify, or state "
               "one value. Nothing was changed");
  StateDir dir = open_state_dir(g, true);
  Lock lock = take_lock(dir);
  auto unfinished = find_unfinished_run(dir);
  if (!unfinished.ok()) fail_runtime(unfinished.error().message());
  if (*unfinished)
    fail_runtime(fmt::format(
        "run {} is unfinished (tuner stopped while changing this machine); undo it with "
        "'tuner rollback' or keep its changes with 'tuner rollback --abandon {}'. Nothing "
        "was changed",
        (*unfinished)->run_id, (*unfinished)->run_id));

  bool json = vm.count("json") > 0;
  if (plan.changes.empty()) {
    RunReport none;
    none.profiles = plan.profiles;
    none.node = node_facts(planned.inventory);
    print_run_report(none, json, report_file, g);
    if (!prometheus_file.empty())
      write_prometheus(prometheus_file, prometheus_run(none, unix_now()));
    return 0;
  }
  if (!vm.count("yes")) confirm(plan, g);
  // From here a signal is recorded, not fatal: the benchmark is stopped and the run
  // put back (ApplyRun::drive), then tuner exits 128 + the signal.
  catch_interrupts("stopping the benchmark and putting back what this run changed");

  LiveKnobs knobs;
  ApplyOptions options;
  options.fault_after_writes = *fault;
  options.fault_after_decisions = *fault_decisions;
  KnobFactory make = [&](const std::string& id) { return knobs.make(id); };
  Result<ApplyResult> result = Error::invalid("");
  if (verify) {
    verify::VerifiedApplyOptions vo;
    vo.apply = options;
    vo.bench_override = bench;
    vo.loop.budget = std::chrono::duration_cast<std::chrono::seconds>(budget);
    vo.loop.seed = seed;
    vo.loop = verify::loop_options(planned.profile, planned.inventory, plan, vo.loop);
    ProgressLine progress(g.color, json);
    result = verify::apply_verified(plan, planned.profile, planned.inventory, dir, make,
                                    target.root, SteadyClock::instance(), vo, progress.callback());
    progress.done();
    if (!result.ok()) {
      if (int sig = interrupt_signal())
        throw FatalError(static_cast<ExitCode>(128 + sig),
                         result.error().message() + "; nothing was changed");
      if (result.error().is(ErrorKind::invalid) || result.error().is(ErrorKind::missing))
        fail_input(result.error().message() + "; nothing was changed");
      fail_runtime(result.error().message() + "; nothing was changed");
    }
  } else {
    result = apply_plan(plan, dir, make, options);
    if (!result.ok()) fail_runtime(result.error().message() + "; nothing was changed");
  }
  result->report.node = node_facts(planned.inventory);
  result->report.notes = knobs.notes();
  print_run_report(result->report, json, report_file, g);
  if (!prometheus_file.empty())
    write_prometheus(prometheus_file, prometheus_run(result->report, unix_now()));
  // Interrupted: the run was put back (its first error says so); exit as the signal.
  if (int sig = interrupt_signal(); sig && result->outcome == ApplyOutcome::rolled_back)
    return 128 + sig;
  return result->outcome == ApplyOutcome::rolled_back ? 1 : 0;
}

}  // namespace tuner
