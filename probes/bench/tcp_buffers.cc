#include "probes/bench/tcp_buffers.h"

#include <vector>

#include <fmt/core.h>

#include "base/fd_io.h"
#include "base/strings.h"
#include "probes/bench/tcp_wire.h"

namespace tuner::bench::tcp {

namespace {

constexpr const char* kTcpWmem = "/proc/sys/net/ipv4/tcp_wmem";

}  // namespace

std::optional<uint64_t> tcp_mem_max(std::string_view value) {
  std::vector<std::string_view> fields = split_ws(value);
  if (fields.size() != 3) return std::nullopt;
  for (std::string_view f : fields)
    if (!parse_u64(f)) return std::nullopt;
  return parse_u64(fields[2]);
}

Result<uint64_t> read_tcp_wmem_max(const std::string& netns) {
  Result<std::string> text = Error::io("not read", kTcpWmem);
  Status entered = in_netns(netns, [&] { text = read_file(kTcpWmem, {4096, true}); });
  if (!entered.ok()) return entered.error();
  if (!text.ok()) return text.error();
  auto max = tcp_mem_max(*text);
  if (!max)
    return Error::invalid(fmt::format("'{}' is not three whole numbers", trim(*text)), kTcpWmem);
  return *max;
}

}  // namespace tuner::bench::tcp
