// Test helper (root, inside run_in_netns): a named network namespace joined to the
// caller's private namespace by a veth pair, built with `ip` through the Runner and
// deleted again. Addresses are 10.231.0.1 (here) and 10.231.0.2 (there); both exist only
// in namespaces the test created.
#pragma once

#include <unistd.h>

#include <string>
#include <vector>

#include "tests/support/netns.h"

namespace tuner::testing {

struct VethPair {
  std::string netns, local_if, peer_if;
  std::string local_address = "10.231.0.1", peer_address = "10.231.0.2";
  /// Why the pair could not be built ("" when it was).
  std::string error;

  explicit VethPair(const std::string& tag) {
    std::string id = std::to_string(::getpid());
    netns = "tuner-" + tag + "-" + id;
    local_if = "tva" + id.substr(0, 8);
    peer_if = "tvb" + id.substr(0, 8);
    error = run_commands(
        {{"ip", "netns", "add", netns},
         {"ip", "link", "add", local_if, "type", "veth", "peer", "name", peer_if, "netns", netns},
         {"ip", "link", "set", "lo", "up"},
         {"ip", "addr", "add", local_address + "/24", "dev", local_if},
         {"ip", "link", "set", local_if, "up"},
         {"ip", "-n", netns, "link", "set", "lo", "up"},
         {"ip", "-n", netns, "addr", "add", peer_address + "/24", "dev", peer_if},
         {"ip", "-n", netns, "link", "set", peer_if, "up"}});
  }
  ~VethPair() {
    if (!netns.empty()) run_command({"ip", "netns", "del", netns});
  }
  VethPair(const VethPair&) = delete;
  VethPair& operator=(const VethPair&) = delete;

  /// Runs argv inside the pair's named namespace (`ip netns exec`); "" on success.
  std::string run_there(std::vector<std::string> argv) const {
    argv.insert(argv.begin(), {"ip", "netns", "exec", netns});
    return run_command(argv);
  }
};

}  // namespace tuner::testing
