// STUB: tuner status, to be implemented.
#include "tuner/cli.h"

#include "base/result.h"

namespace tuner {

int status_command(GlobalOptions&, const std::vector<std::string>&) {
  fail_runtime("status: not implemented yet");
}

}  // namespace tuner
