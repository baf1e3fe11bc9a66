// The values of the nic knobs (nic:IF:link, :channels, :rings, :coalesce, and the size of
// an RFS flow table): parsing, canonical text, and how a link's modes are described. The
// ids are knob_id.h's.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/inventory.h"
#include "probes/link_modes.h"  // parse_link_mode

namespace tuner {

/// One "key=value" pair of a comma-separated knob value.
struct KeyValue {
  std::string key, value;
};
/// Splits "a=1,b=2" into pairs; rejects empty parts, missing '=', unknown and repeated
/// keys. The Error names the id and the offending part.
Result<std::vector<KeyValue>> parse_key_values(std::string_view text,
                                               const std::vector<std::string>& allowed,
                                               const std::string& id);

/// A link setting: what `nic:IF:link` reads and writes.
/// autoneg=off needs speed and duplex (forced mode). With autoneg=on, speed and duplex
/// are filters on the advertised modes: the kernel advertises exactly the supported
/// modes that match. `advertise` is what a read gives for an advertised set no filter
/// describes ("advertise=1000baseT/Full+10baseT/Full"); it is written as an OURS list.
/// "speed=unknown" (with "duplex=unknown"): a forced mode without a known speed, as the
/// kernel's SPEED_UNKNOWN / DUPLEX_UNKNOWN.
inline constexpr uint32_t kSpeedUnknown = 0xffffffffu;

struct LinkSetting {
  bool autoneg = true;
  std::optional<uint32_t> speed_mbps;
  std::optional<Duplex> duplex;  // unknown: forced, unnamed
  std::vector<std::string> advertise;
};

Result<LinkSetting> parse_link_setting(std::string_view text, const std::string& id);
std::string format_link_setting(const LinkSetting& s);

/// The supported speed modes that match the filters, in the order given.
std::vector<std::string> filter_modes(const std::vector<std::string>& supported,
                                      std::optional<uint32_t> speed, std::optional<Duplex> duplex);

/// Describes a link as a LinkSetting: forced speed/duplex, or which filter on the
/// supported modes yields the advertised ones (the least specific that does, after
/// speed+duplex), or the advertised list itself when no filter does.
LinkSetting describe_link(const LinkInfo& info);

/// "combined=8", "rx=4,tx=4": channel counts. Keys in order rx, tx, other, combined;
/// a key appears when the device supports it (max > 0) or, max unknown, has a value.
std::string format_channels(const Channels& ch);
Result<Channels> parse_channels(std::string_view text, const std::string& id);
/// "rx=4096,tx=4096".
std::string format_rings(const Rings& r);
Result<Rings> parse_rings(std::string_view text, const std::string& id);
/// "rx-usecs=8,tx-usecs=8,rx-frames=32,tx-frames=32,adaptive-rx=off,adaptive-tx=off":
/// interrupt coalescing, the fields that are set in that order (ethtool -C's names;
/// usecs and frames 0 or more, adaptive on or off). "none" is a device that reports no
/// field at all.
std::string format_coalesce(const Coalesce& c);
Result<Coalesce> parse_coalesce(std::string_view text, const std::string& id);
/// The coalesce fields, in format_coalesce's order, with their knob value names.
struct CoalesceField {
  const char* name;  // "rx-usecs"
  std::optional<uint32_t> Coalesce::*count = nullptr;
  std::optional<bool> Coalesce::*flag = nullptr;  // adaptive-rx, adaptive-tx
};
const std::vector<CoalesceField>& coalesce_fields();
/// Whether c has field f set; whether a and b hold the same for f; to's f = from's f.
bool coalesce_has(const Coalesce& c, const CoalesceField& f);
bool coalesce_same(const Coalesce& a, const Coalesce& b, const CoalesceField& f);
void coalesce_copy(Coalesce& to, const Coalesce& from, const CoalesceField& f);

/// An RFS flow table's size as the kernel keeps it, both a queue's (nic:IF:rfs:rx-N,
/// rps_flow_cnt) and the global socket table (net.core.rps_sock_flow_entries): n rounded
/// up to a power of two, 0 (no table) kept (tuner/knobs/nic_rfs.cc).
uint64_t rfs_table_size(uint64_t n);

}  // namespace tuner
