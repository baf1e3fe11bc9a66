#include "tuner/cli/run_glue.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include <fmt/core.h>

#include "base/atomic_file.h"
#include "base/strings.h"
#include "rollback/journal.h"
#include "tuner/cli/report/json_text.h"
#include "tuner/cli/report/run_text.h"

namespace tuner {

LiveKnobs::LiveKnobs() : ctx_{Root::live()} { ctx_.notes = &notes_; }

std::vector<RunMessage> LiveKnobs::notes() const {
  std::vector<RunMessage> out;
  for (const KnobNote& n : notes_.all()) out.push_back({n.knob + ": " + n.text, n.knob, ""});
  return out;
}
LiveKnobs::~LiveKnobs() = default;

Result<std::unique_ptr<Knob>> LiveKnobs::make(const std::string& id) { return make_knob(id, ctx_); }

void require_root(const std::string& command) {
  if (::geteuid() == 0) return;
  fail_runtime(
      fmt::format("{} changes kernel settings (/proc/sys, /proc/irq, NICs) and must run as root "
                  "(uid {} is not); nothing was changed",
                  command, ::geteuid()));
}

StateDir open_state_dir(const GlobalOptions& g, bool create) {
  auto dir = StateDir::open(g.state_dir, create);
  if (!dir.ok()) fail_runtime(dir.error().message() + " (--state-dir)");
  return std::move(dir).value();
}

Lock take_lock(const StateDir& dir) {
  auto lock = Lock::acquire(dir);
  if (!lock.ok()) fail_runtime(lock.error().message());
  return std::move(lock).value();
}

void fail_output(const std::string& message) {
  throw FatalError(static_cast<ExitCode>(kExitOutputNotWritten), message);
}

void check_output_option(const boost::program_options::variables_map& vm, const char* option) {
  if (!vm.count(option)) return;
  const auto& file = vm[option].as<std::string>();
  if (file.empty()) fail_input(fmt::format("--{} needs a file name", option));
  auto target = check_output_target(file);
  if (!target.ok())
    fail_input(fmt::format("--{}: {}; nothing was done", option, target.error().message()));
}

void print_run_report(const RunReport& report, bool json, const std::string& report_file,
                      const GlobalOptions& g) {
  // Every report the CLI prints has its time, a run or not (nothing to change).
  RunReport r = report;
  if (r.time.empty()) r.time = utc_now();
  nlohmann::json doc = run_report_json(r);
  if (json) {
    print_document(doc);
  } else {
    Term term(g.color, 1);
    std::cout << term.printable(format_run_report(r, term));
  }
  std::cout.flush();
  if (!report_file.empty()) {
    if (Status s = write_file_atomic(report_file, json_text(doc), 0600); !s.ok())
      fail_output(s.error().message() + " (--report; what the run did stands: see 'tuner " +
                  "history')");
  }
}

double unix_now() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

void write_prometheus(const std::string& file, const std::string& text) {
  if (Status s = write_file_atomic(file, text, 0644); !s.ok())
    fail_output(s.error().message() + " (--prometheus)");
}

}  // namespace tuner
