// Test support: NIC vectors of a fake machine, laid out as a real kernel shows them, so
// probe_irqs() reads them exactly as on a server: /proc/interrupts rows in
// show_interrupts()'s format with 6.2+ per-device MSI-X chips ("PCI-MSIX-0000:3b:00.0",
// hwirq = MSI-X index), /proc/irq/N/{smp_affinity_list,effective_affinity_list,node},
// /sys/kernel/irq/N/actions (handler names joined by ','), the PCI function's
// msi_irqs/N under sys/devices with the sys/bus/pci/devices link to it, and each netdev
// under the function's net/ (virtio-net: under its virtioN child) with its
// sys/class/net link, device link and ifindex. With hwirq_files(), also
// /sys/kernel/irq/N/hwirq as Linux 6.1's PCI-MSI domain numbers it (the requester id
// above the MSI index), and unbind()/bind() renumber a function's vectors as a driver
// unbind and bind does.
#pragma once

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/strings.h"
#include "tests/support/temp_dir.h"

namespace tuner::testing {

/// One PCI function and the action names of its MSI-X vectors, in vector order. A
/// vector with several handlers (a shared line) is written "a,b", as actions shows it.
struct FakeFunction {
  FakeFunction(std::string address, std::vector<std::string> names,
               std::vector<std::string> vector_names, std::optional<unsigned> virtio_dev = {})
      : pci(std::move(address)),
        netdevs(std::move(names)),
        vectors(std::move(vector_names)),
        virtio(virtio_dev) {}
  std::string pci;                   // "0000:3b:00.0"
  std::vector<std::string> netdevs;  // under BDF/net/, or BDF/virtioN/net/ with `virtio`
  std::vector<std::string> vectors;
  std::optional<unsigned> virtio;  // virtio-net: the netdev hangs off virtioN
  int numa_node = 0;
};

class FakeNicIrqs {
 public:
  FakeNicIrqs(const TempDir& dir, unsigned cpus) : dir_(dir), cpus_(cpus) {}

  /// Writes the function with its vectors numbered from first_irq; returns the IRQ
  /// number of each vector. The /proc/interrupts rows go out with write_interrupts().
  std::vector<unsigned> add(const FakeFunction& fn, unsigned first_irq) {
    const std::string dev = "sys/devices/pci0000:00/0000:00:02.0/" + fn.pci;
    dir_.write(dev + "/numa_node", std::to_string(fn.numa_node) + "\n");
    link("sys/bus/pci/devices/" + fn.pci, "../../../devices/pci0000:00/0000:00:02.0/" + fn.pci);
    std::string parent = dev;
    if (fn.virtio) parent += "/virtio" + std::to_string(*fn.virtio);
    for (const std::string& n : fn.netdevs) {
      dir_.write(parent + "/net/" + n + "/ifindex", std::to_string(next_ifindex_++) + "\n");
      link(parent + "/net/" + n + "/device", "../../../" + parent.substr(parent.rfind('/') + 1));
      link("sys/class/net/" + n, "../../" + parent.substr(4) + "/net/" + n);
    }
    return bind(fn, first_irq);
  }

  /// (Re)writes the function's vectors numbered from first_irq, as a driver's probe
  /// allocates them; returns the IRQ number of each vector.
  std::vector<unsigned> bind(const FakeFunction& fn, unsigned first_irq) {
    const std::string dev = "sys/devices/pci0000:00/0000:00:02.0/" + fn.pci;
    std::vector<unsigned> numbers;
    for (std::size_t i = 0; i < fn.vectors.size(); ++i) {
      unsigned irq = first_irq + static_cast<unsigned>(i);
      numbers.push_back(irq);
      dir_.write(dev + "/msi_irqs/" + std::to_string(irq), "msix\n");
      const std::string proc = "proc/irq/" + std::to_string(irq) + "/";
      dir_.write(proc + "smp_affinity_list", "0-" + std::to_string(cpus_ - 1) + "\n");
      dir_.write(proc + "effective_affinity_list", std::to_string(irq % cpus_) + "\n");
      dir_.write(proc + "node", std::to_string(fn.numa_node) + "\n");
      dir_.write("sys/kernel/irq/" + std::to_string(irq) + "/actions", fn.vectors[i] + "\n");
      if (hwirq_files_)
        dir_.write("sys/kernel/irq/" + std::to_string(irq) + "/hwirq",
                   std::to_string(requester_id(fn.pci) << 11 | i) + "\n");
      rows_.push_back(row(irq, "PCI-MSIX-" + fn.pci, static_cast<unsigned>(i), fn.vectors[i]));
    }
    return numbers;
  }

  /// Frees the function's vectors (numbers as bind returned them), as a driver unbind
  /// does: its msi_irqs and each IRQ's proc and sysfs folders go.
  void unbind(const FakeFunction& fn, const std::vector<unsigned>& numbers) {
    std::filesystem::remove_all(dir_ /
                                ("sys/devices/pci0000:00/0000:00:02.0/" + fn.pci + "/msi_irqs"));
    for (unsigned irq : numbers) {
      std::filesystem::remove_all(dir_ / ("proc/irq/" + std::to_string(irq)));
      std::filesystem::remove_all(dir_ / ("sys/kernel/irq/" + std::to_string(irq)));
      std::erase_if(
          rows_, [&](const std::string& r) { return std::stoul(r.substr(0, r.find(':'))) == irq; });
    }
  }

  void hwirq_files(bool on) { hwirq_files_ = on; }

  /// Writes proc/interrupts: the header, a timer line, and every vector added so far.
  void write_interrupts() const {
    std::string text(11, ' ');
    for (unsigned c = 0; c < cpus_; ++c) {
      char col[16];
      std::snprintf(col, sizeof col, "CPU%-8u", c);
      text += col;
    }
    text += "\n" + row(0, "IO-APIC", 2, "timer");
    dir_.write("proc/irq/0/smp_affinity_list", "0-" + std::to_string(cpus_ - 1) + "\n");
    for (const std::string& r : rows_) text += r;
    dir_.write("proc/interrupts", text);
  }

 private:
  void link(const std::string& rel, const std::string& target) const {
    std::filesystem::path p(dir_ / rel);
    std::filesystem::create_directories(p.parent_path());
    std::filesystem::create_symlink(target, p);
  }

  /// "%*d: ", "%10u " per CPU, chip, " %*lu" hwirq, "-%-8s" flow, "  " and the
  /// handler names joined by ", " (kernel/irq/proc.c).
  std::string row(unsigned irq, const std::string& chip, unsigned hwirq,
                  const std::string& actions) const {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%3u: ", irq);
    std::string s = buf;
    for (unsigned c = 0; c < cpus_; ++c) {
      std::snprintf(buf, sizeof buf, "%10u ", c == irq % cpus_ ? 1000 + irq : 0);
      s += buf;
    }
    std::snprintf(buf, sizeof buf, " %3u-%-8s", hwirq, "edge");
    std::string names;
    for (std::string_view n : split(actions, ','))
      names += (names.empty() ? "" : ", ") + std::string(n);
    return s + chip + buf + "  " + names + "\n";
  }

  /// bus << 8 | device << 3 | function of "DDDD:BB:DD.F".
  static unsigned long requester_id(const std::string& pci) {
    unsigned long bus = std::stoul(pci.substr(5, 2), nullptr, 16);
    unsigned long slot = std::stoul(pci.substr(8, 2), nullptr, 16);
    unsigned long fn = std::stoul(pci.substr(11, 1), nullptr, 16);
    return bus << 8 | slot << 3 | fn;
  }

  const TempDir& dir_;
  unsigned cpus_;
  bool hwirq_files_ = false;
  unsigned next_ifindex_ = 2;
  std::vector<std::string> rows_;
};

}  // namespace tuner::testing
