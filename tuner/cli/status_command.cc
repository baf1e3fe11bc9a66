// tuner status: every kept setting (state.json) against its live value. Exit 0 when
// all match, 3 when any drifted (changed, gone or unreadable), 4 when a run is
// unfinished (apply refuses until it is settled; it outranks drift), 1 when the state
// cannot be read.
#include <iostream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/result.h"
#include "rollback/rollback.h"
#include "rollback/state.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/report/prometheus.h"
#include "tuner/cli/report/state_report.h"
#include "tuner/cli/report/term.h"
#include "tuner/cli/run_glue.h"

namespace po = boost::program_options;

namespace tuner {

int status_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc(
      "tuner status: kept settings versus live values.\n"
      "Exit 0 no drift, 3 drift (a live value differs, is gone or cannot be read),\n"
      "4 an unfinished run (apply refuses until 'tuner rollback' or --abandon), 1 error\n"
      "(--prometheus then says tuner_status_error 1), 5 --prometheus not written");
  std::string prometheus_file;
  desc.add_options()("json", "print {\"schema\":\"tuner.status/1\",...}")(
      "prometheus", po::value(&prometheus_file)->value_name("FILE"),
      "also write kept and drifted counts as Prometheus metrics to FILE");
  po::variables_map vm;
  if (!parse_options("status", args, desc, {}, vm, g)) return 0;
  check_output_option(vm, "prometheus");
  // A status that cannot be told still replaces the textfile: an old "no drift" left
  // behind would read as healthy for ever (tuner_status_error 1 says it is not).
  auto fail = [&](const std::string& message) {
    if (prometheus_file.empty()) fail_runtime(message);
    Status s = write_file_atomic(
        prometheus_file, prometheus_status_error(unix_now()) + prometheus_build_info(TUNER_VERSION),
        0644);
    fail_runtime(s.ok() ? message : message + "; and " + s.error().message() + " (--prometheus)");
  };
  State state;
  std::optional<RunSummary> unfinished;
  auto dir = StateDir::open(g.state_dir, false);
  if (!dir.ok() && dir.error().err != ENOENT) fail(dir.error().message() + " (--state-dir)");
  if (dir.ok()) {
    auto s = load_state(*dir);
    if (!s.ok()) fail(s.error().message());
    state = std::move(s).value();
    auto u = find_unfinished_run(*dir);
    if (!u.ok()) fail(u.error().message());
    unfinished = *u;
  }
  LiveKnobs knobs;
  std::vector<KeptReading> readings;
  unsigned drift = 0;
  for (const auto& [id, k] : state.knobs) {
    KeptReading r{id, k.value, k.before, k.run_id, k.group, std::nullopt, ""};
    auto knob = knobs.make(id);
    std::optional<Error> why;
    if (knob.ok()) {
      auto v = (*knob)->read();
      if (v.ok()) r.live = *v;
      else why = v.error();
    } else {
      why = knob.error();
    }
    if (why) {
      r.error = why->message();
      r.gone = why->is(ErrorKind::missing);
    }
    drift += r.drifted();
    readings.push_back(std::move(r));
  }
  // An entry whose id does not parse: nothing can read it, so it is drift to look at.
  for (const auto& [id, d] : state.damaged) {
    KeptReading r{
        id, "", "", "", d.group, std::nullopt, d.why + "; 'tuner state rebuild' drops it"};
    drift += r.drifted();
    readings.push_back(std::move(r));
  }
  if (!prometheus_file.empty())
    write_prometheus(prometheus_file,
                     prometheus_status(readings, unfinished.has_value(), unix_now()) +
                         prometheus_build_info(TUNER_VERSION));
  Term term(g.color, 1);
  if (vm.count("json")) print_document(status_json(readings, unfinished));
  else std::cout << term.printable(format_status(readings, unfinished, term));
  if (unfinished) return 4;
  return drift ? 3 : 0;
}

}  // namespace tuner
