// FakeRunner: a Runner for tests. It records every RunSpec it was given and answers
// from a queue of canned results, so code that runs commands (the exec benchmark, the
// verify loop) is tested without starting processes.
#pragma once

#include <deque>
#include <vector>

#include "base/runner.h"

namespace tuner::testing {

class FakeRunner : public Runner {
 public:
  /// Queues the answer for the next run() call.
  void push(Result<RunResult> answer) { answers_.push_back(std::move(answer)); }
  /// Queues a run that exited with `code` after printing `out` and `err`.
  void push_exit(int code, std::string out, std::string err = "") {
    RunResult r;
    r.exit_code = code;
    r.out = std::move(out);
    r.err = std::move(err);
    push(std::move(r));
  }

  Result<RunResult> run(const RunSpec& spec) override {
    runs.push_back(spec);
    if (answers_.empty()) return Error::invalid("FakeRunner: no answer queued", spec.argv.at(0));
    Result<RunResult> a = std::move(answers_.front());
    answers_.pop_front();
    return a;
  }

  /// Every spec run, oldest first.
  std::vector<RunSpec> runs;

 private:
  std::deque<Result<RunResult>> answers_;
};

}  // namespace tuner::testing
