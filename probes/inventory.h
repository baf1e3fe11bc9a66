// Inventory: everything the probes learned about the node. Plain data; unknown values
// are empty optionals (printed as JSON null), never made up.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/cpuset.h"

namespace tuner {

struct Cache {
  unsigned level = 0;  // 1, 2, 3 (L1i and L1d both level 1)
  std::string type;    // "data", "instruction", "unified"
  uint64_t size_bytes = 0;
  CpuSet cpus;
};

struct Core {
  unsigned logical_index = 0;  // hwloc logical index
  std::optional<unsigned> os_index;
  unsigned package = 0;               // logical index of its package
  std::optional<unsigned> numa_node;  // os_index of the node holding it
  CpuSet pus;                         // first PU is the "primary" thread, the rest SMT siblings
};

struct NumaNode {
  unsigned os_index = 0;
  CpuSet cpus;
  std::optional<uint64_t> memory_bytes;
  std::optional<uint64_t> free_bytes;
};

struct PciDevice {
  std::string address;  // "0000:3b:00.0"
  std::string kind;     // "nic", "gpu", "coprocessor", "display", "nvme", "infiniband", "other"
  uint16_t vendor_id = 0, device_id = 0;
  uint32_t class_id = 0;         // PCI class (0x0200 ethernet, 0x0302 3D controller, ...)
  std::optional<int> numa_node;  // os_index of the nearest node; nullopt = no locality
  CpuSet local_cpus;
  std::vector<std::string> os_devices;  // "eth0", "mlx5_0", "nvme0n1", "cuda0", "card1"
  std::vector<std::string> netdevs;     // the network interfaces among os_devices
  /// The kernel driver bound to it (sysfs driver link: "nvidia", "vfio-pci", "mlx5_core");
  /// nullopt when none is bound or the target cannot say (--topology).
  std::optional<std::string> driver;
  /// PCIe link from sysfs (current_link_speed/width, max_link_speed/width); unknown
  /// for conventional PCI, virtual functions the kernel gives none, captures without
  /// them, and --topology.
  struct Link {
    std::optional<double> speed_gts, max_speed_gts;  // GT/s per lane: 2.5, 5, 8, 16, 32, 64
    std::optional<unsigned> width, max_width;        // lanes
  } link;
};

struct Topology {
  std::string source;  // "live", "root:DIR", "xml:FILE"
  unsigned packages = 0, cores = 0, pus = 0;
  CpuSet all_pus;
  std::vector<NumaNode> numa_nodes;  // sorted by os_index
  std::vector<Core> core_list;       // sorted by logical index
  std::vector<Cache> caches;         // distinct caches
  std::vector<PciDevice> pci;  // only devices of interest (with an OS device or NIC/GPU class)
  /// distances[i][j] between numa_nodes[i] and numa_nodes[j] (ACPI SLIT: 10 = local);
  /// empty when unknown.
  std::vector<std::vector<unsigned>> distances;
  /// hwloc's facts about the machine: "HostName", "OSRelease", "CPUModel", "CPUVendor",
  /// "DMIBIOSVersion", ... (what an XML export says about the machine it describes).
  std::map<std::string, std::string> info;
};

/// What an IRQ does for a NIC (tuner.probe/1 "kind"). Only queue vectors are placed.
enum class IrqKind {
  other,    // not a NIC's vector, or a name no rule knows
  queue,    // carries a queue's (or every queue's) completions
  control,  // link events, mailbox, firmware events, flow director, PTP: left alone
};

/// Which direction of a queue a vector serves (tuner.probe/1 "queue_type").
enum class QueueType {
  combined,  // RX and TX queue N ("TxRx-3", "fp-3", mlx5 "comp3")
  rx,        // RX queue N only ("rx-3", virtio "input.3", gve's second half)
  tx,        // TX queue N only ("tx-3", virtio "output.3", gve's first half)
  shared,    // every queue of the device (virtio "virtqueues", mlx5 "combined0")
};

struct Irq {
  unsigned number = 0;
  std::string chip;                               // "PCI-MSIX-0000:3b:00.0", "IO-APIC"
  std::string hwirq;                              // "0-edge"
  std::string name;                               // actions column: "mlx5_comp3@pci:0000:3b:00.0"
  std::vector<uint64_t> per_cpu;                  // counts, index = CPU column
  std::optional<std::string> affinity;            // smp_affinity_list, canonical cpulist
  std::optional<std::string> effective_affinity;  // effective_affinity_list
  std::optional<int> node;                        // /proc/irq/N/node
  std::optional<std::string> device;              // netdev owning it ("eth0"), else nullopt
  std::optional<std::string> pci;                 // PCI address whose msi_irqs lists it
  /// Its MSI/MSI-X vector index within `pci` (probes/irq_vector.h): with `pci`, the
  /// IRQ's identity across renumbering. Set only when every vector of the function has a
  /// distinct, readable index.
  std::optional<unsigned> msi_index;
  std::optional<std::string> queue;  // "TxRx-3", "comp3", "input.0" when the name says
  bool managed = false;              // kernel-managed affinity (cannot be moved)
  IrqKind kind = IrqKind::other;
  std::optional<unsigned> queue_index;  // the driver's queue number (not the name's)
  std::optional<QueueType> queue_type;  // set for every queue vector
  /// Why the owner or queue could not be told (two netdevs on one function, an odd
  /// gve block count, ...): such a vector is reported and never placed.
  std::optional<std::string> ambiguous;
  /// How the role was learned: "netlink" (the netdev family's napi-get) or "name".
  std::optional<std::string> source;
};

/// A link's duplex (ethtool's DUPLEX_FULL, DUPLEX_HALF; `unknown` is DUPLEX_UNKNOWN,
/// the forced mode a virtual driver without a duplex reads back). Its names are the
/// ones JSON, knob values and profiles use: "full", "half", "unknown".
enum class Duplex { full, half, unknown };
const char* duplex_name(Duplex duplex);
std::optional<Duplex> parse_duplex(std::string_view name);

/// Which backend read or sets a NIC's ethtool settings (probes/ethtool.h): the generic
/// netlink family, or the SIOCETHTOOL ioctl of kernels without it.
enum class EthtoolBackend { netlink, ioctl };
const char* ethtool_backend_name(EthtoolBackend backend);
std::optional<EthtoolBackend> parse_ethtool_backend(std::string_view name);

struct LinkInfo {
  std::optional<bool> up;
  std::optional<bool> autoneg;
  std::optional<uint32_t> speed_mbps;
  std::optional<Duplex> duplex;              // full or half; nullopt: not known
  std::optional<std::string> port;           // "TP", "FIBRE", "DA", "OTHER", ...
  std::vector<std::string> supported_modes;  // "25000baseSR/Full" (ethtool names)
  std::vector<std::string> advertised_modes;
  /// What the link partner advertised (ETHTOOL_A_LINKMODES_PEER): empty when the driver
  /// does not say, autonegotiation is off, or the probe had no netlink.
  std::vector<std::string> partner_modes;
};

struct Channels {
  std::optional<uint32_t> rx, tx, other, combined;
  std::optional<uint32_t> rx_max, tx_max, other_max, combined_max;
};

struct Rings {
  std::optional<uint32_t> rx, tx, rx_max, tx_max;
};

/// Interrupt coalescing (ETHTOOL_MSG_COALESCE_GET): a field is set when the driver
/// reports it. The kernel leaves out a zero field the driver does not support, so an
/// unset field is one this driver cannot change.
struct Coalesce {
  std::optional<uint32_t> rx_usecs, tx_usecs, rx_frames, tx_frames;
  std::optional<bool> adaptive_rx, adaptive_tx;
};

/// The MTUs the device takes (IFLA_MIN_MTU..IFLA_MAX_MTU from rtnetlink, kernel 4.19
/// and later; sysfs does not show them). max 0: the device sets no upper bound.
struct MtuRange {
  uint32_t min = 0, max = 0;
  bool takes(uint32_t mtu) const { return mtu >= min && (max == 0 || mtu <= max); }
  /// "68 to 9216 bytes", "68 bytes and up".
  std::string text() const;
};

struct Nic {
  std::string name;
  std::optional<std::string> driver;
  std::optional<std::string> pci;
  std::optional<int> numa_node;
  std::optional<std::string> operstate;
  std::optional<uint32_t> mtu;
  std::optional<MtuRange> mtu_range;  // nullopt: not known (no netlink, a capture)
  std::optional<std::string> mac;
  unsigned rx_queues = 0, tx_queues = 0;
  bool is_virtual = false;  // no backing device (lo, veth, bridge, ...)
  /// ARPHRD_* of sys/class/net/IF/type: 1 Ethernet, 32 InfiniBand (IPoIB), 772 loopback.
  std::optional<unsigned> link_type;
  /// The RDMA device of its PCI function (sys/class/net/IF/device/infiniband/NAME):
  /// "mlx5_0" on a RoCE-capable port; nullopt when there is none.
  std::optional<std::string> rdma_device;
  /// A default route (IPv4 or IPv6, the main table) goes out of this port: most often
  /// the management or front-end port (probes/default_route.h). Unknown in a capture
  /// without proc/net/route and proc/net/ipv6_route.
  std::optional<bool> default_route;
  /// When it carries the route only through Open vSwitch (under ovs-system): the OVS
  /// internal port that holds it ("br-ex"), for the plan's note; not in the JSON.
  std::optional<std::string> default_route_ovs;
  /// An SSH session to this node arrives through this port or a device stacked on it
  /// (probes/ssh_session.h): the management port even where the default route goes out
  /// of another. Unknown without proc/net/tcp{,6} and a routing table (a capture).
  std::optional<bool> ssh_session;
  /// Then one session's peer and, when not the port itself, the device it is routed
  /// out of ("10.1.2.3 via bond0"), for the plan's note; not in the JSON.
  std::optional<std::string> ssh_session_peer;
  std::vector<unsigned> irqs;
  LinkInfo link;
  std::optional<Channels> channels;
  std::optional<Rings> rings;
  std::optional<Coalesce> coalesce;  // nullopt: the driver has no coalescing (EOPNOTSUPP)
  /// The ethtool backend the probe read link, channels, rings and coalescing through;
  /// nullopt without one (a capture, --no-netlink, neither backend opened).
  std::optional<EthtoolBackend> ethtool;
  /// ETHTOOL_GDRVINFO on the live machine: what fleets compare across nodes.
  std::optional<std::string> driver_version, firmware_version;
};

/// An active swap device, a line of proc/swaps (probes/swap.h).
struct SwapDevice {
  std::string name;  // "/dev/zram0", "/dev/nvme0n1p3", "/swap.img" (blanks as \040)
  std::string type;  // "partition" (a block device) or "file"
  uint64_t size_kib = 0, used_kib = 0;
  int priority = 0;
};

struct Host {
  std::optional<std::string> hostname;
  std::optional<std::string> kernel;  // release, "6.1.0-18-amd64"
  std::optional<std::string> cpu_model;
  std::optional<std::string> cpu_vendor;  // "GenuineIntel", "AuthenticAMD", ...
  std::optional<std::string> hypervisor;  // nullopt on bare metal or unknown
  std::optional<bool> virtualized;
  std::optional<std::string> cmdline;
  CpuSet isolcpus;
  CpuSet nohz_full;
  std::optional<bool> irqbalance_running;
  /// Network namespaces other than this process's that have a process in them
  /// (containers, `ip netns exec`): their net.* sysctls are their own. Unknown in a
  /// capture without processes.
  std::optional<unsigned> other_net_namespaces;
  /// This process runs in the initial network namespace (pid 1's). Outside it the
  /// kernel hides the global net.* sysctls (net.core.netdev_max_backlog, ...).
  std::optional<bool> initial_net_namespace;
  std::optional<std::string> nvidia_driver;
  std::optional<std::string> microcode;  // /proc/cpuinfo "microcode" (x86): "0xde"
  /// The kernel's verdict per CPU vulnerability (sys/devices/system/cpu/vulnerabilities:
  /// "spectre_v2" -> "Mitigation: Retpolines; ..."); unknown before Linux 4.15, or in an
  /// export (probes/cpu_vulnerabilities.h).
  std::optional<std::map<std::string, std::string>> cpu_vulnerabilities;
  /// Firmware and machine identity from DMI (sys/class/dmi/id): what tells three nodes
  /// with an older BIOS apart from the rest. Unknown where there is no DMI (most arm64
  /// boards without SMBIOS, some VMs).
  struct Platform {
    std::optional<std::string> bios_vendor, bios_version, bios_date;
    std::optional<std::string> system_vendor, system_product;
    std::optional<std::string> board_vendor, board_name;
  } platform;
  /// The active swap devices (proc/swaps): empty without swap; nullopt when unknown (a
  /// capture without proc/swaps, an export). Zram only: the planner leaves a lower-only
  /// vm.swappiness alone (tuner/plan/sysctl_swap.cc).
  std::optional<std::vector<SwapDevice>> swaps;
};

/// A cpufreq policy: CPUs the kernel scales as one (sys/devices/system/cpu/cpufreq/policyN).
struct CpufreqPolicy {
  unsigned id = 0;                    // N of policyN (its first CPU)
  CpuSet cpus;                        // related_cpus: every CPU it governs, online or not
  CpuSet online;                      // affected_cpus: those online; empty = inactive
  std::optional<std::string> driver;  // scaling_driver: "intel_pstate", "acpi-cpufreq"
};

/// One idle state of a CPU's cpuidle table (sys/devices/system/cpu/cpuN/cpuidle/stateK).
/// A PM QoS resume latency limit lets the governor use a state only when its exit
/// latency is within the limit (tuner/knobs/cpu_latency.h).
struct IdleState {
  unsigned index = 0;  // K of stateK: shallowest first
  std::string name;    // "POLL", "C1", "C1E", "C6"
  /// The kernel's poll loop, not a C-state: name "POLL" (Linux 4.16 and later), or
  /// desc "CPUIDLE CORE POLL IDLE" (earlier kernels called it "C0").
  bool polling = false;
  std::optional<unsigned> latency_us;  // exit latency; nullopt when unreadable
  std::optional<bool> disabled;        // the `disable` file; nullopt without a readable one
};

/// The idle states of one CPU, the first online one, standing for every CPU's: intel_idle
/// registers one table for all CPUs, and acpi_idle's per-CPU _CST tables are alike.
struct Cpuidle {
  unsigned cpu = 0;
  std::optional<std::string> driver;  // sys/devices/system/cpu/cpuidle/current_driver
  std::vector<IdleState> states;      // by index, never empty
};

/// A probe that could not finish. The rest of the inventory is still valid.
struct ProbeError {
  std::string probe;    // "topology", "numa", "irq", "nic", "netlink", "sysctl", "host", "cpufreq",
                        // "cpuidle", "vulnerabilities", "swap", "cuda"
  std::string message;  // names the path or syscall and errno text
};

struct Inventory {
  Host host;
  Topology topology;
  std::vector<Irq> irqs;
  std::vector<Nic> nics;
  std::map<std::string, std::string> sysctls;  // key -> normalised value (the probed ones)
  /// cpufreq policies by number; empty without a cpufreq driver; nullopt when unknown
  /// (an XML topology describes another machine).
  std::optional<std::vector<CpufreqPolicy>> cpufreq;
  /// The idle states a resume latency limit chooses among; nullopt when unknown (no
  /// cpuidle driver, a capture without the per-CPU tables, an XML topology).
  std::optional<Cpuidle> cpuidle;
  std::vector<ProbeError> errors;
  /// The operator's own fact in the hardware class (--class-label; probes/hw_class.h):
  /// not probed, so empty unless the command line gave one.
  std::string class_label;

  const Nic* find_nic(const std::string& name) const;
  const NumaNode* find_node(unsigned os_index) const;
  const Irq* find_irq(unsigned number) const;
  /// GPUs (PCI kind "gpu") in PCI order; "gpuN" names index into this.
  std::vector<const PciDevice*> gpus() const;
};

}  // namespace tuner
