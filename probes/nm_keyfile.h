// NetworkManager's connection profiles in its keyfile format (nm-settings-keyfile(5)):
// etc/NetworkManager/system-connections, run/NetworkManager/system-connections (runtime
// connections) and usr/lib/NetworkManager/system-connections (read-only ones shipped
// by the image), *.nmconnection. NetworkManager applies a connection's [ethernet] link
// settings and MTU and its [ethtool] rings, channels and coalescing each time it
// activates the connection, after boot and on every reconnect. Read through the Root's
// bounded reader; nothing is written.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// One connection: who it applies to and the properties tuner's NIC knobs also set.
struct NmConnection {
  std::string file;            // "etc/NetworkManager/system-connections/uplink.nmconnection"
  std::string id;              // connection.id
  std::string interface_name;  // connection.interface-name (or match.interface-name's first)
  std::string mac;             // ethernet.mac-address, lower case
  bool autoconnect = true;     // connection.autoconnect
  struct Property {
    std::string key;    // "ethtool.ring-rx", "ethernet.mtu"
    std::string value;  // as written
    int line = 0;
  };
  /// The [ethernet] and [ethtool] properties, in file order (a repeated key: later wins).
  std::vector<Property> properties;
};

/// Parses one keyfile (GKeyFile syntax: [group], key=value, '#' comment lines);
/// `file` names it in errors. [802-3-ethernet] is read as [ethernet].
Result<NmConnection> parse_nm_keyfile(std::string_view text, const std::string& file);

/// Every *.nmconnection of the three folders, by folder then name; a file that cannot
/// be read or parsed is an entry in `errors` (probe "networkmanager") and left out.
std::vector<NmConnection> read_nm_connections(const Root& root, std::vector<ProbeError>& errors);

}  // namespace tuner
