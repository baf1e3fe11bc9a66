#include "tuner/knobs/sysctl_netns.h"

namespace tuner {

namespace {

struct Row {
  std::string_view key;
  bool prefix;  // key is a prefix ("net.core.") rather than a whole key
  NewNetns gets;
};

// From Linux 6.1 (Debian 12's kernel: linux-source-6.1 6.1.192), files under net/.
// Checked in a VM booting Debian's 6.1.0-57-amd64 (2026-12): with somaxconn,
// tcp_notsent_lowat, tcp_slow_start_after_idle, tcp_mtu_probing, ip_local_port_range,
// tcp_keepalive_time, tcp_rmem, tcp_wmem, tcp_congestion_control (reno),
// conf.all/default.rp_filter, IPv6's conf.all.forwarding and conf.default.hop_limit,
// optmem_max, rmem_max, netdev_max_backlog and tcp_mem changed in the initial
// namespace, an `unshare -n` child had the kernel defaults of the first six and of the
// IPv6 pair, the initial namespace's values of the next five, and none of the last four
// (absent there). sysctl_netns_test.cc checks the rows on the running kernel. The
// longest matching row wins.
constexpr Row kRows[] = {
    // core/sysctl_net_core.c: net_core_table is registered for init_net alone (newer
    // kernels show rmem_max, wmem_max, rmem_default and wmem_default read-only in other
    // namespaces: 6.18 here); netns_core_table is per namespace, set by
    // net_defaults_init_net() (core/net_namespace.c). Later kernels also moved
    // optmem_max, tstamp_allow_data and rps_default_mask there (kernel defaults in a new
    // namespace on 6.18): shared here, as on 6.1.
    {"net.core.", true, NewNetns::shared},
    {"net.core.somaxconn", false, NewNetns::kernel_default},
    {"net.core.txrehash", false, NewNetns::kernel_default},
    {"net.core.xfrm_", true, NewNetns::kernel_default},  // xfrm/xfrm_sysctl.c
    // ipv4/sysctl_net_ipv4.c ipv4_table, ipv4/ip_fragment.c ip4_frags_ctl_table and
    // ipv4/route.c ipv4_route_table are init_net's alone; the congestion control lists
    // are the machine's (ipv4/tcp_cong.c).
    {"net.ipv4.tcp_max_orphans", false, NewNetns::shared},
    {"net.ipv4.inet_peer_", true, NewNetns::shared},
    {"net.ipv4.tcp_mem", false, NewNetns::shared},
    {"net.ipv4.tcp_low_latency", false, NewNetns::shared},
    {"net.ipv4.cipso_", true, NewNetns::shared},
    {"net.ipv4.tcp_available_ulp", false, NewNetns::shared},
    {"net.ipv4.udp_mem", false, NewNetns::shared},
    {"net.ipv4.fib_sync_mem", false, NewNetns::shared},
    {"net.ipv4.tcp_available_congestion_control", false, NewNetns::shared},
    {"net.ipv4.tcp_allowed_congestion_control", false, NewNetns::shared},
    {"net.ipv4.ipfrag_secret_interval", false, NewNetns::shared},
    {"net.ipv4.route.", true, NewNetns::shared},
    {"net.ipv4.route.flush", false, NewNetns::kernel_default},  // ipv4_route_netns_table
    {"net.ipv4.route.min_pmtu", false, NewNetns::kernel_default},
    {"net.ipv4.route.mtu_expires", false, NewNetns::kernel_default},
    {"net.ipv4.route.min_adv_mss", false, NewNetns::kernel_default},
    // ipv6/sysctl_net_ipv6.c ipv6_rotable, ipv6/reassembly.c ip6_frags_ctl_table.
    {"net.ipv6.mld_max_msf", false, NewNetns::shared},
    {"net.ipv6.mld_qrv", false, NewNetns::shared},
    {"net.ipv6.calipso_", true, NewNetns::shared},
    {"net.ipv6.ip6frag_secret_interval", false, NewNetns::shared},
    // core/neighbour.c: the ARP and NDISC tables' default parameters are registered
    // once, in init_net.
    {"net.ipv4.neigh.default.", true, NewNetns::shared},
    {"net.ipv6.neigh.default.", true, NewNetns::shared},
    // netfilter/nf_conntrack_standalone.c: net.nf_conntrack_max is init_net's alone;
    // other namespaces see these read-only (mode 0444); nf_log.c's is the machine's.
    {"net.nf_conntrack_max", false, NewNetns::shared},
    {"net.netfilter.nf_conntrack_max", false, NewNetns::shared},
    {"net.netfilter.nf_conntrack_expect_max", false, NewNetns::shared},
    {"net.netfilter.nf_conntrack_buckets", false, NewNetns::shared},
    {"net.netfilter.nf_log_all_netns", false, NewNetns::shared},
    // Copied from init_net when a namespace is created: ipv4/tcp_ipv4.c tcp_sk_init()
    // (Linux 4.15+) memcpy()s tcp_rmem and tcp_wmem and takes init_net's congestion
    // control; ipv4/devinet.c devinet_init_net() copies conf/all and conf/default while
    // net.core.devconf_inherit_init_net is 0 (the default) or 1. IPv6's
    // (ipv6/addrconf.c addrconf_init_net()) only with 1: kernel defaults here.
    {"net.ipv4.tcp_rmem", false, NewNetns::copied},
    {"net.ipv4.tcp_wmem", false, NewNetns::copied},
    {"net.ipv4.tcp_congestion_control", false, NewNetns::copied},
    {"net.ipv4.conf.", true, NewNetns::interface},
    {"net.ipv4.conf.all.", true, NewNetns::copied},
    {"net.ipv4.conf.default.", true, NewNetns::copied},
    {"net.ipv6.conf.", true, NewNetns::interface},
    {"net.ipv6.conf.all.", true, NewNetns::kernel_default},
    {"net.ipv6.conf.default.", true, NewNetns::kernel_default},
    {"net.ipv4.neigh.", true, NewNetns::interface},
    {"net.ipv6.neigh.", true, NewNetns::interface},
};

}  // namespace

std::optional<NewNetns> new_netns_gets(std::string_view key) {
  if (key.substr(0, 4) != "net.") return std::nullopt;
  const Row* best = nullptr;
  for (const Row& r : kRows) {
    bool match = r.prefix ? key.substr(0, r.key.size()) == r.key : key == r.key;
    if (match && (!best || r.key.size() > best->key.size())) best = &r;
  }
  return best ? best->gets : NewNetns::kernel_default;
}

}  // namespace tuner
