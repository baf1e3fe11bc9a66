#include "probes/bench/bench.h"

namespace tuner::bench {

const char* direction_name(Direction d) {
  switch (d) {
    case Direction::higher: return "higher";
    case Direction::lower: return "lower";
  }
  return "higher";
}

std::optional<Direction> parse_direction(std::string_view name) {
  if (name == "higher") return Direction::higher;
  if (name == "lower") return Direction::lower;
  return std::nullopt;
}

}  // namespace tuner::bench
