// probe_host: reads the files parse_*() understand, through the Root.

#include <set>

#include "base/strings.h"
#include "probes/cpu_vulnerabilities.h"
#include "probes/host.h"
#include "probes/services.h"
#include "probes/swap.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace tuner {

namespace {

void note(std::vector<ProbeError>& errors, const Error& e) {
  errors.push_back({"host", e.message()});
}

/// A file's trimmed text; errors are noted unless the file is optional and absent.
std::optional<std::string> read_text(const Root& root, const std::string& path, bool optional,
                                     std::vector<ProbeError>& errors) {
  auto text = root.read(path);
  if (!text.ok()) {
    if (!(optional && text.error().err == ENOENT)) note(errors, text.error());
    return std::nullopt;
  }
  return std::string(trim(*text));
}

/// sys/devices/system/cpu/{isolated,nohz_full}: "" or "(null)" when nothing is set.
std::optional<CpuSet> read_sys_cpulist(const Root& root, const std::string& path,
                                       std::vector<ProbeError>& errors) {
  auto text = read_text(root, path, true, errors);
  if (!text || *text == "(null)") return std::nullopt;
  auto set = CpuSet::parse(*text);
  if (!set.ok()) {
    note(errors, Error::invalid("bad cpulist \"" + text->substr(0, 40) + "\"", path));
    return std::nullopt;
  }
  return *set;
}

/// The hypervisor's CPUID vendor signature; only meaningful on the machine we run on.
std::optional<std::string> cpuid_hypervisor() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid(1, a, b, c, d);
  if (!(c & (1u << 31))) return std::nullopt;  // CPUID.1:ECX.hypervisor
  __cpuid(0x40000000, a, b, c, d);
  char sig[13] = {};
  __builtin_memcpy(sig, &b, 4);
  __builtin_memcpy(sig + 4, &c, 4);
  __builtin_memcpy(sig + 8, &d, 4);
  std::string name = hypervisor_from_signature(std::string_view(sig, 12));
  if (!name.empty()) return name;
#endif
  return std::nullopt;
}

}  // namespace

Host probe_host(const Root& root, std::vector<ProbeError>& errors) {
  Host host;
  host.kernel = read_text(root, "proc/sys/kernel/osrelease", true, errors);
  if (!host.kernel) {
    // Captures often lack proc/sys but keep proc/version: "Linux version 6.17.0-... (".
    if (auto version = read_text(root, "proc/version", true, errors)) {
      auto w = split_ws(*version);
      if (w.size() >= 3 && w[0] == "Linux" && w[1] == "version") host.kernel = std::string(w[2]);
    }
    if (!host.kernel)
      note(errors, errno_error("no kernel release (proc/sys/kernel/osrelease, proc/version)",
                               root.dir(), ENOENT));
  }
  host.hostname = read_text(root, "proc/sys/kernel/hostname", false, errors);
  if (auto cpuinfo = read_text(root, "proc/cpuinfo", false, errors)) parse_cpuinfo(*cpuinfo, host);
  host.cmdline = read_text(root, "proc/cmdline", false, errors);
  if (host.cmdline) parse_cmdline(*host.cmdline, host);
  if (auto iso = read_sys_cpulist(root, "sys/devices/system/cpu/isolated", errors);
      iso && !iso->empty())
    host.isolcpus = *iso;
  if (auto nohz = read_sys_cpulist(root, "sys/devices/system/cpu/nohz_full", errors);
      nohz && !nohz->empty())
    host.nohz_full = *nohz;
  host.other_net_namespaces = other_net_namespaces(root);
  // The kernel shows the global net.core.netdev_max_backlog only in the initial network
  // namespace, somaxconn in all: that is the answer wherever /proc/sys shows them. pid
  // 1's link is not: in a container with its own PID namespace pid 1 shares the
  // container's network namespace (issue 41: `balanced` then planned global sysctls
  // that are not there, exit 2), and it may be unreadable (ptrace rules).
  if (root.exists("proc/sys/net/core/somaxconn")) {
    host.initial_net_namespace = root.exists("proc/sys/net/core/netdev_max_backlog");
  } else if (auto self = root.readlink("proc/self/ns/net"); self.ok()) {
    if (auto init = root.readlink("proc/1/ns/net"); init.ok())
      host.initial_net_namespace = *self == *init;
  }
  if (auto irqbalance = irqbalance_process_running(root); irqbalance.ok())
    host.irqbalance_running = *irqbalance;
  else note(errors, irqbalance.error());

  host.cpu_vulnerabilities = probe_cpu_vulnerabilities(root, errors);
  host.swaps = probe_swaps(root, errors);

  if (auto v = read_text(root, "proc/driver/nvidia/version", true, errors))
    host.nvidia_driver = parse_nvidia_version(*v);
  if (!host.nvidia_driver)
    if (auto v = read_text(root, "sys/module/nvidia/version", true, errors); v && !v->empty())
      host.nvidia_driver = *v;

  // DMI strings; empty or the firmware's placeholders mean unknown.
  auto dmi = [&](const char* name) -> std::optional<std::string> {
    auto v = read_text(root, std::string("sys/class/dmi/id/") + name, true, errors);
    if (!v || v->empty() || *v == "To Be Filled By O.E.M." || *v == "Default string")
      return std::nullopt;
    return v;
  };
  host.platform.bios_vendor = dmi("bios_vendor");
  host.platform.bios_version = dmi("bios_version");
  host.platform.bios_date = dmi("bios_date");
  host.platform.system_vendor = dmi("sys_vendor");
  host.platform.system_product = dmi("product_name");
  host.platform.board_vendor = dmi("board_vendor");
  host.platform.board_name = dmi("board_name");

  if (auto type = read_text(root, "sys/hypervisor/type", true, errors); type && !type->empty())
    host.hypervisor = *type == "xen" ? "Xen" : *type;
  if (!host.hypervisor && (host.platform.system_vendor || host.platform.system_product))
    host.hypervisor = hypervisor_from_dmi(host.platform.system_vendor.value_or(""),
                                          host.platform.system_product.value_or(""));
  if (!host.hypervisor && root.is_live()) host.hypervisor = cpuid_hypervisor();
  if (host.hypervisor) host.virtualized = true;
  return host;
}

Result<std::optional<bool>> irqbalance_process_running(const Root& root) {
  return process_running(root, "irqbalance");
}

std::optional<unsigned> other_net_namespaces(const Root& root) {
  auto self = root.readlink("proc/self/ns/net");
  auto pids = root.list("proc");
  if (!self.ok() || !pids.ok()) return std::nullopt;
  std::set<std::string> others;
  for (const std::string& pid : *pids) {
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    // Others' links are unreadable without privilege, and processes exit: skip them.
    auto ns = root.readlink("proc/" + pid + "/ns/net");
    if (ns.ok() && *ns != *self) others.insert(*ns);
  }
  return static_cast<unsigned>(others.size());
}

}  // namespace tuner
