// ethtool netlink bitsets (ETHTOOL_A_BITSET_*): the kernel sends either the compact
// form (VALUE/MASK u32 arrays) or the verbose form (a list of bits with index, name and
// a VALUE flag), depending on ETHTOOL_FLAG_COMPACT_BITSETS. Both parse to one Bitset.
#pragma once

#include <libmnl/libmnl.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"

namespace tuner {

struct Bitset {
  uint32_t size = 0;                      // number of bits
  bool nomask = false;                    // no mask: a plain list of set bits
  std::vector<bool> value;                // size bits
  std::vector<bool> mask;                 // size bits (empty when nomask)
  std::map<uint32_t, std::string> names;  // bit -> name, from a verbose bitset
};

/// Parses a bitset nest in either form. Bits beyond SIZE, or arrays shorter than SIZE
/// needs, are errors.
Result<Bitset> parse_bitset(const nlattr* nest);

/// Names of the bits set in the mask (use_mask) or in the value. A name comes from the
/// bitset itself when verbose, else from `strings` (the kernel's string set); a bit
/// with neither is named "bit N".
std::vector<std::string> bitset_names(const Bitset& bits, bool use_mask,
                                      const std::vector<std::string>& strings);

}  // namespace tuner
