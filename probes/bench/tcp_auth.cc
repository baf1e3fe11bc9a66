#include "probes/bench/tcp_auth.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/core.h>

#include "base/fd_io.h"
#include "base/file_trust.h"

namespace tuner::bench::tcp {

namespace {

constexpr std::string_view kServerLabel = "tuner-peer/2 server";
constexpr std::string_view kClientLabel = "tuner-peer/2 client";
constexpr std::string_view kCountLabel = "tuner-peer/2 count";
constexpr std::string_view kInfoLabel = "tuner-peer/2 info";

Status fill_random(void* data, std::size_t n) {
  auto* p = static_cast<uint8_t*>(data);
  while (n > 0) {
    ssize_t k = ::getrandom(p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno_error("getrandom", "tcp auth");
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return Ok{};
}

std::string bytes_of(const void* data, std::size_t n) {
  return {static_cast<const char*>(data), n};
}

Sha256Digest proof(const PeerKey& key, std::string_view label,
                   const std::array<uint8_t, kHelloSize>& hello, const Nonce& cn, const Nonce& sn) {
  std::string msg(label);
  msg += bytes_of(hello.data(), hello.size());
  msg += bytes_of(cn.data(), cn.size());
  msg += bytes_of(sn.data(), sn.size());
  return hmac_sha256(key.secret, msg);
}

Error not_proven(const char* who) {
  return Error::denied(fmt::format("the {} did not prove the peer key: a different key, or not "
                                   "this rollout's tuner (another program on the port?)",
                                   who),
                       "tcp auth");
}

}  // namespace

PeerKey random_key() {
  PeerKey k;
  k.secret.resize(32);
  // getrandom(2) without GRND_NONBLOCK blocks only before the pool is initialised at
  // boot; failing that, nothing of the run can be trusted to be random.
  if (!fill_random(k.secret.data(), k.secret.size()).ok()) std::abort();
  return k;
}

Result<PeerKey> key_from_text(std::string_view text, const std::string& where) {
  while (!text.empty() &&
         (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  if (text.size() < kMinKeyBytes)
    return Error::invalid(fmt::format("the peer key is {} bytes; at least {} are needed "
                                      "(e.g. 32 random bytes, base64- or hex-encoded)",
                                      text.size(), kMinKeyBytes),
                          where);
  if (text.size() > kMaxKeyBytes)
    return Error::invalid(fmt::format("the peer key is longer than {} bytes", kMaxKeyBytes), where);
  return PeerKey{std::string(text)};
}

Result<PeerKey> read_key_file(const std::string& path) {
  auto fd = open_for_read(AT_FDCWD, path, path, {kMaxKeyBytes + 64, true}, O_NOFOLLOW);
  if (!fd.ok()) return fd.error();
  if (Status t = check_trusted_fd(fd->get(), path, "peer key"); !t.ok()) return t.error();
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return errno_error("fstat", path);
  if (::geteuid() == 0 && (st.st_mode & (S_IRGRP | S_IROTH)) != 0)
    return Error::invalid(fmt::format("the peer key can be read by others (mode {:04o}): "
                                      "chmod 0600 it",
                                      st.st_mode & 07777),
                          path);
  auto text = read_fd(fd->get(), path, {kMaxKeyBytes + 64, true});
  if (!text.ok()) return text.error();
  return key_from_text(*text, path);
}

Result<PeerKey> peer_key_from(const std::string& file) {
  if (!file.empty()) return read_key_file(file);
  const char* env = std::getenv(kPeerKeyEnv);
  if (env == nullptr || *env == '\0') return PeerKey{};
  return key_from_text(env, kPeerKeyEnv);
}

Result<Session> client_handshake(int fd, const Hello& hello, const PeerKey& key) {
  Session s;
  s.hello = hello;
  if (Status r = fill_random(s.client.data(), s.client.size()); !r.ok()) return r.error();
  auto h = encode(hello);
  std::array<uint8_t, kHelloSize + kNonceSize> first{};
  std::memcpy(first.data(), h.data(), h.size());
  std::memcpy(first.data() + h.size(), s.client.data(), s.client.size());
  if (Status sent = send_all(fd, first.data(), first.size(), "the hello"); !sent.ok())
    return sent.error();
  std::array<uint8_t, kNonceSize + kProofSize> challenge{};
  Status got = recv_all(fd, challenge.data(), challenge.size(), "the server's proof");
  if (!got.ok())
    return Error{got.error().kind, got.error().what + " (is a tuner tcp server listening there?)",
                 "tcp auth", got.error().err};
  std::memcpy(s.server.data(), challenge.data(), kNonceSize);
  Sha256Digest want = proof(key, kServerLabel, h, s.client, s.server);
  if (!equal_digests(want.data(), challenge.data() + kNonceSize, kProofSize))
    return not_proven("server");
  Sha256Digest mine = proof(key, kClientLabel, h, s.client, s.server);
  if (Status sent = send_all(fd, mine.data(), mine.size(), "the client's proof"); !sent.ok())
    return sent.error();
  std::array<uint8_t, kHelloSize> echo{};
  Status ack = recv_all(fd, echo.data(), echo.size(), "the server's acceptance");
  if (!ack.ok())
    return Error{ack.error().kind, ack.error().what + " (the server refused our proof?)",
                 "tcp auth", ack.error().err};
  if (echo != h)
    return Error::invalid("the server answered with something other than our hello", "tcp auth");
  return s;
}

Result<Session> server_handshake(int fd, const PeerKey& key) {
  // The hello alone first: a client of another protocol version is told so by decode()
  // instead of waiting for a nonce it will never send.
  std::array<uint8_t, kHelloSize> h{};
  if (Status got = recv_all(fd, h.data(), h.size(), "the hello"); !got.ok()) return got.error();
  auto hello = decode(h.data());
  if (!hello.ok()) return hello.error();
  Session s;
  s.hello = *hello;
  if (Status got = recv_all(fd, s.client.data(), s.client.size(), "the client's nonce"); !got.ok())
    return got.error();
  if (Status r = fill_random(s.server.data(), s.server.size()); !r.ok()) return r.error();
  Sha256Digest mine = proof(key, kServerLabel, h, s.client, s.server);
  std::array<uint8_t, kNonceSize + kProofSize> challenge{};
  std::memcpy(challenge.data(), s.server.data(), kNonceSize);
  std::memcpy(challenge.data() + kNonceSize, mine.data(), kProofSize);
  if (Status sent = send_all(fd, challenge.data(), challenge.size(), "the proof"); !sent.ok())
    return sent.error();
  std::array<uint8_t, kProofSize> theirs{};
  if (Status got = recv_all(fd, theirs.data(), theirs.size(), "the client's proof"); !got.ok())
    return got.error();
  Sha256Digest want = proof(key, kClientLabel, h, s.client, s.server);
  if (!equal_digests(want.data(), theirs.data(), kProofSize)) return not_proven("client");
  if (Status sent = send_all(fd, h.data(), h.size(), "the acceptance"); !sent.ok())
    return sent.error();
  return s;
}

namespace {

Sha256Digest value_tag(std::string_view label, const PeerKey& key, const Session& s,
                       uint64_t value) {
  std::string msg(label);
  msg += bytes_of(s.client.data(), s.client.size());
  msg += bytes_of(s.server.data(), s.server.size());
  for (int i = 0; i < 8; ++i) msg.push_back(static_cast<char>(value >> (56 - 8 * i)));
  return hmac_sha256(key.secret, msg);
}

CountMessage value_message(std::string_view label, const PeerKey& key, const Session& s,
                           uint64_t value) {
  CountMessage m{};
  for (int i = 0; i < 8; ++i) m[i] = static_cast<uint8_t>(value >> (56 - 8 * i));
  Sha256Digest tag = value_tag(label, key, s, value);
  std::memcpy(m.data() + 8, tag.data(), tag.size());
  return m;
}

Result<uint64_t> read_value(std::string_view label, const char* what, const PeerKey& key,
                            const Session& s, const uint8_t* message) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value = (value << 8) | message[i];
  Sha256Digest tag = value_tag(label, key, s, value);
  if (!equal_digests(tag.data(), message + 8, kProofSize))
    return Error::denied(fmt::format("{}'s tag does not match the session: not the server "
                                     "that proved the key",
                                     what),
                         "tcp auth");
  return value;
}

}  // namespace

Sha256Digest count_tag(const PeerKey& key, const Session& s, uint64_t count) {
  return value_tag(kCountLabel, key, s, count);
}

CountMessage count_message(const PeerKey& key, const Session& s, uint64_t count) {
  return value_message(kCountLabel, key, s, count);
}

Result<uint64_t> read_count(const PeerKey& key, const Session& s, const uint8_t* message) {
  return read_value(kCountLabel, "the byte count", key, s, message);
}

InfoMessage info_message(const PeerKey& key, const Session& s, uint64_t tcp_wmem_max) {
  return value_message(kInfoLabel, key, s, tcp_wmem_max);
}

Result<uint64_t> read_info(const PeerKey& key, const Session& s, const uint8_t* message) {
  return read_value(kInfoLabel, "the server's answer", key, s, message);
}

}  // namespace tuner::bench::tcp
