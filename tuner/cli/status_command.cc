// tuner status: every kept setting (state.json) against its live value. Exit 0 when
// all match, 3 when any drifted (or could not be read), 1 when the state cannot be read.
// An unfinished run is reported too.
#include <iostream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/result.h"
#include "rollback/rollback.h"
#include "rollback/state.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/run_glue.h"
#include "tuner/cli/report/term.h"

namespace po = boost::program_options;

namespace tuner {

int status_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc(
      "tuner status: kept settings versus live values.\n"
      "Exit 0 no drift, 3 drift (a live value differs or cannot be read), 1 error");
  desc.add_options()("json", "print {\"schema\":\"tuner.status/1\",...}");
  po::variables_map vm;
  if (!parse_options("status", args, desc, {}, vm, g)) return 0;
  State state;
  std::optional<RunSummary> unfinished;
  auto dir = StateDir::open(g.state_dir, false);
  if (!dir.ok() && dir.error().err != ENOENT) fail_runtime(dir.error().message() + " (--state-dir)");
  if (dir.ok()) {
    auto s = load_state(*dir);
    if (!s.ok()) fail_runtime(s.error().message());
    state = std::move(s).value();
    auto u = find_unfinished_run(*dir);
    if (!u.ok()) fail_runtime(u.error().message());
    unfinished = *u;
  }
  LiveKnobs knobs;
  nlohmann::json items = nlohmann::json::array();
  unsigned drift = 0;
  Term term(g.color, 1);
  std::string text;
  for (const auto& [id, k] : state.knobs) {
    std::optional<std::string> live;
    std::string error;
    auto knob = knobs.make(id);
    if (knob.ok()) {
      auto v = (*knob)->read();
      if (v.ok()) live = *v;
      else error = v.error().message();
    } else {
      error = knob.error().message();
    }
    bool drifted = !live || *live != k.value;
    drift += drifted;
    nlohmann::json item{{"knob", id}, {"kept", k.value}, {"before", k.before},
                        {"run_id", k.run_id}, {"group", k.group}, {"drift", drifted},
                        {"live", live ? nlohmann::json(*live) : nlohmann::json()}};
    if (!error.empty()) item["error"] = error;
    items.push_back(std::move(item));
    if (!drifted)
      text += fmt::format("  {}  {} = {}\n", term.green("ok   "), id, k.value);
    else
      text += fmt::format("  {}  {}: kept {}, live {}\n", term.red("drift"), id, k.value,
                          live ? *live : "unreadable (" + error + ")");
  }
  if (vm.count("json")) {
    nlohmann::json j{{"schema", "tuner.status/1"}, {"knobs", items}, {"drift", drift},
                     {"unfinished_run", unfinished ? nlohmann::json(unfinished->run_id)
                                                   : nlohmann::json()}};
    std::cout << j.dump(2) << "\n";
  } else {
    if (state.knobs.empty()) text = "no kept settings\n";
    else text = fmt::format("{} kept settings, {} drifted\n", state.knobs.size(), drift) + text;
    if (unfinished)
      text += term.red("unfinished run ") + unfinished->run_id +
              ": undo it with 'tuner rollback'\n";
    std::cout << text;
  }
  return drift ? 3 : 0;
}

}  // namespace tuner
