#include "probes/irq.h"
#include "probes/irq_names.h"

#include <doctest/doctest.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "base/strings.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

using namespace tuner;

namespace {

using testing::read_text;
std::string data(const std::string& rel) { return testing::read_test_data("irq/" + rel); }
const char kR910[] = "40intel64-2g2n4c+pci.tar.bz2";

const Irq* find(const std::vector<Irq>& irqs, unsigned n) {
  for (const Irq& i : irqs)
    if (i.number == n) return &i;
  return nullptr;
}

}  // namespace

TEST_CASE("irq: parses this machine's captured /proc/interrupts") {
  auto irqs = parse_interrupts(data("captured/firecracker-2cpu-6.18.interrupts"));
  REQUIRE(irqs.ok());
  REQUIRE(irqs->size() == 19);  // 24-26, 28-43; NMI, LOC, ... skipped
  const Irq* ttys = find(*irqs, 26);
  REQUIRE(ttys);
  CHECK(ttys->chip == "IO-APIC");
  CHECK(ttys->hwirq == "4-edge");
  CHECK(ttys->name == "ttyS0");
  CHECK(ttys->per_cpu == std::vector<uint64_t>{0, 14});
  const Irq* in = find(*irqs, 38);
  REQUIRE(in);
  CHECK(in->chip == "PCI-MSIX-0000:00:03.0");
  CHECK(in->hwirq == "1-edge");
  CHECK(in->name == "virtio2-input.0");
  CHECK(find(*irqs, 27) == nullptr);
}

TEST_CASE("irq: mlx5 on a 2-socket 32-CPU host (6.1 format)") {
  auto irqs = parse_interrupts(data("reconstructed/mlx5-2s32c-6.1.interrupts"));
  REQUIRE(irqs.ok());
  unsigned comps = 0;
  for (const Irq& i : *irqs) {
    CHECK(i.per_cpu.size() == 32);
    if (i.name.find("mlx5_comp") == 0) {
      ++comps;
      CHECK(i.chip == "IR-PCI-MSI");
      auto role = classify_vector(i.name, {"eth0"}, summarize_vectors({i.name, "mlx5_comp0"}));
      CHECK(role.kind == IrqKind::queue);
    }
  }
  CHECK(comps == 64);
  const Irq* c3 = nullptr;
  for (const Irq& i : *irqs)
    if (i.name == "mlx5_comp3@pci:0000:3b:00.0") c3 = &i;
  REQUIRE(c3);
  CHECK(c3->hwirq == "30932996-edge");  // 0x3b00 << 11 | 4
  CHECK(c3->per_cpu[3] == 500051);
  const Irq* usb = find(*irqs, 16);
  REQUIRE(usb);
  CHECK(usb->name == "ehci_hcd:usb1, i801_smbus");
  CHECK(usb->hwirq == "16-fasteoi");
  CHECK(find(*irqs, 18)->name == "");  // no action registered
}

TEST_CASE("irq: ixgbe and i40e queue names") {
  auto irqs = parse_interrupts(data("reconstructed/ixgbe-i40e-16c-6.1.interrupts"));
  REQUIRE(irqs.ok());
  std::map<std::string, unsigned> queues;
  for (const Irq& i : *irqs) {
    auto role = classify_vector(i.name, {"eth0", "ens2f0"}, {});
    if (role.kind == IrqKind::queue)
      ++queues[*role.netdev + ":" + std::to_string(*role.queue_index)];
  }
  CHECK(queues.size() == 32);
  CHECK(queues.count("eth0:15") == 1);
  CHECK(queues.count("ens2f0:0") == 1);
}

TEST_CASE("irq: virtio-net multi-queue guest") {
  auto irqs = parse_interrupts(data("reconstructed/virtio-net-4c-6.1.interrupts"));
  REQUIRE(irqs.ok());
  std::vector<std::string> q;
  for (const Irq& i : *irqs)
    if (starts_with(i.name, "virtio1-"))
      if (auto role = classify_vector(i.name, {"eth0"}, {}); role.label) q.push_back(*role.label);
  CHECK(q == std::vector<std::string>{"input.0", "output.0", "input.1", "output.1", "input.2",
                                      "output.2", "input.3", "output.3"});
  CHECK(find(*irqs, 24)->hwirq == "49152-edge");
}

TEST_CASE("irq: offline CPUs leave gaps in the header; per_cpu is by column") {
  std::string text = data("reconstructed/offline-cpus-6.1.interrupts");
  auto cpus = parse_interrupts_cpus(text);
  REQUIRE(cpus.ok());
  CHECK(*cpus == std::vector<unsigned>{0, 1, 4, 5, 6, 7});
  auto irqs = parse_interrupts(text);
  REQUIRE(irqs.ok());
  const Irq* q2 = find(*irqs, 42);
  REQUIRE(q2);
  CHECK(q2->per_cpu.size() == 6);
  CHECK(q2->per_cpu[2] == 102);  // column 2 is CPU4
}

TEST_CASE("irq: old kernels (no hwirq column) and arm64 Level/Edge columns") {
  auto old = parse_interrupts(data("reconstructed/old-3.2-4c.interrupts"));
  REQUIRE(old.ok());
  CHECK(find(*old, 77)->chip == "PCI-MSI-edge");
  CHECK(find(*old, 77)->hwirq == "");
  CHECK(find(*old, 77)->name == "eth0-0");
  CHECK(find(*old, 19)->name == "uhci_hcd:usb3, uhci_hcd:usb6");
  auto arm = parse_interrupts(data("reconstructed/arm64-gicv3-4c-6.1.interrupts"));
  REQUIRE(arm.ok());
  CHECK(arm->size() == 7);  // IPI0 and Err skipped
  CHECK(find(*arm, 11)->chip == "GICv3");
  CHECK(find(*arm, 11)->hwirq == "27 Level");
  CHECK(find(*arm, 11)->name == "arch_timer");
  CHECK(find(*arm, 31)->hwirq == "524289 Edge");
  CHECK(find(*arm, 31)->name == "mlx5_comp1@pci:0000:01:00.0");
}

TEST_CASE("irq: malformed and truncated text is an error with the line") {
  auto where = [](std::string_view text) {
    auto r = parse_interrupts(text);
    return r.ok() ? std::string("ok") : r.error().where;
  };
  CHECK(where("") == "interrupts:1");
  CHECK(where("     CPU0  CPUx\n") == "interrupts:1");
  CHECK(where("garbage header\n") == "interrupts:1");
  const std::string head = "           CPU0       CPU1\n";
  CHECK(where(head + "  0:         41          0   IO-APIC   2-edge      timer\n" +
              "  1:          9\n") == "interrupts:3");                    // cut mid-row
  CHECK(where(head + "  1:          9          3\n") == "interrupts:2");  // no chip
  CHECK(where(head + "  1:          9        abc   IO-APIC 1-edge i8042\n") == "interrupts:2");
  CHECK(where(head + "  1:  9  3  IO-APIC 1-edge i8042\n  1:  9  3  IO-APIC 1-edge x\n") ==
        "interrupts:3");  // duplicate
  CHECK(where(head + "no colon here\n") == "interrupts:2");
  CHECK(where(head + "99999999999: 1 2 X\n") == "interrupts:2");
  CHECK(where(head + "  1: 99999999999999999999999 2 X\n") == "interrupts:2");
  // Every prefix of a real file either parses or fails cleanly (never crashes).
  std::string real = data("reconstructed/mlx5-2s32c-6.1.interrupts");
  for (std::size_t n = 0; n < real.size(); n += 97) (void)parse_interrupts(real.substr(0, n));
  // ... and so does the file with bytes overwritten (fixed seed: reproducible).
  uint32_t seed = 12345;
  const char alphabet[] = " \t\n:-,0123456789abcCPU\0";
  for (int round = 0; round < 2000; ++round) {
    std::string mutated = real;
    for (int k = 0; k < 4; ++k) {
      seed = seed * 1664525u + 1013904223u;
      mutated[seed % mutated.size()] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
    }
    auto r = parse_interrupts(mutated);
    if (!r.ok()) CHECK(starts_with(r.error().where, "interrupts:"));
  }
  auto msg = parse_interrupts(head + "  1:          9\n");
  REQUIRE_FALSE(msg.ok());
  CHECK(msg.error().message().find("expected 2 per-CPU counts") != std::string::npos);
}

TEST_CASE("irq: probe_irqs maps the R910 overlay's IRQs to eth0-3 and ib0") {
  testing::ScopedFixture fx(kR910, testing::test_data_path("irq/r910"));
  auto root = Root::open(fx.root());
  REQUIRE(root.ok());
  std::vector<ProbeError> errors;
  std::vector<Irq> irqs = probe_irqs(*root, errors);
  for (const ProbeError& e : errors) FAIL_CHECK(e.message);
  std::map<std::string, unsigned> per_dev;
  for (const Irq& i : irqs) {
    CHECK(i.per_cpu.size() == 40);
    CHECK(i.affinity == "0-39");
    REQUIRE(i.effective_affinity.has_value());
    if (!i.device) continue;
    ++per_dev[*i.device];
    if (*i.device == "ib0") {
      CHECK(i.pci == "0000:43:00.0");
      CHECK(i.node == 2);
      CHECK_FALSE(i.queue.has_value());
      continue;
    }
    // bnx2 names vectors "<netdev>-<n>": the name must agree with the PCI map.
    CHECK(starts_with(i.name, *i.device + "-"));
    REQUIRE(i.queue.has_value());
    CHECK(i.name == *i.device + "-" + *i.queue);
    CHECK(i.node == -1);
  }
  CHECK(per_dev == std::map<std::string, unsigned>{
                       {"eth0", 8}, {"eth1", 8}, {"eth2", 8}, {"eth3", 8}, {"ib0", 4}});
  const Irq* e2 = nullptr;
  for (const Irq& i : irqs)
    if (i.name == "eth2-5") e2 = &i;
  REQUIRE(e2);
  CHECK(e2->pci == "0000:03:00.0");
  CHECK(find(irqs, 0)->device == std::nullopt);  // the timer belongs to no NIC
}

TEST_CASE("irq: probe_irqs reports unreadable files and keeps going") {
  testing::ScopedFixture fx(kR910, testing::test_data_path("irq/r910"));
  namespace fs = std::filesystem;
  // Root reads everything, so an unreadable file is a directory where a file should be.
  fs::remove(fx.root() + "/proc/irq/70/smp_affinity_list");
  fs::create_directory(fx.root() + "/proc/irq/70/smp_affinity_list");
  fs::remove(fx.root() + "/proc/irq/71/effective_affinity_list");  // pre-4.13: fine
  testing::write_file(fx.root() + "/proc/irq/72/node", "banana\n");
  auto root = Root::open(fx.root());
  REQUIRE(root.ok());
  std::vector<ProbeError> errors;
  std::vector<Irq> irqs = probe_irqs(*root, errors);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].probe == "irq");
  CHECK(errors[0].message.find("proc/irq/70/smp_affinity_list") != std::string::npos);
  CHECK(errors[1].message.find("proc/irq/72/node") != std::string::npos);
  CHECK_FALSE(find(irqs, 70)->affinity.has_value());
  CHECK(find(irqs, 70)->device == "eth0");
  CHECK_FALSE(find(irqs, 71)->effective_affinity.has_value());
  CHECK(find(irqs, 73)->affinity == "0-39");
}

TEST_CASE("irq: probe_irqs names a file it may not read (as a non-root user)") {
  if (::geteuid() == 0) return;  // root reads mode-000 files; the case above covers it
  testing::ScopedFixture fx(kR910, testing::test_data_path("irq/r910"));
  ::chmod((fx.root() + "/proc/irq/65/node").c_str(), 0);
  std::vector<ProbeError> errors;
  std::vector<Irq> irqs = probe_irqs(Root::open(fx.root()).value(), errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message.find("proc/irq/65/node") != std::string::npos);
  CHECK(errors[0].message.find("Permission denied") != std::string::npos);
  CHECK(irqs.size() == 41);
}

TEST_CASE("irq: probe_irqs without /proc/interrupts says so") {
  auto root = Root::open(testing::shared_fixture(kR910));
  REQUIRE(root.ok());
  std::vector<ProbeError> errors;
  CHECK(probe_irqs(*root, errors).empty());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message.find("proc/interrupts") != std::string::npos);
  CHECK(errors[0].message.find("No such file") != std::string::npos);
}

TEST_CASE("irq: live probe invariants") {
  Root root = Root::live();
  std::vector<ProbeError> errors;
  std::vector<Irq> irqs = probe_irqs(root, errors);
  REQUIRE_FALSE(irqs.empty());
  // Every numbered row of /proc/interrupts appears, read here independently.
  std::set<unsigned> listed, probed;
  std::istringstream rows(read_text("/proc/interrupts"));
  for (std::string row; std::getline(rows, row);) {
    auto fields = tuner::split_ws(row);
    if (fields.empty() || fields[0].back() != ':') continue;
    if (auto n = tuner::parse_u64(fields[0].substr(0, fields[0].size() - 1)))
      listed.insert(static_cast<unsigned>(*n));
  }
  for (const Irq& i : irqs) probed.insert(i.number);
  CHECK(probed == listed);
  auto online = tuner::split_ws(
      read_text("/proc/interrupts").substr(0, read_text("/proc/interrupts").find('\n')));
  for (const Irq& i : irqs) {
    CHECK(i.per_cpu.size() == online.size());
    if (i.pci) {
      struct stat st {};
      CHECK(
          ::stat(
              ("/sys/bus/pci/devices/" + *i.pci + "/msi_irqs/" + std::to_string(i.number)).c_str(),
              &st) == 0);
    }
    if (i.device) CHECK(std::filesystem::exists("/sys/class/net/" + *i.device));
  }
  // Every netdev backed by an MSI-capable PCI function has at least one IRQ.
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/net")) {
    std::error_code ec;
    auto dev = std::filesystem::canonical(e.path() / "device", ec);
    if (ec) continue;
    auto pci = dev;
    if (starts_with(pci.filename().string(), "virtio")) pci = pci.parent_path();
    if (!std::filesystem::exists(pci / "msi_irqs")) continue;
    bool found = false;
    for (const Irq& i : irqs) found |= i.device == e.path().filename().string();
    CHECK_MESSAGE(found, e.path().filename().string() << " has no IRQ");
  }
}

TEST_CASE("irq: two netdevs on one PCI function: the name decides, else no device") {
  testing::TempDir r;
  r.write("proc/interrupts",
          "           CPU0       CPU1\n"
          " 40:          1          2  IR-PCI-MSI 1048576-edge      mlx4-async@pci:0000:02:00.0\n"
          " 41:          1          2  IR-PCI-MSI 1048577-edge      eth1-3\n"
          " 42:          1          2  IR-PCI-MSI 1048578-edge      mlx5_comp0@pci:0000:02:00.0\n");
  const std::string dev = "sys/bus/pci/devices/0000:02:00.0";
  for (const char* n : {"40", "41", "42"}) r.write(dev + "/msi_irqs/" + n, "msix\n");
  std::filesystem::create_directories(r / (dev + "/net/eth0"));
  std::filesystem::create_directories(r / (dev + "/net/eth1"));
  std::vector<ProbeError> errors;
  std::vector<Irq> irqs = probe_irqs(Root::open(r.path).value(), errors);
  REQUIRE(irqs.size() == 3);
  CHECK(irqs[0].pci == "0000:02:00.0");
  CHECK_FALSE(irqs[0].device.has_value());
  CHECK(irqs[1].device == "eth1");
  CHECK(irqs[1].queue == "3");
  CHECK_FALSE(irqs[2].device.has_value());  // comp0 serves either port
  CHECK(irqs[2].queue == "comp0");
  CHECK(errors.size() == 3);  // no proc/irq/N/smp_affinity_list in this tree
}
