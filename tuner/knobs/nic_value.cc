#include "tuner/knobs/nic_value.h"

#include <algorithm>

#include "base/strings.h"

namespace tuner {

Result<std::vector<KeyValue>> parse_key_values(std::string_view text,
                                               const std::vector<std::string>& allowed,
                                               const std::string& id) {
  std::vector<KeyValue> out;
  text = trim(text);
  if (text.empty()) return Error::invalid("empty value", id);
  for (std::string_view part : split(text, ',')) {
    part = trim(part);
    auto eq = part.find('=');
    if (part.empty() || eq == std::string_view::npos || eq == 0)
      return Error::invalid(
          "expected key=value, got '" + std::string(part) + "' in '" + std::string(text) + "'", id);
    KeyValue kv{std::string(trim(part.substr(0, eq))), std::string(trim(part.substr(eq + 1)))};
    if (std::find(allowed.begin(), allowed.end(), kv.key) == allowed.end()) {
      std::string keys;
      for (const auto& a : allowed) keys += (keys.empty() ? "" : ", ") + a;
      return Error::invalid("unknown key '" + kv.key + "' (expected " + keys + ")", id);
    }
    for (const KeyValue& seen : out)
      if (seen.key == kv.key) return Error::invalid("key '" + kv.key + "' given twice", id);
    out.push_back(std::move(kv));
  }
  return out;
}

namespace {

Result<uint32_t> parse_count(const KeyValue& kv, const std::string& id, bool allow_zero) {
  auto v = parse_u64(kv.value);
  if (!v || *v > UINT32_MAX || (!allow_zero && *v == 0))
    return Error::invalid(kv.key + "=" + kv.value + ": expected a " +
                              (allow_zero ? "non-negative" : "positive") + " integer",
                          id);
  return static_cast<uint32_t>(*v);
}

}  // namespace

Result<LinkSetting> parse_link_setting(std::string_view text, const std::string& id) {
  auto kvs = parse_key_values(text, {"autoneg", "speed", "duplex", "advertise"}, id);
  if (!kvs.ok()) return kvs.error();
  LinkSetting s;
  bool have_autoneg = false;
  for (const KeyValue& kv : *kvs) {
    if (kv.key == "autoneg") {
      if (kv.value != "on" && kv.value != "off")
        return Error::invalid("autoneg=" + kv.value + ": expected on or off", id);
      s.autoneg = kv.value == "on";
      have_autoneg = true;
    } else if (kv.key == "speed") {
      if (kv.value == "unknown") {
        s.speed_mbps = kSpeedUnknown;
        continue;
      }
      auto v = parse_count(kv, id, false);
      if (!v.ok()) return v.error();
      if (*v == kSpeedUnknown) return Error::invalid("speed=" + kv.value + ": out of range", id);
      s.speed_mbps = *v;
    } else if (kv.key == "advertise") {
      for (std::string_view mode : split(kv.value, '+')) {
        bool ok = !mode.empty() && mode.size() < 32 &&
                  std::all_of(mode.begin(), mode.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' ||
                           c == '-';
                  });
        if (!ok) return Error::invalid("advertise=" + kv.value + ": invalid link mode name", id);
        s.advertise.emplace_back(mode);
      }
    } else {
      s.duplex = parse_duplex(kv.value);
      if (!s.duplex)
        return Error::invalid("duplex=" + kv.value + ": expected full, half or unknown", id);
    }
  }
  if (!have_autoneg) return Error::invalid("autoneg=on|off is required", id);
  if (!s.advertise.empty() && (!s.autoneg || s.speed_mbps || s.duplex))
    return Error::invalid("advertise= goes with autoneg=on alone", id);
  if (!s.autoneg && (!s.speed_mbps || !s.duplex))
    return Error::invalid("autoneg=off needs both speed=N and duplex=full|half", id);
  bool unknown = s.speed_mbps == kSpeedUnknown || s.duplex == Duplex::unknown;
  if (unknown && (s.autoneg || s.speed_mbps != kSpeedUnknown || s.duplex != Duplex::unknown))
    return Error::invalid("speed=unknown and duplex=unknown go together, with autoneg=off", id);
  return s;
}

std::string format_link_setting(const LinkSetting& s) {
  std::string out = s.autoneg ? "autoneg=on" : "autoneg=off";
  if (s.speed_mbps == kSpeedUnknown) out += ",speed=unknown";
  else if (s.speed_mbps) out += ",speed=" + std::to_string(*s.speed_mbps);
  if (s.duplex) out += std::string(",duplex=") + duplex_name(*s.duplex);
  if (!s.advertise.empty()) {
    out += ",advertise=";
    for (std::size_t i = 0; i < s.advertise.size(); ++i) out += (i ? "+" : "") + s.advertise[i];
  }
  return out;
}

std::vector<std::string> filter_modes(const std::vector<std::string>& supported,
                                      std::optional<uint32_t> speed, std::optional<Duplex> duplex) {
  std::vector<std::string> out;
  for (const std::string& m : supported) {
    auto ms = parse_link_mode(m);
    if (!ms) continue;
    if (speed && ms->speed_mbps != *speed) continue;
    if (duplex && ms->duplex != *duplex) continue;
    out.push_back(m);
  }
  return out;
}

namespace {

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

LinkSetting describe_link(const LinkInfo& info) {
  LinkSetting s;
  s.autoneg = info.autoneg.value_or(false);
  if (!s.autoneg) {
    s.speed_mbps = info.speed_mbps;
    s.duplex = info.duplex;
    // A forced mode the driver cannot name (virtio-net before anyone sets a speed):
    // "unknown" is a value the kernel accepts back, so rollback can restore it.
    if (!s.speed_mbps && !s.duplex) {
      s.speed_mbps = kSpeedUnknown;
      s.duplex = Duplex::unknown;
    }
    return s;
  }
  std::vector<std::string> all = sorted(filter_modes(info.supported_modes, {}, {}));
  std::vector<std::string> adv = sorted(filter_modes(info.advertised_modes, {}, {}));
  // Unknown lists, or everything advertised: plain autoneg.
  if (all.empty() || adv.empty() || adv == all) return s;
  std::vector<uint32_t> speeds;
  std::vector<Duplex> duplexes;
  for (const std::string& m : adv) {
    auto ms = parse_link_mode(m);
    if (std::find(speeds.begin(), speeds.end(), ms->speed_mbps) == speeds.end())
      speeds.push_back(ms->speed_mbps);
    if (std::find(duplexes.begin(), duplexes.end(), ms->duplex) == duplexes.end())
      duplexes.push_back(ms->duplex);
  }
  auto matches = [&](std::optional<uint32_t> sp, std::optional<Duplex> du) {
    return sorted(filter_modes(all, sp, du)) == adv;
  };
  if (speeds.size() == 1 && duplexes.size() == 1 && matches(speeds[0], duplexes[0])) {
    s.speed_mbps = speeds[0];
    s.duplex = duplexes[0];
  } else if (speeds.size() == 1 && matches(speeds[0], std::nullopt)) {
    s.speed_mbps = speeds[0];
  } else if (duplexes.size() == 1 && matches(std::nullopt, duplexes[0])) {
    s.duplex = duplexes[0];
  } else {
    s.advertise = adv;
  }
  return s;
}

namespace {

void put(std::string& out, const char* key, const std::optional<uint32_t>& v,
         const std::optional<uint32_t>& max) {
  if (!v) return;
  if (max && *max == 0) return;
  out += (out.empty() ? "" : ",") + std::string(key) + "=" + std::to_string(*v);
}

}  // namespace

std::string format_channels(const Channels& ch) {
  std::string out;
  put(out, "rx", ch.rx, ch.rx_max);
  put(out, "tx", ch.tx, ch.tx_max);
  put(out, "other", ch.other, ch.other_max);
  put(out, "combined", ch.combined, ch.combined_max);
  return out;
}

Result<Channels> parse_channels(std::string_view text, const std::string& id) {
  auto kvs = parse_key_values(text, {"rx", "tx", "other", "combined"}, id);
  if (!kvs.ok()) return kvs.error();
  Channels ch;
  for (const KeyValue& kv : *kvs) {
    auto v = parse_count(kv, id, true);
    if (!v.ok()) return v.error();
    if (kv.key == "rx") ch.rx = *v;
    else if (kv.key == "tx") ch.tx = *v;
    else if (kv.key == "other") ch.other = *v;
    else ch.combined = *v;
  }
  return ch;
}

std::string format_rings(const Rings& r) {
  std::string out;
  put(out, "rx", r.rx, r.rx_max);
  put(out, "tx", r.tx, r.tx_max);
  return out;
}

Result<Rings> parse_rings(std::string_view text, const std::string& id) {
  auto kvs = parse_key_values(text, {"rx", "tx"}, id);
  if (!kvs.ok()) return kvs.error();
  Rings r;
  for (const KeyValue& kv : *kvs) {
    auto v = parse_count(kv, id, false);
    if (!v.ok()) return v.error();
    (kv.key == "rx" ? r.rx : r.tx) = *v;
  }
  return r;
}

const std::vector<CoalesceField>& coalesce_fields() {
  static const std::vector<CoalesceField> fields = {
      {"rx-usecs", &Coalesce::rx_usecs},
      {"tx-usecs", &Coalesce::tx_usecs},
      {"rx-frames", &Coalesce::rx_frames},
      {"tx-frames", &Coalesce::tx_frames},
      {"adaptive-rx", nullptr, &Coalesce::adaptive_rx},
      {"adaptive-tx", nullptr, &Coalesce::adaptive_tx}};
  return fields;
}

bool coalesce_has(const Coalesce& c, const CoalesceField& f) {
  return f.count ? (c.*f.count).has_value() : (c.*f.flag).has_value();
}
bool coalesce_same(const Coalesce& a, const Coalesce& b, const CoalesceField& f) {
  return f.count ? a.*f.count == b.*f.count : a.*f.flag == b.*f.flag;
}
void coalesce_copy(Coalesce& to, const Coalesce& from, const CoalesceField& f) {
  if (f.count) to.*f.count = from.*f.count;
  else to.*f.flag = from.*f.flag;
}

std::string format_coalesce(const Coalesce& c) {
  std::string out;
  for (const CoalesceField& f : coalesce_fields()) {
    std::string v;
    if (f.count && c.*f.count) v = std::to_string(*(c.*f.count));
    if (f.flag && c.*f.flag) v = *(c.*f.flag) ? "on" : "off";
    if (!v.empty()) out += (out.empty() ? "" : ",") + std::string(f.name) + "=" + v;
  }
  return out.empty() ? "none" : out;
}

Result<Coalesce> parse_coalesce(std::string_view text, const std::string& id) {
  Coalesce c;
  if (trim(text) == "none") return c;
  std::vector<std::string> names;
  for (const CoalesceField& f : coalesce_fields()) names.emplace_back(f.name);
  auto kvs = parse_key_values(text, names, id);
  if (!kvs.ok()) return kvs.error();
  for (const KeyValue& kv : *kvs) {
    const CoalesceField& f =
        *std::ranges::find_if(coalesce_fields(), [&](const auto& x) { return kv.key == x.name; });
    if (f.flag) {
      if (kv.value != "on" && kv.value != "off")
        return Error::invalid(kv.key + "=" + kv.value + ": expected on or off", id);
      c.*f.flag = kv.value == "on";
      continue;
    }
    auto v = parse_count(kv, id, true);
    if (!v.ok()) return v.error();
    c.*f.count = *v;
  }
  return c;
}

}  // namespace tuner
