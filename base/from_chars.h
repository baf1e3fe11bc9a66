// Parsing a double as std::from_chars does, on every C++ library tuner builds with.
#pragma once

#include <charconv>

namespace tuner {

/// std::from_chars for a double (the general format: no leading space, '+' or "0x"),
/// which libstdc++ has from 11 on; before (Debian 11's GCC 10) the same through strtod_l
/// in the C locale. from_chars_double_strtod is that fallback, built everywhere so it is
/// tested everywhere.
std::from_chars_result from_chars_double(const char* first, const char* last, double& value);
std::from_chars_result from_chars_double_strtod(const char* first, const char* last, double& value);

}  // namespace tuner
