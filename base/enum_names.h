// One table per closed set: its values and their names, in enum order. The name and
// the parse of a value both read it, so a spelling is written once (JSON, the journal,
// text reports). Beside each table: static_assert(in_enum_order(kTable)).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tuner {

template <typename E>
struct EnumName {
  E value;
  std::string_view name;  // a literal: name.data() ends in a NUL
};

/// Whether the table holds the values 0, 1, 2, ... in order, each with a name: then a
/// value's name is found by index.
template <typename E, std::size_t N>
constexpr bool in_enum_order(const std::array<EnumName<E>, N>& table) {
  for (std::size_t i = 0; i < N; ++i)
    if (table[i].value != static_cast<E>(i) || table[i].name.empty()) return false;
  return true;
}

/// The value's name; "?" for a value past the table (a cast integer, never a real one).
template <typename E, std::size_t N>
constexpr const char* enum_name(const std::array<EnumName<E>, N>& table, E value) {
  auto i = static_cast<std::size_t>(value);
  return i < N ? table[i].name.data() : "?";
}

/// The value named `name`; nullopt for a name the table does not have.
template <typename E, std::size_t N>
constexpr std::optional<E> enum_from_name(const std::array<EnumName<E>, N>& table,
                                          std::string_view name) {
  for (const EnumName<E>& e : table)
    if (e.name == name) return e.value;
  return std::nullopt;
}

/// Every name, joined by sep: "tcp_retrans_pct, nic_drops, ...".
template <typename E, std::size_t N>
std::string enum_names_joined(const std::array<EnumName<E>, N>& table, std::string_view sep) {
  std::string out;
  for (const EnumName<E>& e : table) {
    if (!out.empty()) out += sep;
    out += e.name;
  }
  return out;
}

}  // namespace tuner
