#include "probes/bench/bench.h"

#include <array>

#include "base/enum_names.h"

namespace tuner::bench {

namespace {

constexpr std::array<EnumName<Direction>, 2> kDirections = {{
    {Direction::higher, "higher"},
    {Direction::lower, "lower"},
}};
static_assert(in_enum_order(kDirections));

}  // namespace

const char* direction_name(Direction d) { return enum_name(kDirections, d); }

std::optional<Direction> parse_direction(std::string_view name) {
  return enum_from_name(kDirections, name);
}

}  // namespace tuner::bench
