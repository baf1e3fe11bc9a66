// The tuner.probe/1 JSON document (DESIGN.md). Unknown values are null.
#pragma once

#include <nlohmann/json.hpp>

#include "probes/inventory.h"

namespace tuner {

nlohmann::json to_json(const Inventory& inv);

}  // namespace tuner
