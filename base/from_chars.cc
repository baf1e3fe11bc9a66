#include "base/from_chars.h"

#include <locale.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>

namespace tuner {

std::from_chars_result from_chars_double(const char* first, const char* last, double& value) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  return std::from_chars(first, last, value);
#else
  return from_chars_double_strtod(first, last, value);
#endif
}

std::from_chars_result from_chars_double_strtod(const char* first, const char* last,
                                                double& value) {
  std::string_view s(first, static_cast<std::size_t>(last - first));
  std::string_view body = !s.empty() && s[0] == '-' ? s.substr(1) : s;
  // What from_chars refuses and strtod would take: leading space, a sign of '+'.
  if (body.empty() || std::isspace(static_cast<unsigned char>(body[0])) || body[0] == '+' ||
      body[0] == '-')
    return {first, std::errc::invalid_argument};
  // from_chars reads "0x10" as 0 followed by "x10"; strtod would read hex.
  if (body.size() > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X'))
    s = s.substr(0, s.size() - body.size() + 1);
  static const locale_t c_locale = ::newlocale(LC_ALL_MASK, "C", locale_t{});
  std::string copy(s);  // strtod needs the terminating NUL
  char* end = nullptr;
  errno = 0;
  double v = ::strtod_l(copy.c_str(), &end, c_locale);
  if (end == copy.c_str()) return {first, std::errc::invalid_argument};
  const char* ptr = first + (end - copy.c_str());
  // from_chars leaves value alone and says out of range where strtod says ERANGE
  // (overflow, and underflow to 0 or a denormal).
  if (errno == ERANGE) return {ptr, std::errc::result_out_of_range};
  value = v;
  return {ptr, std::errc()};
}

}  // namespace tuner
