// The peer benchmark's shared key and challenge-response (DESIGN.md "Peers"). A peer
// benchmark decides what root keeps on a node, so the server it measures against must
// be the rollout's own: a user who binds the port first, or a third host, must get
// nothing and change nothing. Both ends hold a key the controller handed them (a file
// only root can read, or TUNER_PEER_KEY), and every connection opens with
//   client -> server  hello (16 bytes) | client nonce (16)
//   server -> client  server nonce (16) | HMAC(key, "tuner-peer/2 server" hello cn sn)
//   client -> server  HMAC(key, "tuner-peer/2 client" hello cn sn)
//   server -> client  the hello, echoed: accepted
// The labels keep one side's proof from being replayed as the other's, and fresh nonces
// on both sides keep any proof from being replayed at all. The stream phase's byte
// count comes back with HMAC(key, "tuner-peer/2 count" cn sn count), so the number a
// decision rests on is the server's own; so does the answer to a Mode::info hello, the
// server's net.ipv4.tcp_wmem maximum, with HMAC(key, "tuner-peer/2 info" cn sn value).
// In-process servers (loopback, netns) use the
// same exchange with a random key of the run.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/sha256.h"
#include "probes/bench/tcp_wire.h"

namespace tuner::bench::tcp {

inline constexpr std::size_t kNonceSize = 16;
inline constexpr std::size_t kProofSize = 32;
/// A shorter secret is refused: 16 bytes is the least a guess cannot find.
inline constexpr std::size_t kMinKeyBytes = 16;
inline constexpr std::size_t kMaxKeyBytes = 4096;
/// The environment variable that may hold the key itself (root's environment is
/// readable by root only: /proc/PID/environ is 0400).
inline constexpr const char* kPeerKeyEnv = "TUNER_PEER_KEY";

using Nonce = std::array<uint8_t, kNonceSize>;

/// The rollout's shared secret; empty: none given.
struct PeerKey {
  std::string secret;
  bool empty() const { return secret.empty(); }
};

/// 32 random bytes from the kernel (getrandom): the key of an in-process server.
PeerKey random_key();

/// The key in `text` (trailing whitespace dropped): kMinKeyBytes to kMaxKeyBytes bytes.
/// `where` names the source in errors; the secret never appears in one.
Result<PeerKey> key_from_text(std::string_view text, const std::string& where);

/// The key in a file root may trust with a secret: a regular file owned by root (or the
/// build tree's owner), not group- or world-writable nor readable, in trusted
/// directories (base/file_trust.h). Errors name the file and what is wrong.
Result<PeerKey> read_key_file(const std::string& path);

/// --peer-key FILE when given, else $TUNER_PEER_KEY, else an empty key.
Result<PeerKey> peer_key_from(const std::string& file);

/// What a finished handshake established.
struct Session {
  Hello hello;
  Nonce client{}, server{};
};

/// The client's side over a connected socket: sends the hello and a nonce, checks the
/// server's proof, sends its own, waits for the echo. An Error::denied when the server
/// cannot prove the key ("a different key, or not this rollout's tuner server").
Result<Session> client_handshake(int fd, const Hello& hello, const PeerKey& key);

/// The server's side: reads and checks the hello, proves the key, checks the client's
/// proof (Error::denied on a wrong one: the caller closes at once), echoes the hello.
Result<Session> server_handshake(int fd, const PeerKey& key);

/// The tag that binds the stream phase's byte count to the session.
Sha256Digest count_tag(const PeerKey& key, const Session& s, uint64_t count);

/// The server's byte count as it goes on the wire: big-endian, then its count_tag.
inline constexpr std::size_t kCountSize = 8 + kProofSize;
using CountMessage = std::array<uint8_t, kCountSize>;
CountMessage count_message(const PeerKey& key, const Session& s, uint64_t count);
/// The count in a CountMessage; Error::denied when its tag is not this session's.
Result<uint64_t> read_count(const PeerKey& key, const Session& s, const uint8_t* message);

/// The server's answer to a Mode::info hello: its net.ipv4.tcp_wmem maximum in bytes (0:
/// it could not read it), big-endian, then its tag under the label "tuner-peer/2 info"
/// (a count cannot be passed off as an answer, nor the reverse).
using InfoMessage = std::array<uint8_t, kCountSize>;
InfoMessage info_message(const PeerKey& key, const Session& s, uint64_t tcp_wmem_max);
/// The value in an InfoMessage; Error::denied when its tag is not this session's.
Result<uint64_t> read_info(const PeerKey& key, const Session& s, const uint8_t* message);

}  // namespace tuner::bench::tcp
