// STUB: to be replaced by the hwloc probe.
#include "probes/topology.h"
namespace tuner {
Result<Topology> probe_topology(const Root&, const std::optional<std::string>&) {
  return Error{"not implemented", "topology", 0};
}
}  // namespace tuner
