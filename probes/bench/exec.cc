#include "probes/bench/exec.h"

#include <algorithm>

#include <fmt/core.h>

#include "base/file_trust.h"

namespace tuner::bench {

namespace {

std::string where(const ExecConfig& c) { return fmt::format("bench '{}'", c.name); }

Error bench_error(const ExecConfig& c, std::string what, int err = 0) {
  return errno_error(std::move(what), where(c), err);
}

/// "; stderr ends: ..." or "" when it said nothing.
std::string stderr_note(const RunResult& r) {
  std::string tail = r.stderr_tail();
  return tail.empty() ? "" : "; stderr ends: " + tail;
}

}  // namespace

Status validate(const ExecConfig& c) {
  if (c.command.empty() || c.command[0].empty())
    return bench_error(c, "'command' must name a program: [\"/path/to/bench\", \"arg\", ...]");
  if (c.timeout <= std::chrono::milliseconds::zero() || c.timeout > kMaxExecTimeout)
    return bench_error(
        c, fmt::format("'timeout' must be above 0 and at most 1h, not {} ms", c.timeout.count()));
  if (c.unit.empty()) return bench_error(c, "'unit' must say what the number is in (\"ops/s\")");
  Status m = validate(c.metric);
  if (!m.ok()) return bench_error(c, "'metric': " + m.error().what);
  return Ok{};
}

ExecBenchmark::ExecBenchmark(ExecConfig config, std::shared_ptr<Runner> runner)
    : config_(std::move(config)), runner_(std::move(runner)) {}

Status ExecBenchmark::check() {
  Status v = validate(config_);
  if (!v.ok()) return v;
  auto path = find_executable(config_.command[0]);
  if (!path.ok()) {
    return bench_error(config_,
                       fmt::format("command {}: {}", config_.command[0], path.error().message()));
  }
  // It runs as root: as a profile, only a program no other user could have written.
  if (Status trusted = check_trusted_path(*path, "benchmark program"); !trusted.ok())
    return bench_error(
        config_, fmt::format("command {}: {}", config_.command[0], trusted.error().message()));
  return Ok{};
}

Result<Measurement> ExecBenchmark::run() {
  Status v = validate(config_);
  if (!v.ok()) return v.error();
  RunSpec spec;
  spec.argv = config_.command;
  spec.timeout = config_.timeout;
  // The metric is the last match: keep the end of the output (and of stderr, whose
  // last lines are the error).
  spec.keep = RunSpec::Keep::tail;
  spec.stop_on_interrupt = true;
  const auto start = std::chrono::steady_clock::now();
  auto r = runner_->run(spec);
  const std::string& prog = config_.command[0];
  if (!r.ok()) return bench_error(config_, r.error().message());
  if (!r->success())
    return bench_error(config_, fmt::format("{} {}{}", prog, r->describe(spec), stderr_note(*r)));
  // The timeout bounds the run and finding its metric together; a command that used it
  // all still gets a second to be read.
  const auto deadline =
      std::max(start + config_.timeout, std::chrono::steady_clock::now() + std::chrono::seconds(1));
  auto value = extract_metric(r->out, config_.metric, deadline);
  if (!value.ok()) {
    std::string note =
        r->out_truncated
            ? fmt::format(" (only the last {} bytes of stdout were kept)", spec.max_output)
            : "";
    return bench_error(config_, fmt::format("no metric in the output of {}: {}{}{}", prog,
                                            value.error().what, note, stderr_note(*r)));
  }
  Measurement m;
  m.metrics.push_back(Metric{config_.name, *value, config_.unit, config_.direction});
  m.elapsed = r->elapsed;
  return m;
}

}  // namespace tuner::bench
