// A nesting limit for profiles, enforced on the bytes before toml++ parses them.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace tuner {

/// How deep tables, dotted keys, arrays and inline tables may nest in a profile. The
/// deepest shipped setting is 3 (`[bench.NAME] metric = { regex = ... }`).
inline constexpr int kMaxTomlNesting = 32;

/// Refuses a profile whose tables and values nest deeper than kMaxTomlNesting, naming
/// file:line:col where the limit is crossed. toml++ recurses once per level of a
/// dotted key or table header and has no limit of its own there, so a header tens of
/// thousands of segments deep overflows the stack; this scan is flat and runs first.
/// It counts header segments, key segments (the header's depth added) and array and
/// inline-table brackets in values; strings and comments count nothing. It is no
/// parser: what it lets through, toml++ still judges.
///
/// The same pass refuses a non-ASCII character outside strings and comments, where
/// TOML allows none: Debian's toml++ 3.3 reaches __builtin_unreachable (undefined
/// behaviour) on many there ("tü = 1", "a = 1 é"; found by fuzz/profile_fuzz.cc).
Status check_toml_nesting(std::string_view text, const std::string& file);

}  // namespace tuner
