// The hardware class: nodes whose settings behave alike (docs/fleet-decisions.md). A
// class decision made on a class's canaries is reused on its other nodes, so the key
// must change with every fact that changes how a setting behaves, and with nothing
// that differs between twins (hostnames, MACs, interface names, free memory).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/hash.h"
#include "probes/inventory.h"

namespace tuner {

struct HwClass {
  /// The facts behind the key, by name (docs/fleet-decisions.md lists them); an unknown
  /// fact is "?".
  std::map<std::string, std::string> facts;
  std::string key;  // "hw-" and 16 hex digits
};

/// The class of the node inv describes. label, when not empty, is the operator's own
/// split (`--class-label`): a fact like the others.
HwClass hw_class(const Inventory& inv, const std::string& label = "");

/// A NUMA node's memory as a class fact: the smallest of 1, 2, 3, 4, 6, 8, 12, ... GiB
/// (2^k and 3 x 2^(k-1)) that holds its MemTotal, so that twins whose firmware reserves
/// a few megabytes more or less agree; "?" when unknown.
std::string numa_memory_gib(std::optional<std::uint64_t> memory_bytes);

/// The key of a set of facts: "hw-" + hex64(fnv1a64 of "name=value\n" in name order).
std::string hw_class_key(const std::map<std::string, std::string>& facts);

/// {"key": ..., "facts": {...}} (tuner.probe/1 and tuner.run/1 `class`).
nlohmann::json hw_class_json(const HwClass& c);

/// Checks a --class-label: 1 to 64 characters of [A-Za-z0-9._:/-]; an Error says what
/// is wrong.
Status check_class_label(std::string_view label);

}  // namespace tuner
