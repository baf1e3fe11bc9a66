// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104): what the peer benchmark's
// challenge-response needs to prove that both ends hold the rollout's key
// (probes/bench/tcp_auth.h). No dependency beyond the standard library: the project
// links no crypto library, and these two are short and fixed by their standards
// (sha256_test.cc checks the FIPS and RFC 4231 vectors).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace tuner {

using Sha256Digest = std::array<std::uint8_t, 32>;

/// SHA-256 over bytes fed in any number of pieces.
class Sha256 {
 public:
  Sha256();
  Sha256& update(std::string_view bytes);
  Sha256& update(const void* data, std::size_t n);
  /// The digest; the object is spent afterwards.
  Sha256Digest finish();

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buf_{};
  std::size_t used_ = 0;
  std::uint64_t bytes_ = 0;
};

Sha256Digest sha256(std::string_view bytes);
/// HMAC-SHA256 of `message` under `key` (any length: longer than a block is hashed).
Sha256Digest hmac_sha256(std::string_view key, std::string_view message);
/// Lowercase hex of a digest.
std::string hex(const Sha256Digest& d);
/// Compares in time independent of where the digests differ.
bool equal_digests(const std::uint8_t* a, const std::uint8_t* b, std::size_t n);

}  // namespace tuner
