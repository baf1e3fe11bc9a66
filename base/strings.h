// Small string helpers shared by parsers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tuner {

std::string_view trim(std::string_view s);
/// Splits on sep; keeps empty fields.
std::vector<std::string_view> split(std::string_view s, char sep);
/// Splits on runs of blanks (space, tab, newline); no empty fields.
std::vector<std::string_view> split_ws(std::string_view s);
/// Collapses runs of blanks into one space and trims: the canonical sysctl value.
std::string normalize_ws(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
std::optional<uint64_t> parse_u64(std::string_view s);
std::optional<int64_t> parse_i64(std::string_view s);
/// fnmatch(3) glob match without flags (used for NIC and IRQ name globs).
bool glob_match(std::string_view pattern, std::string_view name);

}  // namespace tuner
