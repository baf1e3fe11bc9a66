// Host text parsers: kernel command line, /proc/cpuinfo, NVIDIA version, hypervisor names.
#include "probes/host.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "base/strings.h"

namespace tuner {

namespace {

/// Kernel command-line words: blanks separate, double quotes group, "--" ends.
std::vector<std::string> cmdline_words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, have = false;
  for (char c : s) {
    if (c == '"') {
      quoted = !quoted;
      have = true;
    } else if (!quoted && (c == ' ' || c == '\t' || c == '\n')) {
      if (have) {
        if (cur == "--") return out;
        out.push_back(std::move(cur));
      }
      cur.clear();
      have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have && cur != "--") out.push_back(std::move(cur));
  return out;
}

/// "managed_irq,domain,2-5" -> "2-5"; "1,3-5" -> "1,3-5".
std::string_view strip_isolcpus_flags(std::string_view v) {
  while (!v.empty() && ((v[0] >= 'a' && v[0] <= 'z') || v[0] == '_')) {
    std::size_t comma = v.find(',');
    v = comma == std::string_view::npos ? std::string_view() : v.substr(comma + 1);
  }
  return v;
}

/// "key : value" lines of one cpuinfo block; first occurrence wins per processor.
std::string_view field(std::string_view line, std::string_view key) {
  std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || trim(line.substr(0, colon)) != key) return {};
  return trim(line.substr(colon + 1));
}

std::string arm_vendor(std::string_view code) {
  static const std::map<std::string, std::string, std::less<>> names = {
      {"0x41", "ARM"},       {"0x42", "Broadcom"},  {"0x43", "Cavium"}, {"0x46", "Fujitsu"},
      {"0x48", "HiSilicon"}, {"0x4e", "NVIDIA"},    {"0x50", "APM"},    {"0x51", "Qualcomm"},
      {"0x61", "Apple"},     {"0x6d", "Microsoft"}, {"0xc0", "Ampere"}};
  auto it = names.find(code);
  return it == names.end() ? std::string(code) : it->second;
}

std::string arm_part(std::string_view implementer, std::string_view part) {
  // arch/arm64/include/asm/cputype.h
  static const std::map<std::string, std::string, std::less<>> arm = {
      {"0xd03", "Cortex-A53"},  {"0xd07", "Cortex-A57"},  {"0xd08", "Cortex-A72"},
      {"0xd0b", "Cortex-A76"},  {"0xd0c", "Neoverse-N1"}, {"0xd40", "Neoverse-V1"},
      {"0xd49", "Neoverse-N2"}, {"0xd4f", "Neoverse-V2"}, {"0xd80", "Cortex-A520"},
      {"0xd81", "Cortex-A720"}, {"0xd84", "Neoverse-V3"}, {"0xd85", "Cortex-X925"},
      {"0xd87", "Cortex-A725"}, {"0xd8e", "Neoverse-N3"}};
  if (implementer == "0x41")
    if (auto it = arm.find(part); it != arm.end()) return it->second;
  return "part " + std::string(part);
}

}  // namespace

void parse_cmdline(std::string_view cmdline, Host& host) {
  for (const std::string& w : cmdline_words(cmdline)) {
    std::string_view word = w;
    if (starts_with(word, "isolcpus=")) {
      if (auto set = CpuSet::parse(strip_isolcpus_flags(word.substr(9))); set.ok())
        host.isolcpus = host.isolcpus.unite(*set);
    } else if (starts_with(word, "nohz_full=")) {
      if (auto set = CpuSet::parse(word.substr(10)); set.ok()) host.nohz_full = *set;
    }
  }
}

void parse_cpuinfo(std::string_view cpuinfo, Host& host) {
  std::string implementer;
  std::vector<std::string> parts;
  bool saw_flags = false, hypervisor = false;
  for (std::string_view line : split(cpuinfo, '\n')) {
    if (auto v = field(line, "model name"); !v.empty() && !host.cpu_model)
      host.cpu_model = normalize_ws(v);
    if (auto v = field(line, "vendor_id"); !v.empty() && !host.cpu_vendor)
      host.cpu_vendor = std::string(v);
    if (auto v = field(line, "microcode"); !v.empty() && !host.microcode)
      host.microcode = std::string(v);
    if (auto v = field(line, "flags"); !v.empty() && !saw_flags) {
      saw_flags = true;
      for (std::string_view f : split_ws(v)) hypervisor |= f == "hypervisor";
    }
    if (auto v = field(line, "CPU implementer"); !v.empty() && implementer.empty())
      implementer = std::string(v);
    if (auto v = field(line, "CPU part"); !v.empty())
      if (std::find(parts.begin(), parts.end(), v) == parts.end()) parts.emplace_back(v);
  }
  if (!implementer.empty()) {
    if (!host.cpu_vendor) host.cpu_vendor = arm_vendor(implementer);
    if (!host.cpu_model && !parts.empty()) {
      std::string model = arm_vendor(implementer);
      for (std::size_t i = 0; i < parts.size(); ++i)
        model += (i ? " + " : " ") + arm_part(implementer, parts[i]);
      host.cpu_model = model;
    }
  }
  if (saw_flags) host.virtualized = hypervisor;
}

std::optional<std::string> parse_nvidia_version(std::string_view text) {
  for (std::string_view line : split(text, '\n')) {
    if (!starts_with(trim(line), "NVRM version:")) continue;
    std::size_t module = line.find("Module");
    if (module == std::string_view::npos) continue;
    for (std::string_view w : split_ws(line.substr(module))) {
      // "550.54.15", "580.95.05", "535.104.12": digits and dots, at least one dot.
      bool ok = w.find('.') != std::string_view::npos &&
                std::isdigit(static_cast<unsigned char>(w[0])) &&
                std::all_of(w.begin(), w.end(), [](char c) {
                  return c == '.' || std::isdigit(static_cast<unsigned char>(c));
                });
      if (ok) return std::string(w);
    }
  }
  return std::nullopt;
}

std::string hypervisor_from_signature(std::string_view signature) {
  static const std::map<std::string, std::string, std::less<>> names = {
      {"KVMKVMKVM", "KVM"},         {"Microsoft Hv", "Hyper-V"},  {"VMwareVMware", "VMware"},
      {"XenVMMXenVMM", "Xen"},      {"TCGTCGTCGTCG", "QEMU TCG"}, {"bhyve bhyve", "bhyve"},
      {"lrpepyh  vr", "Parallels"}, {"ACRNACRNACRN", "ACRN"},     {"VBoxVBoxVBox", "VirtualBox"}};
  std::string sig(signature.substr(0, signature.find('\0')));
  sig = std::string(trim(sig));
  auto it = names.find(sig);
  return it == names.end() ? sig : it->second;
}

std::optional<std::string> hypervisor_from_dmi(std::string_view sys_vendor,
                                               std::string_view product_name) {
  std::string_view v = trim(sys_vendor), p = trim(product_name);
  if (v == "QEMU") return "QEMU";
  if (p == "KVM" || starts_with(p, "KVM ")) return "KVM";
  if (v == "Microsoft Corporation" && p == "Virtual Machine") return "Hyper-V";
  if (starts_with(v, "VMware")) return "VMware";
  if (v == "innotek GmbH" || p == "VirtualBox") return "VirtualBox";
  if (v == "Xen" || p == "HVM domU") return "Xen";
  if (v == "Google" && p == "Google Compute Engine") return "Google Compute Engine";
  if (v == "Amazon EC2" && p.find(".metal") == std::string_view::npos) return "Amazon EC2 (Nitro)";
  if (starts_with(v, "OpenStack")) return "OpenStack";
  if (starts_with(v, "Parallels")) return "Parallels";
  if (v == "Nutanix" && p == "AHV") return "Nutanix AHV";
  if (v == "Bochs") return "Bochs";
  return std::nullopt;
}

}  // namespace tuner
