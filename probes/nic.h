// NIC probe: sysfs facts plus what ethtool (netlink or the ioctl) reports.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/ethtool.h"
#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// Lists /sys/class/net and fills each Nic from sysfs. When et is non-null (live
/// machine), adds link info, link modes, link state, channels, rings and interrupt
/// coalescing through it, and which backend it is (Nic::ethtool); without it (a capture), the link's state, speed and duplex
/// from sysfs and a capture's channels and rings (probes/nic_capture.h).
/// Operations a driver does not support (EOPNOTSUPP) leave their fields empty; other
/// failures are reported as ProbeError{"netlink", ...} naming the interface.
std::vector<Nic> probe_nics(const Root& root, Ethtool* et, std::vector<ProbeError>& errors);

/// True for a PCI address in sysfs form: "0000:3b:00.0" (domain may be longer).
bool is_pci_address(std::string_view name);
/// Resolves "." and ".." in a '/'-separated path without touching the filesystem;
/// ".." never climbs above the start (paths are relative to a Root).
std::string normalize_path(std::string_view path);
/// The nearest PCI device on a sysfs device path, walking up from its end:
/// ".../0000:00:03.0/virtio2" -> "0000:00:03.0"; nullopt when none.
std::optional<std::string> pci_ancestor(std::string_view device_path);

}  // namespace tuner
