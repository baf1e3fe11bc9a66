#include "probes/ethtool_bitset.h"

#include <linux/ethtool_netlink.h>

#include <cstring>
#include <optional>

#include "probes/ethtool_attr.h"

namespace tuner {
namespace {

constexpr const char* kWhere = "ethtool bitset";
// Link modes are ~120 bits today; anything past this is a corrupt reply, not a device.
constexpr uint32_t kMaxBits = 1u << 16;

Result<std::vector<bool>> read_words(const nlattr* a, uint32_t size, const char* what) {
  uint32_t words = (size + 31) / 32;
  if (mnl_attr_get_payload_len(a) < words * 4u)
    return Error::invalid(std::string(what) + " array shorter than bitset size", kWhere);
  std::vector<bool> bits(size);
  const char* p = static_cast<const char*>(mnl_attr_get_payload(a));
  for (uint32_t w = 0; w < words; ++w) {
    uint32_t word;
    std::memcpy(&word, p + std::size_t{4} * w,
                4);  // payload is 4-aligned, memcpy keeps UBSan quiet
    for (uint32_t b = 0; b < 32 && w * 32 + b < size; ++b) bits[w * 32 + b] = (word >> b) & 1;
  }
  return bits;
}

struct Bit {
  std::optional<uint32_t> index;
  std::string name;
  bool value = false;
};

Result<Bit> parse_bit(const nlattr* a) {
  auto t = parse_nested<ETHTOOL_A_BITSET_BIT_MAX>(a, kWhere);
  if (!t) return t.error();
  Bit bit;
  if (const auto* i = (*t)[ETHTOOL_A_BITSET_BIT_INDEX]) {
    auto v = attr_u32(i, kWhere);
    if (!v) return v.error();
    bit.index = *v;
  }
  if (const auto* n = (*t)[ETHTOOL_A_BITSET_BIT_NAME]) {
    auto v = attr_str(n, kWhere);
    if (!v) return v.error();
    bit.name = *v;
  }
  bit.value = (*t)[ETHTOOL_A_BITSET_BIT_VALUE] != nullptr;
  if (!bit.index) return Error::invalid("bit without index", kWhere);
  return bit;
}

}  // namespace

Result<Bitset> parse_bitset(const nlattr* nest) {
  auto t = parse_nested<ETHTOOL_A_BITSET_MAX>(nest, kWhere);
  if (!t) return t.error();
  Bitset out;
  out.nomask = (*t)[ETHTOOL_A_BITSET_NOMASK] != nullptr;
  const nlattr* size = (*t)[ETHTOOL_A_BITSET_SIZE];
  if (!size) return Error::invalid("bitset without size", kWhere);
  auto sz = attr_u32(size, kWhere);
  if (!sz) return sz.error();
  if (*sz > kMaxBits)
    return Error::invalid("bitset size " + std::to_string(*sz) + " too large", kWhere);
  out.size = *sz;

  if (const nlattr* bits = (*t)[ETHTOOL_A_BITSET_BITS]) {
    // Verbose: each listed bit is in the mask; VALUE says whether it is set.
    out.value.assign(out.size, false);
    if (!out.nomask) out.mask.assign(out.size, false);
    auto list = nested_list(bits, kWhere);
    if (!list) return list.error();
    for (const nlattr* a : *list) {
      if (mnl_attr_get_type(a) != ETHTOOL_A_BITSET_BITS_BIT) continue;
      auto bit = parse_bit(a);
      if (!bit) return bit.error();
      if (*bit->index >= out.size)
        return Error::invalid("bit " + std::to_string(*bit->index) + " beyond size", kWhere);
      if (out.nomask) {
        out.value[*bit->index] = true;
      } else {
        out.mask[*bit->index] = true;
        out.value[*bit->index] = bit->value;
      }
      if (!bit->name.empty()) out.names[*bit->index] = bit->name;
    }
    return out;
  }

  const nlattr* value = (*t)[ETHTOOL_A_BITSET_VALUE];
  if (!value) return Error::invalid("bitset with neither bits nor value", kWhere);
  auto v = read_words(value, out.size, "value");
  if (!v) return v.error();
  out.value = std::move(*v);
  if (!out.nomask) {
    const nlattr* mask = (*t)[ETHTOOL_A_BITSET_MASK];
    if (!mask) return Error::invalid("compact bitset without mask", kWhere);
    auto m = read_words(mask, out.size, "mask");
    if (!m) return m.error();
    out.mask = std::move(*m);
  }
  return out;
}

std::vector<std::string> bitset_names(const Bitset& bits, bool use_mask,
                                      const std::vector<std::string>& strings) {
  const std::vector<bool>& set = use_mask && !bits.nomask ? bits.mask : bits.value;
  std::vector<std::string> out;
  for (uint32_t i = 0; i < set.size(); ++i) {
    if (!set[i]) continue;
    if (auto it = bits.names.find(i); it != bits.names.end()) out.push_back(it->second);
    else if (i < strings.size() && !strings[i].empty()) out.push_back(strings[i]);
    else out.push_back("bit " + std::to_string(i));
  }
  return out;
}

}  // namespace tuner
