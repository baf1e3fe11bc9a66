#include "base/hash.h"

#include <fmt/core.h>

namespace tuner {

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string hex64(std::uint64_t h) { return fmt::format("{:016x}", h); }

}  // namespace tuner
