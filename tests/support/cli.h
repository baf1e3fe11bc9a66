// Test support: run the built tuner binary (TUNER_BINARY) and keep its exit code, stdout
// and stderr, as a user at a prompt would see them.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>

#include "base/runner.h"

namespace tuner::testing {

struct CliRun {
  int code = -1;  // exit status; -1 when killed by a signal
  std::string out, err;
};

/// Runs "TUNER_BINARY ARGS" through /bin/sh (ARGS is shell text: quote what needs it;
/// the binary's own path is passed as $0, so it needs no quoting). stdin is /dev/null;
/// a run past two minutes is killed and reported with code -1.
inline CliRun run_tuner(const std::string& args) {
  RunSpec spec;
  spec.argv = {"/bin/sh", "-c", "exec \"$0\" " + args, TUNER_BINARY};
  spec.timeout = std::chrono::minutes(2);
  ProcessRunner runner;
  auto r = runner.run(spec);
  if (!r) throw std::runtime_error("cannot run tuner: " + r.error().message());
  CliRun out;
  out.code = r->signal == 0 && !r->timed_out ? r->exit_code : -1;
  out.out = std::move(r->out);
  out.err = std::move(r->err);
  return out;
}

}  // namespace tuner::testing
