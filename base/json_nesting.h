// A nesting limit for JSON from outside (benchmark output, fleet reports), checked on
// the bytes before a parser sees them, as profiles (tuner/profile/toml_nesting.h) and
// hwloc exports (probes/topology_xml.h) are.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace tuner {

/// How deep arrays and objects may nest. iperf3 -J and fio's JSON go 5 deep, tuner's
/// own documents 6; nlohmann's dump(), comparisons and error paths recurse once per
/// level, so a document 100,000 deep overflows the stack there.
inline constexpr int kMaxJsonNesting = 256;

/// Refuses text whose '[' and '{' nest deeper than kMaxJsonNesting, naming
/// where:line:col of the bracket that crosses the limit. Brackets inside strings
/// (escapes respected) count nothing. A flat scan, no parser: what it lets through,
/// the parser still judges.
Status check_json_nesting(std::string_view text, const std::string& where);

}  // namespace tuner
