#include "probes/pci_link.h"

#include <charconv>
#include <string>

#include "base/from_chars.h"
#include "base/strings.h"

namespace tuner {

std::optional<double> parse_link_speed(std::string_view text) {
  auto words = split_ws(text);
  if (words.size() < 2 || words[1] != "GT/s") return std::nullopt;
  double v = 0;
  auto [end, ec] = from_chars_double(words[0].data(), words[0].data() + words[0].size(), v);
  if (ec != std::errc() || end != words[0].data() + words[0].size() || !(v > 0))
    return std::nullopt;
  return v;
}

namespace {

std::optional<unsigned> parse_width(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text[0] == 'x') text.remove_prefix(1);  // some kernels print "x16"
  unsigned v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  // 0 is what a link that is down or not trained reports.
  if (ec != std::errc() || end != text.data() + text.size() || v == 0) return std::nullopt;
  return v;
}

}  // namespace

void probe_pci_links(const Root& root, std::vector<PciDevice>& devices) {
  for (PciDevice& d : devices) {
    std::string dir = "sys/bus/pci/devices/" + d.address + "/";
    auto text = [&](const char* name) -> std::optional<std::string> {
      auto t = root.read(dir + name);
      if (!t.ok()) return std::nullopt;
      return std::string(trim(*t));
    };
    if (auto t = text("current_link_speed")) d.link.speed_gts = parse_link_speed(*t);
    if (auto t = text("max_link_speed")) d.link.max_speed_gts = parse_link_speed(*t);
    if (auto t = text("current_link_width")) d.link.width = parse_width(*t);
    if (auto t = text("max_link_width")) d.link.max_width = parse_width(*t);
    // The kernel's node for the device (what its driver allocates on) over hwloc's
    // guess from local_cpus, which on a package split into several nodes (SNC, NPS)
    // spans them all and names the first. -1 (no proximity) keeps hwloc's answer.
    if (auto t = text("numa_node"))
      if (auto v = parse_i64(*t); v && *v >= 0 && *v <= INT32_MAX)
        d.numa_node = static_cast<int>(*v);
    if (auto driver = root.link_name(dir + "driver")) d.driver = *driver;
  }
}

}  // namespace tuner
