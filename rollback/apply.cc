// apply_plan: the unverified driver of ApplyRun, and the fault hooks' environment.
#include "rollback/apply.h"

#include <cstdlib>

#include "base/strings.h"

namespace tuner {

namespace {

Result<long> count_from_env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0L;
  auto n = parse_u64(v);
  if (!n || *n > 1000000)
    return Error::invalid("expected a number, got '" + std::string(v) + "'", name);
  return static_cast<long>(*n);
}

}  // namespace

Result<long> fault_after_writes_from_env() { return count_from_env("TUNER_FAULT_AFTER_WRITES"); }
Result<long> fault_after_decisions_from_env() {
  return count_from_env("TUNER_FAULT_AFTER_DECISIONS");
}

Result<ApplyResult> apply_plan(const Plan& plan, const StateDir& dir, const KnobFactory& make,
                               const ApplyOptions& options) {
  auto run = ApplyRun::prepare(plan, dir, make, options);
  if (!run.ok()) return run.error();
  ApplyResult result;
  if (run->empty()) {
    result.report = run->report();
    return result;
  }
  return run->drive([&](const std::string& group) -> Status {
    if (Status s = run->write_group(group); !s.ok()) return s;
    return run->decide(group, GroupDecision::applied, nlohmann::json::object());
  });
}

}  // namespace tuner
