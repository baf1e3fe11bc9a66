#include "probes/bench/net_dev.h"

#include <optional>
#include <vector>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner::bench {

Result<std::map<std::string, NetDevRow>> parse_net_dev_rows(std::string_view text) {
  std::map<std::string, NetDevRow> out;
  int line_no = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    auto colon = line.find(':');
    if (line_no <= 2 || trim(line).empty()) continue;
    if (colon == std::string_view::npos)
      return Error::invalid(fmt::format("line {}: no 'name:'", line_no), "/proc/net/dev");
    std::vector<std::string_view> f = split_ws(line.substr(colon + 1));
    if (f.size() != 16)
      return Error::invalid(fmt::format("line {}: {} counters, expected 16", line_no, f.size()),
                            "/proc/net/dev");
    NetDevRow row;
    for (std::size_t i = 0; i < 16; ++i) {
      std::optional<uint64_t> n = parse_u64(f[i]);
      if (!n)
        return Error::invalid(fmt::format("line {}: '{}' is not a counter", line_no, f[i]),
                              "/proc/net/dev");
      row.v[i] = *n;
    }
    out[std::string(trim(line.substr(0, colon)))] = row;
  }
  return out;
}

}  // namespace tuner::bench
