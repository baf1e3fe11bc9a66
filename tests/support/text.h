// Text helpers for tests that check rendered output.
#pragma once

#include <cstddef>
#include <string>

namespace tuner::testing {

/// How many times `what` occurs in `text`, overlapping occurrences counted.
inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace tuner::testing
