// What a network namespace created later (a pod, a container) has for a net.* sysctl
// that tuner changed in the initial one. Most net.* keys are per namespace and a new
// namespace starts them at the kernel's default, whatever the host has; a few are copied
// from the initial namespace when the namespace is created; some are one value for the
// whole machine. The plan says which of its changes pods will not have
// (tuner/plan/sysctl.cc).
#pragma once

#include <optional>
#include <string_view>

namespace tuner {

enum class NewNetns {
  /// One value for every namespace: the kernel registers the key for the initial
  /// namespace alone; others do not have it, or show it read-only.
  shared,
  /// Per namespace, copied from the initial namespace when a namespace is created.
  copied,
  /// Per namespace, starting at the kernel's default in a new namespace.
  kernel_default,
  /// An interface's (net.ipv4.conf.eth0.*, net.ipv6.neigh.eth0.*): a new namespace has
  /// interfaces of its own, which start from its conf.default.
  interface,
};

/// What a new network namespace has for KEY ("net.core.somaxconn"): the longest row
/// of the table that matches (sysctl_netns.cc, with the kernel source it follows);
/// kernel_default for a net.* key no row names; nullopt for a key outside net.*.
std::optional<NewNetns> new_netns_gets(std::string_view key);

}  // namespace tuner
