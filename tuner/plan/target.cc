#include "tuner/plan/target.h"

#include "probes/probe.h"

namespace tuner {

Inventory probe_target(const Target& target) {
  ProbeOptions options;
  options.topology_xml = target.topology_xml;
  return probe_inventory(target.root, options);
}

}  // namespace tuner
