// Bounds-checked access to netlink attributes for the ethtool message parsers. Every
// reader validates the attribute's length (libmnl's mnl_attr_validate) before it
// touches the payload, so truncated or hostile replies give an Error, never a read past
// the buffer.
#pragma once

#include <libmnl/libmnl.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace tuner {

/// Attributes of one nest (or of a message), indexed by type; later duplicates win,
/// types above Max are ignored (newer kernels add attributes).
template <unsigned Max>
struct AttrTable {
  std::array<const nlattr*, Max + 1> at{};
  const nlattr* operator[](unsigned type) const { return type <= Max ? at[type] : nullptr; }
};

namespace attr_detail {
template <unsigned Max>
int store(const nlattr* a, void* data) {
  auto* t = static_cast<AttrTable<Max>*>(data);
  unsigned type = mnl_attr_get_type(a);
  if (type <= Max) t->at[type] = a;
  return MNL_CB_OK;
}
}  // namespace attr_detail

/// Parses the attributes nested in `nest`; fails when a header or length is inconsistent.
template <unsigned Max>
Result<AttrTable<Max>> parse_nested(const nlattr* nest, const char* where) {
  AttrTable<Max> t;
  if (mnl_attr_parse_nested(nest, attr_detail::store<Max>, &t) < 0)
    return Error::invalid("malformed nested attributes", where);
  return t;
}

/// All attributes nested in `nest`, in order (for lists such as bitset bits). libmnl's
/// iteration macro does not compile as C++ and stops silently at a bad header; this fails.
inline Result<std::vector<const nlattr*>> nested_list(const nlattr* nest, const char* where) {
  std::vector<const nlattr*> out;
  auto push = [](const nlattr* a, void* data) {
    static_cast<std::vector<const nlattr*>*>(data)->push_back(a);
    return MNL_CB_OK;
  };
  if (mnl_attr_parse_nested(nest, push, &out) < 0)
    return Error::invalid("malformed attribute list", where);
  return out;
}

/// Reads a fixed-size integer attribute; Error when its length does not match.
inline Result<uint32_t> attr_u32(const nlattr* a, const char* where) {
  if (mnl_attr_validate(a, MNL_TYPE_U32) < 0) return Error::invalid("bad u32 attribute", where);
  return mnl_attr_get_u32(a);
}
inline Result<uint8_t> attr_u8(const nlattr* a, const char* where) {
  if (mnl_attr_validate(a, MNL_TYPE_U8) < 0) return Error::invalid("bad u8 attribute", where);
  return mnl_attr_get_u8(a);
}
/// A NUL-terminated string attribute.
inline Result<std::string> attr_str(const nlattr* a, const char* where) {
  if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
    return Error::invalid("bad string attribute", where);
  return std::string(mnl_attr_get_str(a));
}

}  // namespace tuner
