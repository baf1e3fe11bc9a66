#include "base/from_chars.h"

#include <doctest/doctest.h>

#include <cstddef>
#include <string_view>

TEST_CASE("from_chars_double: the library's from_chars and the strtod fallback agree") {
  struct Case {
    const char* text;
    bool ok;
    double value;
    std::size_t used;
  };
  const Case cases[] = {
      {"8.0", true, 8.0, 3},      {"2.5 GT/s", true, 2.5, 3},
      {"-1e3", true, -1000.0, 4}, {"12345.6 0.1", true, 12345.6, 7},
      {"0", true, 0.0, 1},        {"1e400", false, 0, 5},
      {"", false, 0, 0},          {" 1", false, 0, 0},
      {"+1", false, 0, 0},        {"0x10", true, 0.0, 1},
      {"--1", false, 0, 0},       {"abc", false, 0, 0},
  };
  for (const Case& c : cases) {
    for (auto parse : {&tuner::from_chars_double, &tuner::from_chars_double_strtod}) {
      CAPTURE(c.text);
      std::string_view s(c.text);
      double v = -7;
      auto [end, ec] = parse(s.data(), s.data() + s.size(), v);
      CHECK((ec == std::errc()) == c.ok);
      if (c.ok) {
        CHECK(v == c.value);
        CHECK(static_cast<std::size_t>(end - s.data()) == c.used);
      } else {
        CHECK(v == -7);  // left alone, as from_chars leaves it
      }
    }
  }
}
