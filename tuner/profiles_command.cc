// STUB: tuner profiles, to be implemented.
#include "tuner/cli.h"

#include "base/result.h"

namespace tuner {

int profiles_command(GlobalOptions&, const std::vector<std::string>&) {
  fail_runtime("profiles: not implemented yet");
}

}  // namespace tuner
