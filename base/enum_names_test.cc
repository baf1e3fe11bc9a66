#include "base/enum_names.h"

#include <doctest/doctest.h>

namespace tuner {
namespace {

enum class Color { red, green, blue };

constexpr std::array<EnumName<Color>, 3> kColors = {{
    {Color::red, "red"},
    {Color::green, "green"},
    {Color::blue, "blue"},
}};
static_assert(in_enum_order(kColors));

}  // namespace

TEST_CASE("enum names: one table gives the name and the parse") {
  CHECK(std::string_view(enum_name(kColors, Color::green)) == "green");
  CHECK(enum_from_name(kColors, "blue") == Color::blue);
  CHECK_FALSE(enum_from_name(kColors, "Blue").has_value());
  CHECK_FALSE(enum_from_name(kColors, "").has_value());
  CHECK(std::string_view(enum_name(kColors, static_cast<Color>(7))) == "?");
  CHECK(enum_names_joined(kColors, ", ") == "red, green, blue");
  // A table out of order, or with an empty name, is refused by the check beside it.
  constexpr std::array<EnumName<Color>, 2> swapped = {
      {{Color::green, "green"}, {Color::red, "red"}}};
  static_assert(!in_enum_order(swapped));
  constexpr std::array<EnumName<Color>, 1> unnamed = {{{Color::red, ""}}};
  static_assert(!in_enum_order(unnamed));
}

}  // namespace tuner
