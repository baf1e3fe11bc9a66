#include "probes/swap.h"

#include <algorithm>
#include <cerrno>

#include "base/strings.h"

namespace tuner {
namespace {

constexpr const char* kPath = "proc/swaps";

}  // namespace

Result<std::vector<SwapDevice>> parse_swaps(std::string_view text) {
  std::vector<SwapDevice> out;
  bool header = false;
  unsigned number = 0;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++number;
    auto f = split_ws(line);
    if (f.empty()) continue;
    auto where = std::string(kPath) + ":" + std::to_string(number);
    if (!header) {
      if (f[0] != "Filename")
        return Error::invalid(
            "not the header of proc/swaps: \"" + std::string(line.substr(0, 60)) + "\"", where);
      header = true;
      continue;
    }
    SwapDevice d;
    auto size = f.size() == 5 ? parse_u64(f[2]) : std::nullopt;
    auto used = f.size() == 5 ? parse_u64(f[3]) : std::nullopt;
    auto priority = f.size() == 5 ? parse_i64(f[4]) : std::nullopt;
    if (!size || !used || !priority || (f[1] != "partition" && f[1] != "file"))
      return Error::invalid("not a swap device: \"" + std::string(line.substr(0, 80)) + "\"",
                            where);
    d.name = std::string(f[0]);
    d.type = std::string(f[1]);
    d.size_kib = *size;
    d.used_kib = *used;
    d.priority = static_cast<int>(*priority);
    out.push_back(std::move(d));
  }
  return out;
}

bool is_zram(const SwapDevice& device) {
  std::string_view name = device.name;
  auto slash = name.rfind('/');
  std::string_view base = slash == std::string_view::npos ? name : name.substr(slash + 1);
  return device.type == "partition" && starts_with(base, "zram") && base.size() > 4 &&
         std::all_of(base.begin() + 4, base.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool zram_only(const std::optional<std::vector<SwapDevice>>& swaps) {
  return swaps && !swaps->empty() && std::ranges::all_of(*swaps, is_zram);
}

std::optional<std::vector<SwapDevice>> probe_swaps(const Root& root,
                                                   std::vector<ProbeError>& errors) {
  auto text = root.read(kPath);
  if (!text.ok()) {
    if (text.error().err != ENOENT) errors.push_back({"swap", text.error().message()});
    return std::nullopt;
  }
  auto swaps = parse_swaps(*text);
  if (!swaps.ok()) {
    errors.push_back({"swap", swaps.error().message()});
    return std::nullopt;
  }
  return std::move(swaps).value();
}

}  // namespace tuner
