// The one way a JSON document leaves tuner (stdout, --report FILE).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tuner {

/// doc indented by 2, with a newline at the end, and valid JSON whatever bytes its
/// strings hold: names and text come from the kernel, a capture or a profile, and a
/// byte that is not part of well-formed UTF-8 (an interface name, a /proc/cpuinfo line)
/// is written as U+FFFD instead of aborting the output (DESIGN.md "JSON").
std::string json_text(const nlohmann::json& doc);

}  // namespace tuner
