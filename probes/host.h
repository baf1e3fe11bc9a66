// Host facts: kernel, CPU model and microcode, BIOS and board (DMI), isolcpus/nohz_full,
// irqbalance, NVIDIA driver.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// Parses isolcpus= and nohz_full= from a kernel command line into host. isolcpus
/// flags ("nohz", "domain", "managed_irq") before the list are skipped:
/// "isolcpus=managed_irq,domain,2-5" gives 2-5. Several isolcpus= add up; a later
/// nohz_full= replaces an earlier one, as in the kernel. Parsing stops at " -- "
/// (what follows belongs to init); double quotes group a value with blanks. A list
/// that is not a cpulist is ignored, as the kernel ignores it.
void parse_cmdline(std::string_view cmdline, Host& host);

/// Fills cpu_model and cpu_vendor from /proc/cpuinfo text and sets virtualized=true
/// when x86 "flags" has "hypervisor" (false when a flags line lacks it; unknown on
/// architectures without the flag). x86: "model name" / "vendor_id". Arm:
/// "CPU implementer" gives the vendor ("ARM", "NVIDIA", "Ampere", ...; else the hex
/// code) and the distinct "CPU part"s name the model ("ARM Cortex-X925 + Cortex-A725";
/// unknown parts as "ARM part 0xd99").
void parse_cpuinfo(std::string_view cpuinfo, Host& host);

/// The driver version from /proc/driver/nvidia/version: "NVRM version: NVIDIA UNIX
/// x86_64 Kernel Module  550.54.15  Tue Mar ..." -> "550.54.15" (open and proprietary
/// modules, any architecture). nullopt when there is no NVRM line with a version.
std::optional<std::string> parse_nvidia_version(std::string_view text);

/// The hypervisor a CPUID 0x40000000 vendor signature names ("KVMKVMKVM" -> "KVM",
/// "Microsoft Hv" -> "Hyper-V", ...), else the signature itself, trimmed.
std::string hypervisor_from_signature(std::string_view signature);

/// The hypervisor DMI names (sys_vendor, product_name), or nullopt for real hardware:
/// "QEMU" -> "QEMU", "Microsoft Corporation" + "Virtual Machine" -> "Hyper-V", ...
std::optional<std::string> hypervisor_from_dmi(std::string_view sys_vendor,
                                               std::string_view product_name);

/// Reads proc/sys/kernel/{osrelease,hostname} (osrelease falls back to proc/version),
/// proc/cpuinfo, proc/cmdline, sys/devices/system/cpu/{isolated,nohz_full} (they win
/// over the command line when they list CPUs: they are what the kernel applied),
/// proc/*/comm for irqbalance (unknown when the root has no process folders),
/// proc/driver/nvidia/version (or sys/module/nvidia/version), the platform (BIOS,
/// system, board) from sys/class/dmi/id, and the hypervisor from sys/hypervisor/type,
/// DMI, and, on the live x86 machine, CPUID leaf 0x40000000; the swap devices from
/// proc/swaps (probes/swap.h).
/// Missing core files (osrelease, hostname, cpuinfo, cmdline) and any unreadable file
/// become `errors` entries (probe "host"); optional ones are silently unknown.
Host probe_host(const Root& root, std::vector<ProbeError>& errors);

/// Whether an irqbalance process runs: proc/PID/comm of every process under the root.
/// nullopt when the root has no process folders (a capture cannot say); an Error when
/// proc cannot be listed. The host probe and the irqbalance:service knob both ask this.
Result<std::optional<bool>> irqbalance_process_running(const Root& root);
/// How many network namespaces other than proc/self's hold a process, from the
/// proc/PID/ns/net links ("net:[4026531840]"); nullopt when none can be read.
std::optional<unsigned> other_net_namespaces(const Root& root);

}  // namespace tuner
