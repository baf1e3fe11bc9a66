#include "base/json_nesting.h"

#include <string>

#include <doctest/doctest.h>

using namespace tuner;

TEST_CASE("json nesting: 256 levels pass, the 257th is refused at its line and column") {
  CHECK(check_json_nesting(std::string(256, '[') + std::string(256, ']'), "f").ok());
  std::string deep = "{\"a\":\n  " + std::string(300, '[');
  Status s = check_json_nesting(deep, "out.json");
  REQUIRE_FALSE(s.ok());
  // '{' is level 1; the 256th '[' on line 2 (column 3 onwards) is level 257.
  CHECK(s.error().message() == "out.json:2:258: arrays and objects nest deeper than 256 levels");
}

TEST_CASE("json nesting: brackets in strings count nothing, escaped quotes included") {
  std::string in_string = "[\"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"]";
  CHECK(check_json_nesting(in_string, "f").ok());
  // Closing brackets never go below zero: a stray one does not buy depth.
  std::string stray = std::string(1000, ']') + std::string(257, '[');
  CHECK_FALSE(check_json_nesting(stray, "f").ok());
}
