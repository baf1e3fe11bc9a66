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

#include "base/atomic_file.h"
#include "base/interrupt.h"
#include "base/result.h"
#include "base/strings.h"
#include "probes/bench/tcp.h"
#include "probes/hw_class.h"
#include "probes/inventory_json.h"
#include "rollback/apply.h"
#include "rollback/journal.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/run_glue.h"
#include "tuner/cli/target_options.h"
#include "tuner/plan/planner.h"
#include "tuner/profile/parse_bench.h"
#include "tuner/profile/profile.h"

#include "tuner/cli/plan_for.h"
#include "tuner/cli/report/json_text.h"
#include "tuner/cli/report/plan_text.h"
#include "tuner/cli/report/progress.h"
#include "tuner/cli/report/prometheus.h"
#include "tuner/verify/class_decisions.h"
#include "tuner/verify/decision_record.h"
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

/// Writes the canary's tuner.decision/1 (--decisions-out); exit 5 when it cannot be
/// written (the run stands, as for --report).
void write_decision_record(const std::string& file, const RunReport& report, const Planned& planned,
                           const nlohmann::json& cls) {
  verify::DecisionRecordFacts facts;
  facts.hw_class = cls;
  facts.profiles = planned.plan.profiles;
  facts.profile_digest = planned.profile.digest;
  facts.false_keep_rate = planned.profile.verify.false_keep_rate;
  facts.tuner_version = TUNER_VERSION;
  facts.min_effect = planned.profile.verify.min_effect;
  facts.machine_id = verify::read_machine_id();
  nlohmann::json doc = verify::decision_record_json(report, facts);
  if (Status s = write_file_atomic(file, json_text(doc), 0600); !s.ok())
    fail_output(s.error().message() + " (--decisions-out; what the run did stands: see 'tuner " +
                "history')");
}

/// --decisions, --decisions-out and --require-decision together with the rest.
void check_decision_options(const po::variables_map& vm, bool verify) {
  if (vm.count("decisions-out") && !verify)
    fail_input("--decisions-out records what the verify loop decided; with --no-verify "
               "nothing is decided. Nothing was changed");
  if (vm.count("decisions") && !verify)
    fail_input("--decisions reuses the class's verification under a guard soak; "
               "--no-verify would skip the soak too. Nothing was changed");
  if (vm.count("decisions") && vm.count("decisions-out"))
    fail_input("--decisions and --decisions-out: a node that reuses its class's decisions "
               "decides nothing of its own to record (canaries run with --decisions-out, "
               "the rest with --decisions). Nothing was changed");
  if (vm.count("peer") && !verify)
    fail_input("--peer is where the verify loop's peer benchmarks run; with --no-verify "
               "nothing is measured. Nothing was changed");
  if (vm.count("peer") && vm["peer"].as<std::string>().empty())
    fail_input("--peer: empty address. Nothing was changed");
  if (vm.count("peer-key") && !vm.count("peer"))
    fail_input("--peer-key is the key the --peer server must prove; without --peer no peer "
               "benchmark runs. Nothing was changed");
  if (vm.count("require-decision") && !vm.count("decisions"))
    fail_input("--require-decision needs --decisions FILE. Nothing was changed");
}

/// The key --peer's server must prove, and a --peer that is a real other node: a key
/// from --peer-key or $TUNER_PEER_KEY (exit 2 without one), an address that parses and
/// is not this node's own (a peer benchmark against itself measures loopback).
bench::tcp::PeerKey peer_key_or_fail(const po::variables_map& vm, const std::string& peer) {
  auto at = bench::tcp::parse_endpoint(peer, bench::kServePort);
  if (!at.ok()) fail_input("--peer: " + at.error().message() + ". Nothing was changed");
  auto own = bench::tcp::is_own_address(*at);
  if (own.ok() && *own)
    fail_input(fmt::format("--peer {} is this node itself: a peer benchmark against it would "
                           "measure loopback. Name the other canary. Nothing was changed",
                           peer));
  auto key = bench::tcp::peer_key_from(vm.count("peer-key") ? vm["peer-key"].as<std::string>()
                                                            : std::string());
  if (!key.ok()) fail_input("--peer-key: " + key.error().message() + ". Nothing was changed");
  if (key->empty())
    fail_input(fmt::format("--peer needs the rollout's key, which the server there must prove: "
                           "--peer-key FILE or {}. Nothing was changed",
                           bench::tcp::kPeerKeyEnv));
  return *key;
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
  std::string report_file, prometheus_file, decisions_out, decisions_file;
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
      "also write the outcome as Prometheus metrics to FILE (node_exporter textfile)")(
      "decisions-out", po::value(&decisions_out)->value_name("FILE"),
      "on a canary: also write this run's decisions (tuner.decision/1) to FILE")(
      "decisions", po::value(&decisions_file)->value_name("FILE"),
      "reuse the class decisions in FILE (tuner.decisions/1 from 'tuner report "
      "--decisions-out'): groups the class kept are written and soaked, not benchmarked")(
      "peer", po::value<std::string>()->value_name("ADDR"),
      "run the tcp benchmarks of peer = true groups against ADDR (where 'tuner bench "
      "--serve' runs); without it those groups are decided by the guard soak alone")(
      "peer-key", po::value<std::string>()->value_name("FILE"),
      "the rollout's key the peer must prove (a file only root can read; default: "
      "$TUNER_PEER_KEY). Required with --peer")(
      "require-decision",
      "with --decisions: exit 2 when FILE has no decision for this node's class and "
      "profiles, and never verify a group here");
  add_selection_options(desc);
  add_target_options(desc);
  add_class_label_option(desc);
  po::variables_map vm;
  if (!parse_options("apply", args, desc, {}, vm, g)) return 0;
  check_output_option(vm, "report");
  check_output_option(vm, "prometheus");
  check_output_option(vm, "decisions-out");
  if (vm.count("root") || vm.count("topology"))
    fail_input("apply changes the live machine only; --root and --topology are for "
               "'tuner plan' and 'tuner probe'. Nothing was changed");
  bool verify = !vm.count("no-verify");
  check_decision_options(vm, verify);
  // Before anything is planned or asked: a peer run without its key changes nothing.
  bench::tcp::PeerKey peer_key;
  if (vm.count("peer")) peer_key = peer_key_or_fail(vm, vm["peer"].as<std::string>());
  std::chrono::milliseconds budget = kDefaultVerifyBudget;
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
  std::optional<verify::ClassDecisions> decisions;
  if (!decisions_file.empty()) {
    auto d = verify::read_class_decisions(decisions_file);
    if (!d.ok()) fail_input("--decisions: " + d.error().message() + ". Nothing was changed");
    decisions = std::move(d).value();
  }

  // Plan first: a bad profile is reported before anything, the state dir included,
  // is created. apply_plan re-reads every current value under the lock anyway.
  Target target = open_target(vm);
  Planned planned = plan_with_context(g, profiles, target, vm.count("strict") > 0);
  const Plan& plan = planned.plan;
  HwClass cls = hw_class(planned.inventory, planned.inventory.class_label);
  nlohmann::json cls_json = hw_class_json(cls);
  const verify::ClassDecision* class_decision =
      decisions ? decisions->find(cls.key, planned.profile.digest) : nullptr;
  if (decisions && !class_decision) {
    std::string why = decisions->why_not_found(cls.key, planned.profile.digest);
    if (vm.count("require-decision"))
      fail_input("--require-decision: " + why + ". Nothing was changed");
    fmt::print(stderr, "tuner: warning: {}; every group is verified on this node\n",
               escape_controls(why));
  }
  if (verify && !class_decision && bench.empty() && planned.profile.verify.bench.empty() &&
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
    none.profile_digest = planned.profile.digest;
    none.node = node_facts(planned.inventory);
    none.hw_class = cls_json;
    none.time = utc_now();
    print_run_report(none, json, report_file, g);
    if (!decisions_out.empty()) write_decision_record(decisions_out, none, planned, cls_json);
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
    // Without --budget, the profile's [verify] budget, else the default.
    if (!vm.count("budget") && planned.profile.verify.budget)
      budget = *planned.profile.verify.budget;
    vo.loop.budget = std::chrono::duration_cast<std::chrono::seconds>(budget);
    vo.loop.seed = seed;
    vo.loop = verify::loop_options(planned.profile, planned.inventory, plan, vo.loop);
    vo.class_decision = class_decision;
    vo.class_key = cls.key;
    vo.decisions_file = decisions_file;
    vo.require_decision = vm.count("require-decision") > 0;
    if (vm.count("peer")) vo.peer = vm["peer"].as<std::string>();
    vo.peer_key = peer_key;
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
  result->report.profile_digest = planned.profile.digest;
  result->report.notes = knobs.notes();
  result->report.hw_class = cls_json;
  result->report.time = utc_now();
  print_run_report(result->report, json, report_file, g);
  if (!decisions_out.empty())
    write_decision_record(decisions_out, result->report, planned, cls_json);
  if (!prometheus_file.empty())
    write_prometheus(prometheus_file, prometheus_run(result->report, unix_now()));
  // Interrupted: the run was put back (its first error says so); exit as the signal.
  if (int sig = interrupt_signal(); sig && result->outcome == ApplyOutcome::rolled_back)
    return 128 + sig;
  return result->outcome == ApplyOutcome::rolled_back ? 1 : 0;
}

}  // namespace tuner
