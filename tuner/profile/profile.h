// Profile: what a node of a kind should look like, read from TOML (toml++). Includes
// are resolved and merged at load time (parents first, the including file wins), so
// the planner sees one flat Profile.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "probes/bench/exec.h"
#include "probes/bench/latency.h"
#include "probes/bench/membw.h"
#include "probes/bench/tcp.h"
#include "probes/inventory.h"

namespace tuner {

/// Where a setting was written: "profiles/latency.toml:12:1".
struct SourceLoc {
  std::string file;
  int line = 0, col = 0;
  std::string str() const;
};

/// Sets one [nic] coalesce field ("rx_usecs", ..., "adaptive_tx") from its text: a
/// count, or "true"/"false" for the adaptive ones. False for an unknown field or text.
bool set_coalesce_field(Coalesce& c, std::string_view field, const std::string& text);

/// Candidates one searched setting may have (`{ search = [...] }`).
inline constexpr std::size_t kMaxSearchCandidates = 16;

struct SysctlSetting {
  enum class Op { set, at_least, at_most };  // "= v", ">=N" (raise only), "<=N" (lower only)
  std::string key;
  Op op = Op::set;
  std::string value;  // normalised text; a number for at_least / at_most
  std::string group;  // "sysctl" unless a [group.*] claims it
  SourceLoc loc;
  /// A value search: the candidates (op set), the first also in `value`; empty: none.
  std::vector<std::string> search;
  /// `{ leave = true }`: the kernel's value. It replaces an included profile's setting
  /// of the key when files merge, and load_profile() then drops it: nothing is planned.
  bool leave = false;
};

/// Where an [irq] rule places a NIC's queue IRQs: "numa-local", "spread", "pin".
enum class IrqPolicy { numa_local, spread, pin };
/// What an [irq] rule does about irqbalance: "leave", "ban" (ban these IRQs), "stop".
enum class IrqbalanceAction { leave, ban, stop };

const char* irq_policy_name(IrqPolicy p);
std::optional<IrqPolicy> parse_irq_policy(std::string_view name);
const char* irqbalance_action_name(IrqbalanceAction a);
std::optional<IrqbalanceAction> parse_irqbalance_action(std::string_view name);

/// What kind of port an [irq] or [nic] rule is for ("link_type"): an Ethernet port
/// (ARPHRD_ETHER, sys/class/net/IF/type 1) or an IPoIB one (ARPHRD_INFINIBAND, 32).
enum class LinkKind { ethernet, infiniband };
const char* link_kind_name(LinkKind k);
std::optional<LinkKind> parse_link_kind(std::string_view name);
/// The ARPHRD_* number of sys/class/net/IF/type that a LinkKind stands for.
unsigned link_kind_arphrd(LinkKind k);

struct IrqRule {
  std::string glob;  // NIC name glob: "mlx5*", "eth*"
  IrqPolicy policy = IrqPolicy::numa_local;
  std::optional<CpuSet> cpus;  // pin only
  IrqbalanceAction irqbalance = IrqbalanceAction::leave;
  /// Only NICs whose link runs at least this fast (Mb/s); unset: any speed.
  std::optional<uint32_t> min_speed_mbps;
  /// false: not ports with an RDMA device (RoCE: a training or storage fabric's ports,
  /// tuned by the fabric's owner), unless `ports` names them. Unset: any.
  std::optional<bool> rdma;
  /// false: not the port a default route goes out of (the management or front-end port
  /// an operator reaches the node by), unless `ports` names it. Unset: any.
  std::optional<bool> default_route;
  /// Non-empty: only these interfaces (of those the glob matches); a port named here is
  /// in scope even when IPoIB, with an RDMA device or holding the default route.
  std::vector<std::string> ports;
  /// Only ports of this kind (IPoIB included with a wildcard glob); unset: Ethernet
  /// ports, and IPoIB ones where the glob names them (tuner/plan/builder.h out_of_scope).
  std::optional<LinkKind> link_type;
  std::string group;  // "irq" unless claimed
  SourceLoc loc;
};

/// [nic] rps: each RX queue's rps_cpus. numa_local: the CPUs of the NIC's NUMA node,
/// only where the NIC has fewer RX queues than that node has cores; off: none.
enum class RpsPolicy { numa_local, off };
/// [nic] xps: each TX queue's xps_cpus. follow_irq: the CPUs of the IRQ that serves the
/// queue, as this plan places it (else as it is now); off: none.
enum class XpsPolicy { follow_irq, off };

struct NicRule {
  std::string glob;
  bool speed_max = false;              // speed = "max"
  std::optional<uint32_t> speed_mbps;  // speed = 25000
  std::optional<Duplex> duplex;        // full or half
  std::optional<bool> autoneg;
  std::optional<uint32_t> mtu;                                 // bytes, 1280 to 65536 (nic:IF:mtu)
  std::optional<uint32_t> combined, rx_channels, tx_channels;  // channels
  bool combined_local_cores = false;  // combined = "local-cores": the NIC node's physical cores
  /// accept_filter_loss = true: change channels even on a driver that deletes the
  /// port's ntuple filters and RSS contexts when they change (bnxt_en), which rollback
  /// cannot recreate; otherwise such a port keeps its channels (tuner/plan/nic.cc).
  bool accept_filter_loss = false;
  std::optional<uint32_t> rx_ring, tx_ring;  // rings; 0 = "max"
  bool rx_ring_max = false, tx_ring_max = false;
  /// Value searches of the ring sizes: the candidates, the first also in rx_ring/tx_ring.
  std::vector<uint32_t> rx_ring_search, tx_ring_search;
  /// coalesce = { rx_usecs, tx_usecs, rx_frames, tx_frames, adaptive_rx, adaptive_tx }:
  /// the fields given (nic:IF:coalesce).
  std::optional<Coalesce> coalesce;
  /// A value search of one coalesce field ("rx_usecs", ..., "adaptive_rx"): its
  /// candidates as text ("8", "true"), the first also in `coalesce`.
  std::string coalesce_search_field;
  std::vector<std::string> coalesce_search;
  std::optional<RpsPolicy> rps;  // rps = "numa-local" | "off"
  std::optional<XpsPolicy> xps;  // xps = "follow-irq" | "off"
  /// rfs = N: Receive Flow Steering with a socket flow table of N entries
  /// (net.core.rps_sock_flow_entries, raised to it at least) shared out among the RX
  /// queues' tables (rps_flow_cnt); 0: rfs = "off", every queue's table removed.
  std::optional<uint32_t> rfs;
  /// Only NICs whose link runs at least this fast (Mb/s); unset: any speed.
  std::optional<uint32_t> min_speed_mbps;
  std::optional<bool> rdma;             // as IrqRule::rdma
  std::optional<bool> default_route;    // as IrqRule::default_route
  std::vector<std::string> ports;       // as IrqRule::ports
  std::optional<LinkKind> link_type;    // as IrqRule::link_type
  SourceLoc rps_loc, xps_loc, rfs_loc;  // where each was written
  std::string group;                    // "nic" unless claimed
  SourceLoc loc;
};

struct NumaBind {
  std::optional<std::string> unit;    // systemd unit: "trainer.service"
  std::optional<std::string> cgroup;  // cgroup v2 path under /sys/fs/cgroup
  std::optional<std::string> near;    // netdev, PCI address, or "gpuN"
  std::optional<unsigned> node;       // explicit node
  std::string group;                  // "numa" unless claimed
  SourceLoc loc;
};

/// One setting of [cpu] or [mm]: its value and group, and where it was written.
struct TableSetting {
  std::string value;  // checked text: a word, or a resume latency's canonical form
  std::string group;  // the table's 'group' ("cpu", "mm") unless a [group.*] claims it
  SourceLoc loc;
  std::vector<std::string> search;  // a value search's candidates, the first in value
};

/// [cpu]: cpufreq policies' governor and energy preference, and each CPU's PM QoS
/// resume latency. Includes merge it key by key, as [sysctl].
struct CpuTable {
  std::optional<TableSetting> governor;        // cpu:policyN:governor
  std::optional<TableSetting> epp;             // cpu:policyN:epp
  std::optional<TableSetting> resume_latency;  // cpu:N:resume_latency: "0".., or "n/a"
  std::optional<CpuSet> cpus;                  // only these CPUs, and the policies covering them
  SourceLoc cpus_loc;
};

/// [mm]: transparent hugepages. Includes merge it key by key.
struct MmTable {
  std::optional<TableSetting> thp;         // mm:thp
  std::optional<TableSetting> thp_defrag;  // mm:thp_defrag
  /// Not a knob: the most dirty page cache [sysctl] vm.dirty_ratio may amount to. Where
  /// the ratio of this node's memory is more, the planner sets the byte limits instead,
  /// never below the kernel's own 20% / 10% (tuner/plan/sysctl_writeback.cc).
  std::optional<uint64_t> dirty_max_bytes;
  SourceLoc dirty_max_loc;
};

struct Match {
  std::optional<std::string> numa_nodes;  // ">=2", "1", "<=4"
  std::optional<std::string> cpu_vendor;  // "GenuineIntel", "AuthenticAMD"
  std::optional<std::string> nic_driver;  // glob: "mlx5*"
  std::optional<bool> gpu;
  std::optional<bool> virtualized;
};

/// A [bench.NAME] table: a benchmark the verify loop can run, configured. The built-in
/// kinds' names (kAllBenchKinds) need no table: their defaults are used.
struct BenchSpec {
  enum class Kind {
    exec,
    tcp,
    membw,
    latency,
    count_,  // not a kind: how many there are (keep last; kAllBenchKinds)
  };
  std::string name;
  Kind kind = Kind::exec;
  bench::ExecConfig exec;         // kind exec
  bench::TcpConfig tcp;           // kind tcp
  bench::MembwOptions membw;      // kind membw
  bench::LatencyOptions latency;  // kind latency
  SourceLoc loc;
};

/// One row per benchmark kind: the one list a new kind is added to. The profile's
/// kind = "...", the names `tuner bench`, `--bench` and [verify] bench take without a
/// table, verify's lookup, and the messages and help that list them read it
/// (CONTRIBUTING.md, "A benchmark kind").
struct BenchKindInfo {
  BenchSpec::Kind kind;
  /// kind = "NAME" in a [bench.*] table; a built-in kind's benchmark has this name too.
  std::string_view name;
  /// Runs by its name with default options, without a [bench.NAME] table (exec needs
  /// its command).
  bool builtin;
};

inline constexpr std::array<BenchKindInfo, static_cast<std::size_t>(BenchSpec::Kind::count_)>
    kAllBenchKinds = {{
        {BenchSpec::Kind::exec, "exec", false},
        {BenchSpec::Kind::tcp, "tcp", true},
        {BenchSpec::Kind::membw, "membw", true},
        {BenchSpec::Kind::latency, "latency", true},
    }};

/// The row of a kind's name, or nullptr.
const BenchKindInfo* find_bench_kind(std::string_view name);
/// The built-in benchmark names, usable without a [bench.NAME] table.
const std::vector<std::string>& builtin_bench_names();
/// The built-in names joined by sep: "tcp, membw, latency".
std::string builtin_bench_list(std::string_view sep = ", ");
/// Every kind as a profile writes it: "\"exec\", \"tcp\", \"membw\" or \"latency\"".
std::string bench_kind_choices();

struct Guard {
  std::string metric;       // "tcp_retrans_pct", "nic_drops", "link_flaps"
  double max_increase = 0;  // absolute increase allowed
};

struct VerifySettings {
  std::vector<std::string> bench;  // benchmark names
  SourceLoc bench_loc;             // where bench was written (for unknown names)
  double min_effect = 0.02;        // relative improvement needed to keep
  double false_keep_rate = 0.05;
  unsigned max_trials = 40;  // per arm and group, 5..1000
  std::vector<Guard> guards;
  bool bisect = false;  // bisect a rejected group (each group may override)
  /// A watching benchmark must be shown to lose less than this to allow a keep;
  /// unset: min_effect.
  std::optional<double> watch_margin;
  /// Guard soak windows for groups no benchmark measures (each group may override);
  /// 0: none.
  std::chrono::milliseconds soak{30'000};
  /// The verify loop's time for a run of this profile when `apply --budget` is not
  /// given (the plan shows what each group can take); unset: kDefaultVerifyBudget
  /// (tuner/plan/plan.h).
  std::optional<std::chrono::milliseconds> budget;
  /// The fields a profile set explicitly ("bench", "min_effect", "false_keep_rate",
  /// "max_trials", "guards", "bisect", "soak", "watch_margin", "budget"): only those
  /// override a parent's on include or merge.
  std::vector<std::string> set_fields;
};

/// A `members` entry of a [group.*]: a setting id it claims, and where it was written.
struct GroupMember {
  /// "sysctl:KEY", "irq:GLOB", "nic:GLOB", "numa:unit:U", "numa:cgroup:P", "cpu:governor",
  /// "cpu:epp", "cpu:resume_latency", "mm:thp", "mm:thp_defrag"
  std::string id;
  SourceLoc loc;
};

struct GroupSettings {
  std::string name;
  bool keep_if_neutral = false;
  std::optional<bool> bisect;                     // overrides [verify].bisect for this group
  std::optional<std::chrono::milliseconds> soak;  // overrides [verify].soak
  /// Overrides [verify].bench for this group when set; `bench = []` says no benchmark
  /// on any node can measure it ("not measurable": kept only with keep_if_neutral).
  std::optional<std::vector<std::string>> bench;
  std::vector<GroupMember> members;  // already applied: the settings' .group says it
  /// `peer = true`: loopback cannot see this group (IRQs, channels, rings, link modes):
  /// its tcp benchmarks run against the peer `apply --peer ADDR` names; without one the
  /// group falls back to the guard soak (docs/fleet-decisions.md "Peers").
  bool peer = false;
  /// `chosen = true`: kept as the profile chose it. Nothing on a node measures what the
  /// group gains or costs (CPU time, power, memory pressure), so it has no benchmark and
  /// is soaked like a `bench = []` group (a guard trip still rolls it back), and the plan
  /// says "kept as chosen" rather than "unless it proves harm".
  bool chosen = false;
  SourceLoc loc;
  /// The fields a [group.NAME] table wrote ("keep_if_neutral", "bisect", "bench", "soak",
  /// "peer", "chosen"): on
  /// include or merge only those override the parent's, and members accumulate.
  std::vector<std::string> set_fields;
};

struct Profile {
  std::string name;
  std::string description;
  std::string file;                // the file it was loaded from
  std::vector<std::string> chain;  // names loaded, parents first, this last
  /// "fnv1a64:" + 16 hex digits over the text of every file loaded, in load order (a
  /// merge: over its profiles' digests): a class decision is reused only with the same
  /// profiles, byte for byte (docs/fleet-decisions.md). Empty for a profile not loaded
  /// from files.
  std::string digest;
  Match match;
  std::vector<SysctlSetting> sysctls;  // one per key, later files win
  std::vector<IrqRule> irqs;           // one per glob
  std::vector<NicRule> nics;           // one per glob
  std::vector<NumaBind> binds;
  CpuTable cpu;
  MmTable mm;
  VerifySettings verify;
  std::map<std::string, BenchSpec> benches;  // [bench.NAME], by name; includes merge by name
  std::map<std::string, GroupSettings> groups;
  SourceLoc match_loc;  // where [match] was written (for messages)
};

/// Every benchmark [verify] and the groups name is built in or has a [bench.NAME]
/// table (after includes are merged: a parent may define it).
Status check_bench_names(const Profile& p);

/// The directories searched for profile names, in order: the configured ones
/// (--profile-path) if any, else /etc/tuner/profiles, the installed data directory
/// (CMAKE_INSTALL_FULL_DATADIR/tuner/profiles) and, for a binary running from its build
/// tree (base/file_trust.h build_tree_owner), the source tree's profiles/. Only
/// directories that exist are returned.
std::vector<std::string> profile_search_path(const std::vector<std::string>& configured);

/// True for a profile name ([A-Za-z0-9_-]+); anything else (a '/', a .toml suffix) is
/// taken as a path.
bool is_profile_name(std::string_view s);

/// Loads a profile by name (searched in path) or by path to a .toml file, with its
/// includes. Errors name file:line:col. As root, a profile or included file that
/// another user could have written (it, or a directory above it) is refused, naming
/// the path and its owner (base/file_trust.h).
Result<Profile> load_profile(const std::string& name_or_path,
                             const std::vector<std::string>& search_path);

/// Merges several profiles given with repeated --profile: later ones win.
Profile merge_profiles(const std::vector<Profile>& profiles);

}  // namespace tuner
