// STUB: tuner history, to be implemented.
#include "tuner/cli.h"

#include "base/result.h"

namespace tuner {

int history_command(GlobalOptions&, const std::vector<std::string>&) {
  fail_runtime("history: not implemented yet");
}

}  // namespace tuner
