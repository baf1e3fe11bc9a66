#include "tuner/plan/target.h"

#include "probes/probe.h"

namespace tuner {

Inventory probe_target(const Target& target) {
  ProbeOptions options;
  options.topology_xml = target.topology_xml;
  Inventory inv = probe_inventory(target.root, options);
  inv.class_label = target.class_label;
  // An export is nothing but its topology: without it a plan would be for a machine of
  // no CPUs. A captured root may hold only /proc/sys (a sysctl plan), and the live
  // machine keeps its other probes: there a failed topology probe is an entry in errors.
  if (target.topology_xml)
    for (const ProbeError& e : inv.errors)
      if (e.probe == "topology") fail_input("--topology: " + e.message);
  return inv;
}

}  // namespace tuner
