// STUB: tuner exec, to be implemented.
#include "tuner/cli.h"

#include "base/result.h"

namespace tuner {

int exec_command(GlobalOptions&, const std::vector<std::string>&) {
  fail_runtime("exec: not implemented yet");
}

}  // namespace tuner
