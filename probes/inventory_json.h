// The tuner.probe/1 JSON document (DESIGN.md). Unknown values are null.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "probes/inventory.h"

namespace tuner {

nlohmann::json to_json(const Inventory& inv);

/// The facts fleets compare across nodes (`node` in tuner.probe/1 and tuner.run/1, read
/// by `tuner report`): identity and every version that can differ between otherwise
/// equal nodes. Flat strings (null when unknown), so that a summary can compare any
/// key without knowing it: hostname, kernel, cpu_model, microcode, nvidia_driver,
/// bios_vendor, bios_version, bios_date, system_vendor, system_product, board_name;
/// per physical NIC "nic.NAME.driver", ".driver_version", ".firmware_version"; per
/// PCIe GPU and NIC "pcie.ADDR" = "16 GT/s x16" and "pcie.ADDR.max".
using NodeFacts = std::map<std::string, std::optional<std::string>>;
NodeFacts node_facts(const Inventory& inv);
nlohmann::json node_facts_json(const NodeFacts& facts);
inline nlohmann::json node_facts_json(const Inventory& inv) {
  return node_facts_json(node_facts(inv));
}

}  // namespace tuner
