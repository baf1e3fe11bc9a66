// STUB: tuner plan, to be implemented.
#include "tuner/cli.h"

#include "base/result.h"

namespace tuner {

int plan_command(GlobalOptions&, const std::vector<std::string>&) {
  fail_runtime("plan: not implemented yet");
}

}  // namespace tuner
