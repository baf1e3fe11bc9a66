// Test support: a captured machine's topology from its hwloc XML export.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "probes/root.h"
#include "probes/topology.h"

namespace tuner::testing {

/// ${TUNER_FIXTURES}/topologies/NAME loaded as the probe loads --topology; fails the
/// test when it cannot be loaded.
inline Topology load_topology_fixture(const std::string& name) {
  std::string path = std::string(TUNER_FIXTURES) + "/topologies/" + name;
  auto topo = probe_topology(Root::live(), path);
  REQUIRE_MESSAGE(topo.ok(), topo.error().message());
  return std::move(topo).value();
}

}  // namespace tuner::testing
