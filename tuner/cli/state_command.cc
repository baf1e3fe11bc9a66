// tuner state rebuild: rewrite state.json from the journals, the way out when it is
// damaged (rollback/README.md "Ways out"). The old file is moved aside, not deleted.
// Exit 0 rebuilt, 1 failure (not root, another tuner, a journal directory that cannot
// be read), 2 usage.
#include <fmt/core.h>

#include "base/result.h"
#include "base/strings.h"
#include "rollback/state_rebuild.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/run_glue.h"

namespace po = boost::program_options;

namespace tuner {

int state_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc(
      "tuner state rebuild: rewrite state.json (the kept settings) from the journals in\n"
      "runs/, replaying every apply and rollback oldest first. The old state.json is kept\n"
      "beside it as state.json.bad-TIME. Nothing on the machine is changed.");
  std::string action;
  desc.add_options()("action", po::value(&action)->value_name("ACTION"), "rebuild");
  po::positional_options_description pos;
  pos.add("action", 1);
  po::variables_map vm;
  if (!parse_options("state", args, desc, pos, vm, g)) return 0;
  if (action != "rebuild")
    fail_input(action.empty() ? "state: say what to do: 'tuner state rebuild'"
                              : "state: unknown action '" + action + "' (expected rebuild)");
  require_root("tuner state rebuild");
  StateDir dir = open_state_dir(g, false);
  Lock lock = take_lock(dir);
  auto rebuilt = rewrite_state(dir);
  if (!rebuilt.ok()) fail_runtime(rebuilt.error().message());
  // Warnings go to stderr: stdout says what was done.
  // A warning quotes what a damaged journal holds: escaped, never sent to the terminal.
  for (const std::string& w : rebuilt->warnings)
    fmt::print(stderr, "tuner: warning: {}\n", escape_controls(w));
  fmt::print("state.json rebuilt from {} journal{}: {} kept setting{}\n", rebuilt->runs,
             rebuilt->runs == 1 ? "" : "s", rebuilt->state.knobs.size(),
             rebuilt->state.knobs.size() == 1 ? "" : "s");
  if (!rebuilt->moved_to.empty())
    fmt::print("the old state.json is now {}\n", escape_controls(rebuilt->moved_to));
  return 0;
}

}  // namespace tuner
