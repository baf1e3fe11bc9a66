#include "base/json_nesting.h"

#include <fmt/core.h>

namespace tuner {

Status check_json_nesting(std::string_view text, const std::string& where) {
  int depth = 0;
  bool in_string = false;
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    } else if (in_string) {
      if (c == '\\') ++i;  // the escaped character cannot end the string
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonNesting)
        return Error::invalid(
            fmt::format("arrays and objects nest deeper than {} levels", kMaxJsonNesting),
            fmt::format("{}:{}:{}", where, line, i - line_start + 1));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return Ok{};
}

}  // namespace tuner
