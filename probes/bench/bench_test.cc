#include "probes/bench/bench.h"

#include <doctest/doctest.h>

using namespace tuner::bench;

TEST_CASE("direction: the profile's words round-trip, anything else is refused") {
  for (Direction d : {Direction::higher, Direction::lower})
    CHECK(parse_direction(direction_name(d)) == d);
  CHECK(std::string(direction_name(Direction::lower)) == "lower");
  CHECK_FALSE(parse_direction("Higher").has_value());
  CHECK_FALSE(parse_direction("").has_value());
  CHECK_FALSE(parse_direction("better").has_value());
}
