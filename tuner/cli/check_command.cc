// tuner check: the node's health findings, each with its severity, what was read and
// what fixes it (tuner/check/README.md). Reads only, like plan; exit 1 when a finding
// is at or above --fail-on, else 3 when a rule could not read its input.
#include <iostream>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/check/gather.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/plan_for.h"
#include "tuner/cli/report/check_report.h"
#include "tuner/cli/target_options.h"
#include "tuner/plan/planner.h"
#include "tuner/profile/match.h"
#include "tuner/profile/parse_bench.h"

namespace po = boost::program_options;

namespace tuner {
namespace {

constexpr auto kLiveWindow = std::chrono::seconds(5);
/// A rule could not be evaluated because reading its input failed, and no finding
/// reached --fail-on: the node was not (fully) checked, which is not "healthy".
constexpr int kNotChecked = 3;
constexpr auto kMaxWindow = std::chrono::hours(1);

/// --window: "5s", "500ms", "2m"; "0" skips the sampling. Unset: 5s on the live
/// machine, none on a capture (its files do not move).
std::chrono::milliseconds window_option(const po::variables_map& vm, const Target& target) {
  if (!vm.count("window")) return target.writable() ? kLiveWindow : std::chrono::milliseconds(0);
  const std::string text = vm["window"].as<std::string>();
  if (text == "0") return std::chrono::milliseconds(0);
  auto d = parse_duration(text);
  if (!d || *d > kMaxWindow)
    fail_input(fmt::format("check: --window: expected a duration up to 1h (5s, 500ms, 2m) or "
                           "0, got '{}'",
                           text));
  return *d;
}

/// "live", "root:DIR" or "xml:FILE", whatever the probes could read.
std::string target_name(const Target& target) {
  if (target.topology_xml) return "xml:" + *target.topology_xml;
  return target.root.is_live() ? "live" : "root:" + target.root.dir();
}

/// The profile the governor rule compares with: the named ones, merged, as plan takes
/// them; without --profile the best match, and when none matches the rule is skipped.
std::optional<Profile> choose_profile(const GlobalOptions& g, const po::variables_map& vm,
                                      const Inventory& inv, GatherOptions& opt) {
  std::vector<std::string> names;
  if (vm.count("profile")) names = vm["profile"].as<std::vector<std::string>>();
  if (names.empty()) {
    std::vector<Error> broken;
    auto best = best_profile(profile_search_path(g.profile_path), inv, &broken);
    // As plan says it: a broken profile left out may be the one meant for this machine.
    for (const Error& e : broken)
      fmt::print(stderr, "tuner: warning: left out of automatic selection: {}\n",
                 escape_controls(e.message()));
    if (!best.ok()) {
      opt.governor_skipped = "no --profile, and " + best.error().message();
      return std::nullopt;
    }
    names.push_back(*best);
  }
  Profile p = load_profiles(g, names, inv, false);
  opt.profile = p.name;
  if (p.cpu.governor) opt.profile_governor = p.cpu.governor->value;
  return p;
}

/// What the profile's plan writes, for the rules that compare tuner's settings with
/// tuned's and NetworkManager's. A plan that cannot be made (a request the node cannot
/// take) leaves them with the kept settings alone: `plan` says why.
void planned_values(const Profile& profile, const Inventory& inv, const Target& target,
                    GatherOptions& opt) {
  auto plan = make_plan(profile, inv, target);
  if (!plan.ok()) return;
  for (const Change& c : plan->changes) opt.planned[c.knob] = c.desired;
}

}  // namespace

int check_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc("tuner check");
  std::string fail_on = "warning";
  desc.add_options()(
      "profile", po::value<std::vector<std::string>>()->composing()->value_name("PROFILE"),
      "profile the governor rule compares with (repeat to merge; later wins); default: best "
      "match")("json", "print the tuner.check/1 JSON document")(
      "fail-on", po::value(&fail_on)->value_name("SEVERITY"),
      "exit 1 when a finding is this severe or more: info, warning (default) or error "
      "(else 3 when a rule could not read its input); never: exit 0 whatever is found or "
      "not read (monitoring reads the report)")(
      "window", po::value<std::string>()->value_name("DURATION"),
      "sample NIC drops and errors over this long (default 5s live, 0 on --root); 0 skips");
  add_target_options(desc);
  po::variables_map vm;
  if (!parse_options("check", args, desc, {}, vm, g)) return 0;
  auto threshold = parse_severity(fail_on);
  const bool never = fail_on == "never";
  if (!threshold && !never)
    fail_input(
        fmt::format("check: --fail-on: expected info, warning, error or never, got '{}'", fail_on));
  Target target = open_target(vm);
  GatherOptions opt;
  opt.window = window_option(vm, target);
  Inventory inv = probe_target(target);
  if (auto profile = choose_profile(g, vm, inv, opt)) planned_values(*profile, inv, target, opt);
  // Which runs pinned IRQs: this machine's state, or a capture's own (ROOT/var/lib/tuner)
  // unless --state-dir names one; an export has none.
  if (!target.topology_xml) {
    if (target.root.is_live() || vm.count("state-dir")) opt.state_dir = g.state_dir;
    else opt.state_dir = target.root.dir() + "/var/lib/tuner";
  }
  CheckReport report = run_checks(gather_check_input(target, std::move(inv), opt));
  report.target = target_name(target);
  report.profile = opt.profile;
  report.window_s = std::chrono::duration<double>(opt.window).count();
  if (vm.count("json")) {
    print_document(check_to_json(report));
  } else {
    Term term(g.color, 1);
    std::cout << term.printable(format_check(report, term));
    Term err(g.color, 2);
    for (const ProbeError& e : report.errors)
      std::cerr << err.printable("tuner: " + err.yellow("warning") + ": " + e.probe + ": " +
                                 e.message + "\n");
  }
  if (never) return 0;
  if (auto worst = report.worst(); worst && *worst >= *threshold)
    return static_cast<int>(ExitCode::failure);
  return report.unreadable() > 0 ? kNotChecked : 0;
}

}  // namespace tuner
