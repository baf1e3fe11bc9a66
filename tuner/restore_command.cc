// STUB: tuner restore, to be implemented.
#include "tuner/cli.h"

#include "base/result.h"

namespace tuner {

int restore_command(GlobalOptions&, const std::vector<std::string>&) {
  fail_runtime("restore: not implemented yet");
}

}  // namespace tuner
