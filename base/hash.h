// FNV-1a, 64 bits: a stable identity of some bytes (a hardware class, a profile's
// text). Not a secret and not collision-proof against an adversary: nothing trusts it
// beyond telling contents apart.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tuner {

inline constexpr std::uint64_t kFnv1a64Basis = 0xcbf29ce484222325ULL;

/// Continues the hash h over bytes (start from kFnv1a64Basis).
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h = kFnv1a64Basis);
/// "0123456789abcdef": the 16 lowercase hex digits of h.
std::string hex64(std::uint64_t h);

}  // namespace tuner
