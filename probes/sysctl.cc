// STUB: to be replaced by the sysctl probe.
#include "probes/sysctl.h"
namespace tuner {
Result<std::string> sysctl_path(const Root&, std::string_view) { return Error{"not implemented", "", 0}; }
Status check_sysctl_key_syntax(std::string_view) { return Ok{}; }
Result<std::string> read_sysctl(const Root&, std::string_view) { return Error{"not implemented", "", ENOENT}; }
}  // namespace tuner
