// tuner plan: what a profile would change on the target, as a diff or tuner.plan/1
// JSON. Read-only on every target.
#include <iostream>
#include <map>
#include <string>

#include <fmt/core.h>

#include "probes/hw_class.h"
#include "rollback/state_dir.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/plan_for.h"
#include "tuner/cli/report/plan_json.h"
#include "tuner/cli/report/plan_text.h"
#include "tuner/cli/target_options.h"
#include "tuner/verify/class_decisions.h"
#include "tuner/verify/earlier_verdicts.h"
#include "tuner/verify/verified_apply.h"

namespace po = boost::program_options;

namespace tuner {
namespace {

/// The plan's groups this node's verify loop rolled back from the same start; none
/// for another root or topology (the state dir is this machine's), or when the state
/// dir is missing or cannot be read (plan never needs it).
std::map<std::string, verify::EarlierVerdict> rejected_here(const GlobalOptions& g,
                                                            const Target& target,
                                                            const Plan& plan) {
  if (!target.writable()) return {};
  auto dir = StateDir::open(g.state_dir, false);
  if (!dir.ok()) return {};
  return verify::rejected_here(*dir, plan);
}

}  // namespace

int plan_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc("tuner plan");
  desc.add_options()(
      "profile", po::value<std::vector<std::string>>()->composing()->value_name("PROFILE"),
      "profile name or .toml path (repeat to merge; later wins); default: best match")(
      "json", "print the tuner.plan/1 JSON document")(
      "detailed-exitcode", "exit 3 when changes are pending, 0 when there are none")(
      "decisions", po::value<std::string>()->value_name("FILE"),
      "say what 'apply --decisions FILE' will do with each group: write it (the class kept "
      "it), skip it, or verify it here")(
      "require-decision", "with --decisions: as 'apply --require-decision' (exit 2 when FILE "
                          "has no decision for this node's class)");
  add_selection_options(desc);
  add_target_options(desc);
  add_class_label_option(desc);
  po::variables_map vm;
  if (!parse_options("plan", args, desc, {}, vm, g)) return 0;
  Target target = open_target(vm);
  std::vector<std::string> names;
  if (vm.count("profile")) names = vm["profile"].as<std::vector<std::string>>();
  if (vm.count("require-decision") && !vm.count("decisions"))
    fail_input("--require-decision needs --decisions FILE");
  if (!vm.count("decisions")) {
    Plan plan = plan_for(g, names, target, vm.count("strict") > 0);
    auto rejected = rejected_here(g, target, plan);
    if (vm.count("json")) {
      nlohmann::ordered_json doc = plan_to_json(plan);
      add_rejected_here(doc, rejected);
      print_document(doc);
    } else {
      Term term(g.color, 1);
      std::cout << term.printable(format_plan(plan, term) + rejected_here_text(rejected));
    }
    if (vm.count("detailed-exitcode") && !plan.changes.empty())
      return static_cast<int>(ExitCode::changes_pending);
    return 0;
  }
  // As apply --decisions decides: the same file checks, class and profile digest, and a
  // kept search's chosen value in place of the first candidate.
  auto decisions = verify::read_class_decisions(vm["decisions"].as<std::string>());
  if (!decisions.ok()) fail_input("--decisions: " + decisions.error().message());
  Planned planned = plan_with_context(g, names, target, vm.count("strict") > 0);
  HwClass cls = hw_class(planned.inventory, planned.inventory.class_label);
  verify::VerifiedApplyOptions o;
  o.decisions_file = vm["decisions"].as<std::string>();
  o.class_key = cls.key;
  o.require_decision = vm.count("require-decision") > 0;
  o.class_decision = decisions->find(cls.key, planned.profile.digest);
  if (!o.class_decision && o.require_decision)
    fail_input("--require-decision: " + decisions->why_not_found(cls.key, planned.profile.digest));
  std::vector<std::string> unknown;
  Plan plan = o.class_decision
                  ? verify::with_class_choices(planned.plan, *o.class_decision, unknown)
                  : planned.plan;
  PlanClassActions actions{
      o.decisions_file, cls.key, o.class_decision != nullptr, o.require_decision, {}};
  for (const PlanGroup& pg : plan.groups)
    actions.groups[pg.name] = verify::class_action(o, plan, pg.name);
  auto rejected = rejected_here(g, target, plan);
  if (vm.count("json")) {
    nlohmann::ordered_json doc = plan_to_json(plan, actions);
    add_rejected_here(doc, rejected);
    print_document(doc);
  } else {
    Term term(g.color, 1);
    std::cout << term.printable(format_plan(plan, term) + rejected_here_text(rejected) + "\n" +
                                class_actions_text(actions));
  }
  if (vm.count("detailed-exitcode") && !plan.changes.empty())
    return static_cast<int>(ExitCode::changes_pending);
  return 0;
}

}  // namespace tuner
