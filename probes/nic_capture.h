// A NIC's link, channels and rings without ethtool netlink: from the files a capture
// (--root DIR) carries. Parsers take text and are tested on what the kernel and ethtool
// print; the readers are a few lines over Root, whose bounded reader refuses a FIFO, a
// device or a file past 16 MiB, so hostile content is "unknown", never a wait or a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// sys/class/net/IF/speed in Mb/s, as net-sysfs prints it ("%d": 25000; -1 for
/// SPEED_UNKNOWN; "%u" on old kernels: 4294967295). nullopt for what ethtool(8) shows
/// as unknown (0, 65535, -1 and anything past INT_MAX) and for text that is not one
/// decimal number: an empty file (a capture of a link that was down, whose read
/// failed), garbage, an overflow.
std::optional<uint32_t> parse_sysfs_speed(std::string_view text);
/// sys/class/net/IF/duplex: "full" or "half"; nullopt for "unknown" and anything else.
std::optional<Duplex> parse_sysfs_duplex(std::string_view text);
/// Whether the link is up, from sys/class/net/IF/operstate (RFC 2863 words: "up";
/// "down", "lowerlayerdown", "notpresent"), else from its carrier ("1", "0"); nullopt
/// when neither says ("unknown", "dormant", a missing file).
std::optional<bool> parse_link_up(std::optional<std::string_view> operstate,
                                  std::optional<std::string_view> carrier);

/// `ethtool -l IF` (channels) or `ethtool -g IF` (rings) output: the "Pre-set
/// maximums:" and "Current hardware settings:" sections' "Name:<tabs>N" rows.
struct EthtoolShow {
  struct Row {
    std::string name;                      // "RX", "Combined", "RX Jumbo"
    std::optional<uint32_t> max, current;  // nullopt: "n/a", absent or not a number
  };
  std::vector<Row> rows;
  std::optional<uint32_t> max(std::string_view name) const;
  std::optional<uint32_t> current(std::string_view name) const;
};
/// nullopt when the text has neither section (not ethtool's output).
std::optional<EthtoolShow> parse_ethtool_show(std::string_view text);
Channels channels_from(const EthtoolShow& show);
Rings rings_from(const EthtoolShow& show);

/// Where a capture keeps what sysfs cannot say about IF: `ethtool/IF/channels` and
/// `ethtool/IF/rings`, the output of `ethtool -l IF` and `ethtool -g IF`.
std::string capture_ethtool_path(const std::string& ifname, std::string_view what);

/// Fills nic.link (up, speed, duplex) from sysfs and, in a capture (a Root that is not
/// live), nic.channels and nic.rings from its ethtool files. For a probe without
/// netlink: a capture, or a live machine where it could not be opened.
void add_capture_nic_facts(const Root& root, Nic& nic);

}  // namespace tuner
