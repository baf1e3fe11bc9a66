// Each variable is read as its owner reads it:
//  - NVIDIA_VISIBLE_DEVICES by the NVIDIA container runtime: libnvidia-container
//    src/cli/common.c, select_devices() (extra commas skipped, "all" anywhere selects
//    every GPU and ends the list, a GPU selected twice counted once; an entry is a whole
//    GPU UUID, any case, a PCI bus id, an NVML index, or a MIG device "MIG-..." or
//    "GPU:INSTANCE"), and the container toolkit's "GPU Enumeration" ("none": no GPU;
//    "void", empty or unset: no GPU through this variable). It mounts the selected GPUs'
//    device nodes (and, in legacy mode, only their proc/driver/nvidia/gpus entries);
//    the order of the list does not survive that, so inside the driver numbers them in
//    PCI order. The CDI specs nvidia-ctk writes set NVIDIA_VISIBLE_DEVICES=void in the
//    container while CDI adds the GPUs' device nodes (the GPU Operator's default since
//    v25.10); the device plugin's volume-mounts strategy sets it to a path.
//  - CUDA_VISIBLE_DEVICES by CUDA: the CUDA C Programming Guide, "CUDA Environment
//    Variables" (indexes or UUIDs, a unique UUID prefix is enough; enumeration stops at
//    the first invalid entry).
#include "tuner/plan/visible_gpus.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/plan/near.h"

namespace tuner {

namespace {

constexpr uint16_t kNvidia = 0x10de;
/// No machine has this many GPUs: a longer list is a mistake, not something to walk.
constexpr std::size_t kMaxEntries = 1024;
constexpr const char* kNvidiaVar = "NVIDIA_VISIBLE_DEVICES";
constexpr const char* kCudaVar = "CUDA_VISIBLE_DEVICES";

/// A value as a message shows it: escaped, and cut after 200 bytes.
std::string shown(std::string_view v) {
  constexpr std::size_t kMax = 200;
  return v.size() <= kMax ? escape_controls(v) : escape_controls(v.substr(0, kMax)) + "...";
}

std::string quoted(std::string_view v) { return "'" + shown(v) + "'"; }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string count(std::size_t n, std::string_view what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

Error nvidia_error(std::string what) { return Error::invalid(std::move(what), kNvidiaVar); }
Error cuda_error(std::string what) { return Error::invalid(std::move(what), kCudaVar); }

/// The machine's NVIDIA GPUs in PCI order: what NVML, nvidia-smi and the container
/// runtime number.
std::vector<std::string> machine_gpus(const Inventory& inv) {
  std::vector<std::string> out;
  for (const PciDevice* d : inv.gpus())
    if (d->vendor_id == kNvidia) out.push_back(d->address);
  std::sort(out.begin(), out.end());
  return out;
}

/// Every GPU the NVIDIA driver lists; empty without the driver.
std::vector<NvidiaGpuInfo> driver_gpus(const Root& root) {
  std::vector<NvidiaGpuInfo> out;
  auto dirs = root.list("proc/driver/nvidia/gpus");
  if (!dirs.ok()) return out;
  for (const std::string& dir : *dirs) {
    auto text = root.read("proc/driver/nvidia/gpus/" + dir + "/information");
    if (!text.ok()) continue;
    NvidiaGpuInfo gpu = parse_nvidia_information(*text);
    if (gpu.pci.empty()) gpu.pci = normalize_pci(dir).value_or("");
    if (!gpu.pci.empty()) out.push_back(std::move(gpu));
  }
  return out;
}

/// The GPUs a container was given and how that was found out.
struct Given {
  std::vector<std::string> gpus;  // PCI order
  std::string how;
};

/// NVIDIA_VISIBLE_DEVICES names no GPU list: the GPUs are those whose device node the
/// container has (CDI and the runtime add exactly those; a host has them all).
Result<Given> by_device_nodes(const Root& root, const std::vector<NvidiaGpuInfo>& driver,
                              std::string_view value) {
  std::string said = trim(value).empty() ? "empty" : quoted(value);
  if (driver.empty())
    return Error::missing(
        fmt::format("{} lists no GPUs (CDI gives GPUs its own way), and without the driver's "
                    "proc/driver/nvidia/gpus/*/information the GPUs of this process's device "
                    "nodes cannot be told",
                    said),
        kNvidiaVar);
  std::vector<uint64_t> minors;
  if (auto names = root.list("dev"); names.ok())
    for (const std::string& name : *names)
      if (starts_with(name, "nvidia") && all_digits(std::string_view(name).substr(6)))
        if (auto m = parse_u64(std::string_view(name).substr(6))) minors.push_back(*m);
  Given g;
  for (const NvidiaGpuInfo& d : driver)
    if (d.minor && std::find(minors.begin(), minors.end(), *d.minor) != minors.end())
      g.gpus.push_back(d.pci);
  std::sort(g.gpus.begin(), g.gpus.end());
  g.gpus.erase(std::unique(g.gpus.begin(), g.gpus.end()), g.gpus.end());
  if (g.gpus.empty())
    return nvidia_error(fmt::format("{} lists no GPUs, and no GPU's device node (dev/nvidiaN) is "
                                    "here: this process was given no GPU",
                                    said));
  g.how = fmt::format("NVIDIA_VISIBLE_DEVICES={} (no list: the GPUs whose device nodes are here, "
                      "in PCI order: {})",
                      shown(value), joined(g.gpus));
  return g;
}

/// One entry of a NVIDIA_VISIBLE_DEVICES list: the GPU's PCI address.
Result<std::string> nvidia_entry(const std::vector<std::string>& machine,
                                 const std::vector<NvidiaGpuInfo>& driver, std::string_view e) {
  auto colon = e.find(':');
  bool mig_index = colon != std::string_view::npos && all_digits(e.substr(0, colon)) &&
                   all_digits(e.substr(colon + 1));
  if (istarts_with(e, "MIG-") || mig_index) {
    std::string parent;
    if (auto g = mig_index ? parse_u64(e.substr(0, colon)) : std::nullopt; g && *g < machine.size())
      parent = fmt::format(" of GPU {} (PCI {})", *g, machine[*g]);
    return nvidia_error(quoted(e) + " is a MIG instance" + parent +
                        ": it shares its GPU's PCI device with the GPU's other instances; name "
                        "the GPU by its PCI address");
  }
  if (istarts_with(e, "GPU-")) {
    for (const NvidiaGpuInfo& d : driver)
      if (iequals(d.uuid, e)) return d.pci;
    return nvidia_error(fmt::format("no GPU has UUID {} (the runtime takes whole UUIDs; the "
                                    "driver lists {} in proc/driver/nvidia/gpus)",
                                    quoted(e), count(driver.size(), "GPU")));
  }
  if (all_digits(e)) {
    auto i = parse_u64(e);
    if (i && *i < machine.size()) return machine[*i];
    return nvidia_error(fmt::format("{} is an index past this machine's {}", quoted(e),
                                    count(machine.size(), "NVIDIA GPU")));
  }
  if (auto pci = normalize_pci(e)) {
    if (std::find(machine.begin(), machine.end(), *pci) != machine.end()) return *pci;
    return nvidia_error(fmt::format("{} is not one of this machine's NVIDIA GPUs ({})", quoted(e),
                                    machine.empty() ? "none" : joined(machine)));
  }
  return nvidia_error(quoted(e) +
                      " is not a GPU index, UUID or PCI address (the NVIDIA runtime refuses it)");
}

Result<Given> nvidia_given(const std::vector<std::string>& machine,
                           const std::vector<NvidiaGpuInfo>& driver, const Root& root,
                           std::string_view value) {
  std::string_view v = trim(value);
  if (v == "none") return nvidia_error("'none': the container runtime gave this process no GPU");
  if (v.empty() || v == "void" || starts_with(v, "/")) return by_device_nodes(root, driver, value);
  auto entries = split(v, ',');
  if (entries.size() > kMaxEntries)
    return nvidia_error(
        fmt::format("{} entries: more than the {} tuner reads", entries.size(), kMaxEntries));
  Given g;
  for (std::string_view raw : entries) {
    std::string_view e = trim(raw);
    if (e.empty()) continue;
    if (iequals(e, "all")) {
      g.gpus = machine;
      break;
    }
    auto pci = nvidia_entry(machine, driver, e);
    if (!pci.ok()) return pci.error();
    g.gpus.push_back(*pci);
  }
  std::sort(g.gpus.begin(), g.gpus.end());
  g.gpus.erase(std::unique(g.gpus.begin(), g.gpus.end()), g.gpus.end());
  if (g.gpus.empty()) return nvidia_error(quoted(value) + " lists no GPU");
  g.how = fmt::format("NVIDIA_VISIBLE_DEVICES={} (this container's GPUs, in PCI order: {})",
                      shown(value), joined(g.gpus));
  return g;
}

/// The GPU of one CUDA_VISIBLE_DEVICES entry among `have`.
/// `holder` is "this machine", or "this container" under NVIDIA_VISIBLE_DEVICES.
Result<std::string> cuda_entry(const std::vector<std::string>& have,
                               const std::vector<NvidiaGpuInfo>& driver, std::string_view e,
                               std::size_t k, std::string_view holder) {
  if (starts_with(e, "MIG-"))
    return cuda_error(quoted(e) +
                      " is a MIG instance: it shares its GPU's PCI device; name the GPU (gpuN "
                      "without CUDA_VISIBLE_DEVICES, or its PCI address)");
  if (starts_with(e, "GPU-")) {
    std::vector<std::string> found;
    for (const NvidiaGpuInfo& d : driver)
      if (istarts_with(d.uuid, e) && std::find(have.begin(), have.end(), d.pci) != have.end())
        found.push_back(d.pci);
    if (found.size() == 1) return found.front();
    return cuda_error(
        found.empty() ? fmt::format("no GPU of {} has UUID {} "
                                    "(proc/driver/nvidia/gpus/*/information)",
                                    holder, quoted(e))
                      : fmt::format("{} is the start of {} GPUs' UUIDs", quoted(e), found.size()));
  }
  auto index = all_digits(e) ? parse_u64(e) : std::nullopt;
  if (!index)
    return cuda_error(fmt::format("entry {} {} is neither a GPU index nor a GPU-UUID (CUDA stops "
                                  "at it)",
                                  k, quoted(e)));
  if (*index >= have.size())
    return cuda_error(fmt::format("entry {} names GPU {}, and {} has {}", k, *index, holder,
                                  count(have.size(), "GPU")));
  return have[*index];
}

}  // namespace

NvidiaGpuInfo parse_nvidia_information(std::string_view text) {
  NvidiaGpuInfo out;
  for (std::string_view line : split(text, '\n')) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "GPU UUID") {
      out.uuid = std::string(value);
    } else if (key == "Bus Location") {
      out.pci = normalize_pci(value).value_or("");
    } else if (key == "Device Minor") {
      auto m = all_digits(value) ? parse_u64(value) : std::nullopt;
      if (m && *m <= 0xfffff) out.minor = static_cast<unsigned>(*m);  // a 20-bit minor
    }
  }
  return out;
}

Result<std::optional<VisibleGpu>> visible_gpu(const Inventory& inv, const Root& root,
                                              const VisibleDevices& env, unsigned n) {
  if (!env.nvidia && !env.cuda) return std::optional<VisibleGpu>();
  std::vector<std::string> have = machine_gpus(inv);
  std::vector<NvidiaGpuInfo> driver = driver_gpus(root);
  std::string given_how;
  if (env.nvidia) {
    auto given = nvidia_given(have, driver, root, *env.nvidia);
    if (!given.ok()) return given.error();
    have = std::move(given->gpus);
    given_how = std::move(given->how);
    if (!env.cuda) {
      if (n >= have.size())
        return nvidia_error(
            fmt::format("gpu{} asked, but this container has {}", n, count(have.size(), "GPU")));
      return std::optional<VisibleGpu>(VisibleGpu{have[n], "under " + given_how});
    }
  }
  std::vector<std::string_view> entries;
  for (std::string_view e : split(*env.cuda, ',')) entries.push_back(trim(e));
  if (entries.size() > kMaxEntries)
    return cuda_error(
        fmt::format("{} entries: more than the {} tuner reads", entries.size(), kMaxEntries));
  if (entries.front().empty() || entries.front() == "-1" || entries.front() == "NoDevFiles")
    return cuda_error(quoted(*env.cuda) + " hides every GPU from this process");
  std::vector<std::string> seen;
  for (std::size_t k = 0; k < entries.size() && k <= n; ++k) {
    auto pci =
        cuda_entry(have, driver, entries[k], k, env.nvidia ? "this container" : "this machine");
    if (!pci.ok()) return pci.error();
    if (auto dup = std::find(seen.begin(), seen.end(), *pci); dup != seen.end())
      return cuda_error(
          fmt::format("entries {} and {} name the same GPU (PCI {})", dup - seen.begin(), k, *pci));
    seen.push_back(*pci);
  }
  if (n >= entries.size())
    return cuda_error(fmt::format("gpu{} asked, but {} makes {} visible", n, quoted(*env.cuda),
                                  count(entries.size(), "GPU")));
  std::string how = "under CUDA_VISIBLE_DEVICES=" + shown(*env.cuda);
  if (!given_how.empty()) how += ", an index into the GPUs under " + given_how;
  return std::optional<VisibleGpu>(VisibleGpu{seen[n], how});
}

}  // namespace tuner
