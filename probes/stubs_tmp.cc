// TEMPORARY: replaced by the real probes.
#include "probes/host.h"
#include "probes/irq.h"
#include "probes/netlink.h"
#include "probes/nic.h"
#include "probes/numa.h"
#include "probes/sysctl.h"
#include "probes/topology.h"
namespace tuner {
Result<Topology> probe_topology(const Root&, const std::optional<std::string>&) { return Error{"not implemented", "topology", 0}; }
void probe_numa(const Root&, Topology&, std::vector<ProbeError>&) {}
Result<std::vector<Irq>> parse_interrupts(std::string_view) { return std::vector<Irq>{}; }
std::vector<Irq> probe_irqs(const Root&, std::vector<ProbeError>&) { return {}; }
Result<std::string> sysctl_path(const Root&, std::string_view) { return Error{"ni", "", 0}; }
Status check_sysctl_key_syntax(std::string_view) { return Ok{}; }
Result<std::string> read_sysctl(const Root&, std::string_view) { return Error{"ni", "", ENOENT}; }
void parse_cmdline(std::string_view, Host&) {}
Host probe_host(const Root&, std::vector<ProbeError>&) { return {}; }
std::vector<Nic> probe_nics(const Root&, Netlink*, std::vector<ProbeError>&) { return {}; }
Result<std::unique_ptr<Netlink>> open_ethtool_netlink() { return Error{"ni", "", 0}; }
}
