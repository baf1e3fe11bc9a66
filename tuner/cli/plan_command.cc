// tuner plan: what a profile would change on the target, as a diff or tuner.plan/1
// JSON. Read-only on every target.
#include <iostream>

#include <fmt/core.h>

#include "tuner/cli/cli.h"
#include "tuner/cli/plan_for.h"
#include "tuner/cli/report/plan_json.h"
#include "tuner/cli/report/plan_text.h"
#include "tuner/cli/target_options.h"

namespace po = boost::program_options;

namespace tuner {

int plan_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc("tuner plan");
  desc.add_options()(
      "profile", po::value<std::vector<std::string>>()->composing()->value_name("PROFILE"),
      "profile name or .toml path (repeat to merge; later wins); default: best match")(
      "json", "print the tuner.plan/1 JSON document")(
      "detailed-exitcode", "exit 3 when changes are pending, 0 when there are none");
  add_selection_options(desc);
  add_target_options(desc);
  add_class_label_option(desc);
  po::variables_map vm;
  if (!parse_options("plan", args, desc, {}, vm, g)) return 0;
  Target target = open_target(vm);
  std::vector<std::string> names;
  if (vm.count("profile")) names = vm["profile"].as<std::vector<std::string>>();
  Plan plan = plan_for(g, names, target, vm.count("strict") > 0);
  if (vm.count("json")) {
    print_document(plan_to_json(plan));
  } else {
    Term term(g.color, 1);
    std::cout << term.printable(format_plan(plan, term));
  }
  if (vm.count("detailed-exitcode") && !plan.changes.empty())
    return static_cast<int>(ExitCode::changes_pending);
  return 0;
}

}  // namespace tuner
