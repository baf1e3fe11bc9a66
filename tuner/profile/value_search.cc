#include "tuner/profile/value_search.h"

#include <cstdint>
#include <map>
#include <string_view>

namespace tuner {
namespace {

void add_table(std::vector<SearchedSetting>& out, std::string_view id,
               const std::optional<TableSetting>& t) {
  if (t && !t->search.empty()) out.push_back({std::string(id), t->search, t->group, t->loc});
}

std::vector<std::string> texts(const std::vector<uint32_t>& v) {
  std::vector<std::string> out;
  out.reserve(v.size());
  for (uint32_t x : v) out.push_back(std::to_string(x));
  return out;
}

Error no_candidate(const std::string& setting, std::size_t i) {
  return Error::invalid("no searched setting '" + setting + "' with a candidate " +
                        std::to_string(i + 1));
}

bool pick_table(std::optional<TableSetting>& t, std::size_t i) {
  if (!t || i >= t->search.size()) return false;
  t->value = t->search[i];
  t->search.clear();
  return true;
}

}  // namespace

bool set_coalesce_field(Coalesce& c, std::string_view field, const std::string& text) {
  if (field == "adaptive_rx" || field == "adaptive_tx") {
    if (text != "true" && text != "false") return false;
    (field == "adaptive_rx" ? c.adaptive_rx : c.adaptive_tx) = text == "true";
    return true;
  }
  std::optional<uint32_t>* slot = field == "rx_usecs"    ? &c.rx_usecs
                                  : field == "tx_usecs"  ? &c.tx_usecs
                                  : field == "rx_frames" ? &c.rx_frames
                                  : field == "tx_frames" ? &c.tx_frames
                                                         : nullptr;
  if (!slot || text.empty() || text.size() > 10 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  unsigned long long v = std::stoull(text);
  if (v > UINT32_MAX) return false;
  *slot = static_cast<uint32_t>(v);
  return true;
}

std::vector<SearchedSetting> searched_settings(const Profile& p) {
  std::vector<SearchedSetting> out;
  for (const SysctlSetting& s : p.sysctls)
    if (!s.search.empty()) out.push_back({"sysctl:" + s.key, s.search, s.group, s.loc});
  for (const NicRule& r : p.nics) {
    if (!r.rx_ring_search.empty())
      out.push_back({"nic:" + r.glob + ":rings.rx", texts(r.rx_ring_search), r.group, r.loc});
    if (!r.tx_ring_search.empty())
      out.push_back({"nic:" + r.glob + ":rings.tx", texts(r.tx_ring_search), r.group, r.loc});
    if (!r.coalesce_search.empty())
      out.push_back({"nic:" + r.glob + ":coalesce." + r.coalesce_search_field, r.coalesce_search,
                     r.group, r.loc});
  }
  add_table(out, "cpu:resume_latency", p.cpu.resume_latency);
  add_table(out, "mm:thp", p.mm.thp);
  add_table(out, "mm:thp_defrag", p.mm.thp_defrag);
  return out;
}

Result<Profile> with_candidate(const Profile& p, const std::string& setting, std::size_t i) {
  Profile out = p;
  if (setting.starts_with("sysctl:")) {
    for (SysctlSetting& s : out.sysctls)
      if ("sysctl:" + s.key == setting && i < s.search.size()) {
        s.value = s.search[i];
        s.search.clear();
        return out;
      }
    return no_candidate(setting, i);
  }
  if (setting.starts_with("nic:")) {
    for (NicRule& r : out.nics)
      if (!r.coalesce_search.empty() && r.coalesce &&
          "nic:" + r.glob + ":coalesce." + r.coalesce_search_field == setting &&
          i < r.coalesce_search.size()) {
        if (!set_coalesce_field(*r.coalesce, r.coalesce_search_field, r.coalesce_search[i]))
          return no_candidate(setting, i);
        r.coalesce_search.clear();
        r.coalesce_search_field.clear();
        return out;
      }
    for (NicRule& r : out.nics)
      for (bool rx : {true, false}) {
        std::vector<uint32_t>& search = rx ? r.rx_ring_search : r.tx_ring_search;
        if ("nic:" + r.glob + (rx ? ":rings.rx" : ":rings.tx") != setting || i >= search.size())
          continue;
        (rx ? r.rx_ring : r.tx_ring) = search[i];
        search.clear();
        return out;
      }
    return no_candidate(setting, i);
  }
  bool ok = setting == "cpu:resume_latency" ? pick_table(out.cpu.resume_latency, i)
            : setting == "mm:thp"           ? pick_table(out.mm.thp, i)
            : setting == "mm:thp_defrag"    ? pick_table(out.mm.thp_defrag, i)
                                            : false;
  if (!ok) return no_candidate(setting, i);
  return out;
}

Status check_one_search_per_group(const Profile& p) {
  std::map<std::string, const SearchedSetting*> by_group;
  std::vector<SearchedSetting> all = searched_settings(p);
  for (const SearchedSetting& s : all) {
    auto [it, fresh] = by_group.try_emplace(s.group, &s);
    if (fresh) continue;
    return Error::invalid("group '" + s.group + "' searches two settings, " + it->second->setting +
                              " (" + it->second->loc.str() + ") and " + s.setting +
                              ": a group searches one setting at a time; put the "
                              "other in a [group.NAME] of its own",
                          s.loc.str());
  }
  return Ok{};
}

}  // namespace tuner
