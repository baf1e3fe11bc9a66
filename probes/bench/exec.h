// The `exec` benchmark: runs a user's command (an argument vector, never shell text)
// and takes one number from its stdout by regex or JSON pointer. Profile form:
//
//   [bench.echo-rate]
//   kind = "exec"
//   command = ["/usr/local/bin/mybench", "--quick"]
//   metric = { regex = '([0-9.]+) ops/s' }       # or { json = "/end/sum_received/bits_per_second" }
//   direction = "higher"                          # or "lower"
//   unit = "ops/s"
//   timeout = "30s"
//
// The profile parser fills ExecConfig; this file owns what the fields mean.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/runner.h"
#include "probes/bench/bench.h"
#include "probes/bench/exec_metric.h"

namespace tuner::bench {

struct ExecConfig {
  /// The [bench.NAME] table's name; also the metric's name.
  std::string name;
  /// argv; command[0] is a path or a bare name searched in $PATH.
  std::vector<std::string> command;
  MetricExpr metric;
  Direction direction = Direction::higher;
  std::string unit;
  /// Wall-time bound of one run; the command's process group is killed past it.
  std::chrono::milliseconds timeout{30'000};
  /// if_missing = "skip": a node without the program (or, for a command that says
  /// {gpus}, without GPUs) runs the groups without this benchmark instead of refusing
  /// the run (tuner/verify/benches.h).
  bool skip_if_missing = false;
};

/// The longest timeout a profile may give (one trial must not hold the verify loop for
/// longer than this).
inline constexpr std::chrono::milliseconds kMaxExecTimeout{3'600'000};

/// Checks the config alone (no filesystem): a non-empty command, a valid metric
/// expression, a timeout in (0, 1 h], a unit. Errors name the benchmark.
Status validate(const ExecConfig& config);

class ExecBenchmark : public Benchmark {
 public:
  /// `runner` starts the command; tests pass a FakeRunner.
  explicit ExecBenchmark(ExecConfig config,
                         std::shared_ptr<Runner> runner = std::make_shared<ProcessRunner>());

  const std::string& name() const override { return config_.name; }
  /// validate() plus: the program exists and is executable (bare names through $PATH).
  Status check() override;
  /// Runs the command once. An Error (naming the benchmark, the program, and the tail of
  /// its stderr) when it cannot start, exits non-zero, is killed, times out, or prints no
  /// number where the metric expression points.
  Result<Measurement> run() override;

  const ExecConfig& config() const { return config_; }

 private:
  ExecConfig config_;
  std::shared_ptr<Runner> runner_;
};

}  // namespace tuner::bench
