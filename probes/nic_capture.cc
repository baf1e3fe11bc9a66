#include "probes/nic_capture.h"

#include <algorithm>
#include <climits>

#include "base/strings.h"

namespace tuner {
namespace {

std::optional<std::string> read_text(const Root& root, const std::string& path) {
  auto text = root.read(path);
  if (!text) return std::nullopt;
  return std::move(text).value();
}

std::optional<uint32_t> count(std::string_view text) {
  auto v = parse_u64(text);
  if (!v || *v > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

}  // namespace

std::optional<uint32_t> parse_sysfs_speed(std::string_view text) {
  auto v = parse_i64(text);
  // ethtool(8) prints "Unknown!" for 0, (u16)-1 and (u32)-1; the kernel's own check
  // (ethtool_validate_speed) allows nothing past INT_MAX but SPEED_UNKNOWN.
  if (!v || *v <= 0 || *v > INT_MAX || *v == 65535) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

std::optional<Duplex> parse_sysfs_duplex(std::string_view text) {
  std::string_view word = trim(text);
  if (word == "full") return Duplex::full;
  if (word == "half") return Duplex::half;
  return std::nullopt;
}

std::optional<bool> parse_link_up(std::optional<std::string_view> operstate,
                                  std::optional<std::string_view> carrier) {
  if (operstate) {
    std::string_view s = trim(*operstate);
    if (s == "up") return true;
    if (s == "down" || s == "lowerlayerdown" || s == "notpresent") return false;
  }
  if (carrier) {
    std::string_view c = trim(*carrier);
    if (c == "1") return true;
    if (c == "0") return false;
  }
  return std::nullopt;
}

std::optional<uint32_t> EthtoolShow::max(std::string_view name) const {
  for (const Row& r : rows)
    if (r.name == name) return r.max;
  return std::nullopt;
}

std::optional<uint32_t> EthtoolShow::current(std::string_view name) const {
  for (const Row& r : rows)
    if (r.name == name) return r.current;
  return std::nullopt;
}

std::optional<EthtoolShow> parse_ethtool_show(std::string_view text) {
  enum class Section { none, max, current } section = Section::none;
  bool seen = false;
  EthtoolShow out;
  for (std::string_view line : split(text, '\n')) {
    std::string_view t = trim(line);
    if (t == "Pre-set maximums:") {
      section = Section::max;
      seen = true;
      continue;
    }
    if (t == "Current hardware settings:") {
      section = Section::current;
      seen = true;
      continue;
    }
    std::size_t colon = t.find(':');
    if (section == Section::none || colon == std::string_view::npos || colon == 0) continue;
    std::string name(trim(t.substr(0, colon)));
    std::optional<uint32_t> value = count(t.substr(colon + 1));
    auto it = std::find_if(out.rows.begin(), out.rows.end(),
                           [&](const EthtoolShow::Row& r) { return r.name == name; });
    if (it == out.rows.end()) {
      if (out.rows.size() >= 64) continue;  // ethtool prints a dozen; a hostile file more
      it = out.rows.insert(out.rows.end(), EthtoolShow::Row{name, {}, {}});
    }
    (section == Section::max ? it->max : it->current) = value;
  }
  if (!seen) return std::nullopt;
  return out;
}

Channels channels_from(const EthtoolShow& show) {
  Channels c;
  c.rx = show.current("RX");
  c.tx = show.current("TX");
  c.other = show.current("Other");
  c.combined = show.current("Combined");
  c.rx_max = show.max("RX");
  c.tx_max = show.max("TX");
  c.other_max = show.max("Other");
  c.combined_max = show.max("Combined");
  return c;
}

Rings rings_from(const EthtoolShow& show) {
  Rings r;
  r.rx = show.current("RX");
  r.tx = show.current("TX");
  r.rx_max = show.max("RX");
  r.tx_max = show.max("TX");
  return r;
}

std::string capture_ethtool_path(const std::string& ifname, std::string_view what) {
  return "ethtool/" + ifname + "/" + std::string(what);
}

void add_capture_nic_facts(const Root& root, Nic& nic) {
  std::string base = "sys/class/net/" + nic.name;
  auto operstate = read_text(root, base + "/operstate");
  auto carrier = read_text(root, base + "/carrier");
  nic.link.up = parse_link_up(operstate, carrier);
  if (auto speed = read_text(root, base + "/speed"))
    nic.link.speed_mbps = parse_sysfs_speed(*speed);
  if (auto duplex = read_text(root, base + "/duplex"))
    nic.link.duplex = parse_sysfs_duplex(*duplex);
  if (root.is_live()) return;  // this machine's ethtool facts come over netlink or not at all
  if (auto text = read_text(root, capture_ethtool_path(nic.name, "channels")))
    if (auto show = parse_ethtool_show(*text)) nic.channels = channels_from(*show);
  if (auto text = read_text(root, capture_ethtool_path(nic.name, "rings")))
    if (auto show = parse_ethtool_show(*text)) nic.rings = rings_from(*show);
}

}  // namespace tuner
