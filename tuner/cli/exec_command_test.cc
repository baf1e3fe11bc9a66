// `tuner exec --near gpuN` in a process the container runtime gave some GPUs: the binary
// reads NVIDIA_VISIBLE_DEVICES, and either ignore option (the older name kept) sets it
// aside. Which GPU each value means is tuner/plan/visible_gpus_test.cc's.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "base/runner.h"

namespace tuner {
namespace {

struct Run {
  int code;
  std::string err;
};

/// tuner ARGS with VAR=VALUE in its environment (env(1): the test's own stays as it is).
Run tuner_with(const std::string& assignment, const std::vector<std::string>& args) {
  RunSpec spec;
  spec.argv = {"/usr/bin/env", assignment, TUNER_BINARY};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  ProcessRunner runner;
  auto r = runner.run(spec);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message()));
  return {r->exit_code, r->err};
}

}  // namespace

TEST_CASE("exec: --near gpuN honours NVIDIA_VISIBLE_DEVICES; --ignore-visible-devices not") {
  auto none = tuner_with("NVIDIA_VISIBLE_DEVICES=none", {"exec", "--near", "gpu0", "--", "true"});
  CHECK(none.code == 2);
  CHECK(none.err ==
        "tuner: exec --near gpu0: NVIDIA_VISIBLE_DEVICES: 'none': the container runtime gave this "
        "process no GPU (--ignore-visible-devices counts the machine's GPUs instead)\n");
  // A hostile value is shown escaped, on one line.
  auto esc =
      tuner_with("NVIDIA_VISIBLE_DEVICES=x\x1b[2J\ny", {"exec", "--near", "gpu0", "--", "true"});
  CHECK(esc.code == 2);
  CHECK(esc.err.find("'x\\x1b[2J\\ny' is not a GPU index") != std::string::npos);
  CHECK(esc.err.find('\x1b') == std::string::npos);
  // Both names set the variables aside: gpu0 is then the machine's first GPU, or an
  // unknown device on a machine without one, never the variable's error.
  for (const char* ignore : {"--ignore-visible-devices", "--ignore-cuda-visible-devices"}) {
    auto r = tuner_with("NVIDIA_VISIBLE_DEVICES=none",
                        {"exec", "--near", "gpu0", ignore, "--allow-unbound", "--", "true"});
    CAPTURE(ignore);
    CHECK(r.err.find("NVIDIA_VISIBLE_DEVICES") == std::string::npos);
  }
  // Not a gpuN: the variables do not matter.
  CHECK(tuner_with("NVIDIA_VISIBLE_DEVICES=none",
                   {"exec", "--near", "node:0", "--allow-unbound", "--", "true"})
            .code == 0);
}

}  // namespace tuner
