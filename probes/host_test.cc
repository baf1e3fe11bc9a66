#include "probes/host.h"

#include <doctest/doctest.h>
#include <sched.h>
#include <signal.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "base/strings.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

using namespace tuner;

namespace {

using testing::read_text;
std::string host_data(const std::string& rel) { return testing::test_data_path("host/" + rel); }

}  // namespace

TEST_CASE("host: isolcpus and nohz_full from the kernel command line") {
  Host h;
  parse_cmdline("BOOT_IMAGE=/vmlinuz ro isolcpus=managed_irq,domain,2-5 nohz_full=2-5,8 quiet", h);
  CHECK(h.isolcpus.to_string() == "2-5");
  CHECK(h.nohz_full.to_string() == "2-5,8");

  Host plain;
  parse_cmdline("isolcpus=1,3-4", plain);
  CHECK(plain.isolcpus.to_string() == "1,3-4");

  Host twice;  // isolcpus= adds up, nohz_full= is replaced
  parse_cmdline("isolcpus=nohz,2 isolcpus=domain,6-7 nohz_full=1 nohz_full=3", twice);
  CHECK(twice.isolcpus.to_string() == "2,6-7");
  CHECK(twice.nohz_full.to_string() == "3");

  Host after_init;  // words after "--" are init's, not the kernel's
  parse_cmdline("quiet isolcpus=2 -- isolcpus=5 nohz_full=5", after_init);
  CHECK(after_init.isolcpus.to_string() == "2");
  CHECK(after_init.nohz_full.empty());

  Host quoted;
  parse_cmdline("dyndbg=\"file x.c +p\" nohz_full=1-2", quoted);
  CHECK(quoted.nohz_full.to_string() == "1-2");

  Host bad;  // not cpulists: ignored, like the kernel does
  parse_cmdline("isolcpus=domain,x nohz_full=3-1 isolcpus=managed_irq", bad);
  CHECK(bad.isolcpus.empty());
  CHECK(bad.nohz_full.empty());

  Host fc;  // this build VM's own command line has init arguments after "--"
  parse_cmdline(read_text(host_data("captured/firecracker.cmdline")), fc);
  CHECK(fc.isolcpus.empty());
  CHECK(fc.nohz_full.empty());
}

TEST_CASE("host: cpuinfo on x86 (captured) and arm64 (GB10)") {
  Host amd;
  parse_cpuinfo(read_text(host_data("captured/firecracker-amd-2cpu.cpuinfo")), amd);
  CHECK(amd.cpu_vendor == "AuthenticAMD");
  CHECK(amd.cpu_model == "AMD EPYC");
  CHECK(amd.virtualized == true);

  const std::string gb10 = testing::shared_fixture("nvidia-dgx-gb10.tar.bz2");
  Host arm;
  parse_cpuinfo(read_text(gb10 + "/proc/cpuinfo"), arm);
  CHECK(arm.cpu_vendor == "ARM");
  CHECK(arm.cpu_model == "ARM Cortex-A725 + Cortex-X925");
  CHECK_FALSE(arm.virtualized.has_value());  // arm64 has no hypervisor flag

  Host unknown;
  parse_cpuinfo("processor\t: 0\nCPU implementer\t: 0x99\nCPU part\t: 0x001\n", unknown);
  CHECK(unknown.cpu_vendor == "0x99");
  CHECK(unknown.cpu_model == "0x99 part 0x001");
  Host empty;
  parse_cpuinfo("", empty);
  CHECK_FALSE(empty.cpu_model.has_value());
}

TEST_CASE("host: NVIDIA driver version") {
  CHECK(parse_nvidia_version(read_text(host_data("nvidia/version-550-x86_64"))) == "550.54.15");
  CHECK(parse_nvidia_version(read_text(host_data("nvidia/version-580-open-aarch64"))) ==
        "580.95.05");
  CHECK_FALSE(parse_nvidia_version("GCC version:  gcc version 12.2.0\n").has_value());
  CHECK_FALSE(parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n").has_value());
  CHECK_FALSE(parse_nvidia_version("").has_value());
}

TEST_CASE("host: hypervisor names") {
  CHECK(hypervisor_from_signature(std::string_view("KVMKVMKVM\0\0\0", 12)) == "KVM");
  CHECK(hypervisor_from_signature("Microsoft Hv") == "Hyper-V");
  CHECK(hypervisor_from_signature("NewVisor") == "NewVisor");
  CHECK(hypervisor_from_dmi("QEMU\n", "Standard PC (Q35 + ICH9, 2009)\n") == "QEMU");
  CHECK(hypervisor_from_dmi("Microsoft Corporation", "Virtual Machine") == "Hyper-V");
  CHECK(hypervisor_from_dmi("Amazon EC2", "m6i.large") == "Amazon EC2 (Nitro)");
  CHECK_FALSE(hypervisor_from_dmi("Amazon EC2", "c6i.metal").has_value());
  CHECK_FALSE(hypervisor_from_dmi("Dell Inc.", "PowerEdge R910").has_value());
  CHECK_FALSE(hypervisor_from_dmi("NVIDIA", "NVIDIA_DGX_Spark").has_value());
}

TEST_CASE("host: probe_host on a reconstructed KVM GPU guest") {
  auto root = Root::open(host_data("kvm-gpu-root"));
  REQUIRE(root.ok());
  std::vector<ProbeError> errors;
  Host h = probe_host(*root, errors);
  for (const ProbeError& e : errors) FAIL_CHECK(e.message);
  CHECK(h.kernel == "6.1.0-18-amd64");
  CHECK(h.hostname == "gpu-node-07");
  CHECK(h.cpu_vendor == "GenuineIntel");
  CHECK(h.cpu_model == "Intel(R) Xeon(R) Platinum 8480+");
  CHECK(h.hypervisor == "QEMU");
  CHECK(h.virtualized == true);
  CHECK(h.isolcpus.to_string() == "2-7");
  CHECK(h.nohz_full.to_string() == "2-7");
  CHECK(h.irqbalance_running == true);
  CHECK(h.nvidia_driver == "550.54.15");
  REQUIRE(h.cmdline.has_value());
  CHECK(h.cmdline->find("irqaffinity=0-1") != std::string::npos);
}

TEST_CASE("host: an irqbalance process is found by its comm") {
  testing::TempDir tmp;
  tmp.write("proc/self/comm", "irqbalance\n");  // not a pid: not looked at
  tmp.write("proc/cpuinfo", "");
  auto root = Root::open(tmp.path).value();
  CHECK(irqbalance_process_running(root).value() == std::nullopt);  // no processes: unknown
  tmp.write("proc/12/comm", "bash\n");
  CHECK(irqbalance_process_running(root).value() == false);
  tmp.write("proc/345/comm", "irqbalance\n");
  CHECK(irqbalance_process_running(root).value() == true);
  testing::TempDir empty;
  CHECK_FALSE(irqbalance_process_running(Root::open(empty.path).value()).ok());  // no proc
}

TEST_CASE("host: probe_host on captured machines") {
  const std::string r910 = testing::shared_fixture("40intel64-2g2n4c+pci.tar.bz2");
  std::vector<ProbeError> errors;
  Host h = probe_host(Root::open(r910).value(), errors);
  CHECK(h.cpu_model == "Intel(R) Xeon(R) CPU E7- 4870 @ 2.40GHz");  // blanks normalised
  CHECK(h.virtualized == false);
  CHECK_FALSE(h.hypervisor.has_value());
  CHECK_FALSE(h.irqbalance_running.has_value());  // a capture has no processes
  CHECK_FALSE(h.nvidia_driver.has_value());
  // The 2013 capture kept neither proc/sys nor proc/version nor proc/cmdline: each is said.
  std::string all;
  for (const ProbeError& e : errors) all += e.probe + ": " + e.message + "\n";
  CHECK(all.find("no kernel release") != std::string::npos);
  CHECK(all.find("proc/sys/kernel/hostname") != std::string::npos);
  CHECK(all.find("proc/cmdline") != std::string::npos);

  const std::string gb10 = testing::shared_fixture("nvidia-dgx-gb10.tar.bz2");
  errors.clear();
  Host g = probe_host(Root::open(gb10).value(), errors);
  CHECK(g.kernel == "6.17.0-1014-nvidia");  // from proc/version
  CHECK(g.cpu_vendor == "ARM");
  CHECK_FALSE(g.hypervisor.has_value());  // DMI says NVIDIA
  CHECK(g.nohz_full.empty());             // the file reads "(null)"
  CHECK(g.isolcpus.empty());
  REQUIRE(g.cmdline.has_value());
  CHECK(starts_with(*g.cmdline, "BOOT_IMAGE=/boot/vmlinuz-6.17.0-1014-nvidia"));
  CHECK(errors.size() == 1);  // only proc/sys/kernel/hostname is missing
}

TEST_CASE("host: bad sysfs cpulists are reported") {
  testing::ScopedFixture fx("nvidia-dgx-gb10.tar.bz2");
  testing::write_file(fx.root() + "/sys/devices/system/cpu/isolated", "1-x\n");
  std::vector<ProbeError> errors;
  Host h = probe_host(Root::open(fx.root()).value(), errors);
  CHECK(h.isolcpus.empty());
  bool said = false;
  for (const ProbeError& e : errors)
    said |= e.message.find("sys/devices/system/cpu/isolated") != std::string::npos;
  CHECK(said);
}

TEST_CASE("host: other network namespaces are counted from proc/PID/ns/net") {
  testing::TempDir tmp;
  auto link = [&](const std::string& path, const std::string& target) {
    std::filesystem::create_directories(std::filesystem::path(tmp.path + "/" + path).parent_path());
    std::filesystem::create_symlink(target, tmp.path + "/" + path);
  };
  auto root = Root::open(tmp.path).value();
  CHECK_FALSE(other_net_namespaces(root).has_value());  // a capture without proc/self
  link("proc/self/ns/net", "net:[4026531840]");
  link("proc/12/ns/net", "net:[4026531840]");
  CHECK(other_net_namespaces(root) == 0u);
  link("proc/13/ns/net", "net:[4026532301]");
  link("proc/14/ns/net", "net:[4026532301]");  // two processes, one namespace
  link("proc/15/ns/net", "net:[4026532412]");
  tmp.write("proc/16/comm", "no ns link: skipped\n");
  CHECK(other_net_namespaces(root) == 2u);
}

TEST_CASE("host: the initial network namespace is told by its global sysctls, not by pid 1") {
  testing::TempDir tmp;
  auto link = [&](const std::string& path, const std::string& target) {
    std::filesystem::create_directories(std::filesystem::path(tmp.path + "/" + path).parent_path());
    std::filesystem::create_symlink(target, tmp.path + "/" + path);
  };
  // A container with its own PID namespace: its pid 1 shares its network namespace, and
  // /proc/sys/net/core has somaxconn but not the initial namespace's netdev_max_backlog.
  link("proc/self/ns/net", "net:[4026532301]");
  link("proc/1/ns/net", "net:[4026532301]");
  tmp.write("proc/sys/net/core/somaxconn", "4096\n");
  std::vector<ProbeError> errors;
  CHECK(probe_host(Root::open(tmp.path).value(), errors).initial_net_namespace == false);
  tmp.write("proc/sys/net/core/netdev_max_backlog", "1000\n");
  CHECK(probe_host(Root::open(tmp.path).value(), errors).initial_net_namespace == true);
  // Without /proc/sys (a capture), pid 1's link decides.
  std::filesystem::remove_all(tmp.path + "/proc/sys");
  CHECK(probe_host(Root::open(tmp.path).value(), errors).initial_net_namespace == true);
}

TEST_CASE("host: a process in a new network namespace is seen (root)") {
  if (::geteuid() != 0) return;
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    char ok = ::unshare(CLONE_NEWNET) == 0 ? 1 : 0;
    (void)!::write(ready[1], &ok, 1);
    ::pause();
    ::_exit(0);
  }
  char ok = 0;
  REQUIRE(::read(ready[0], &ok, 1) == 1);
  auto before = other_net_namespaces(Root::live());
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  REQUIRE(ok == 1);
  REQUIRE(before.has_value());
  CHECK(*before >= 1u);
}

TEST_CASE("host: live invariants") {
  std::vector<ProbeError> errors;
  Host h = probe_host(Root::live(), errors);
  for (const ProbeError& e : errors) FAIL_CHECK(e.message);
  struct utsname u {};
  REQUIRE(::uname(&u) == 0);
  CHECK(h.kernel == std::string(u.release));
  CHECK(h.hostname == std::string(u.nodename));
  CHECK(h.irqbalance_running.has_value());  // we see our own pid at least
  REQUIRE(h.cmdline.has_value());
  CHECK_FALSE(h.cmdline->empty());
  std::string cpuinfo = read_text("/proc/cpuinfo");
  if (cpuinfo.find(" hypervisor") != std::string::npos) {
    CHECK(h.virtualized == true);
#if defined(__x86_64__)
    CHECK(h.hypervisor.has_value());  // CPUID 0x40000000 names it even without DMI
#endif
  }
  if (cpuinfo.find("model name") != std::string::npos) CHECK(h.cpu_model.has_value());
}
