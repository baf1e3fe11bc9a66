// STUB: tuner apply, to be implemented.
#include "tuner/cli.h"

#include "base/result.h"

namespace tuner {

int apply_command(GlobalOptions&, const std::vector<std::string>&) {
  fail_runtime("apply: not implemented yet");
}

}  // namespace tuner
