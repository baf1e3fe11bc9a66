// STUB: tuner rollback, to be implemented.
#include "tuner/cli.h"

#include "base/result.h"

namespace tuner {

int rollback_command(GlobalOptions&, const std::vector<std::string>&) {
  fail_runtime("rollback: not implemented yet");
}

}  // namespace tuner
