// The facts fleets compare across nodes: BIOS and board (DMI), CPU microcode, PCIe
// link state, NIC driver and firmware versions.
#include <doctest/doctest.h>

#include "probes/drvinfo.h"
#include "probes/host.h"
#include "probes/pci_link.h"
#include "tests/support/files.h"
#include "tests/support/fixtures.h"
#include "tests/support/netns.h"
#include "tests/support/temp_dir.h"

namespace tuner {

TEST_CASE("platform facts: DMI of a captured DGX Spark, microcode from cpuinfo") {
  const std::string gb10 = testing::shared_fixture("nvidia-dgx-gb10.tar.bz2");
  std::vector<ProbeError> errors;
  Host h = probe_host(Root::open(gb10).value(), errors);
  CHECK(h.platform.bios_vendor == "American Megatrends International, LLC.");
  CHECK(h.platform.bios_version == "5.36_0ACUM018");
  CHECK(h.platform.bios_date == "08/06/2025");
  CHECK(h.platform.system_vendor == "NVIDIA");
  CHECK(h.platform.system_product == "NVIDIA_DGX_Spark");
  CHECK(h.platform.board_vendor == "NVIDIA");
  CHECK(h.platform.board_name == "P4242");
  CHECK_FALSE(h.microcode.has_value());  // arm64 cpuinfo has no microcode line

  Host amd;
  parse_cpuinfo(
      testing::read_text(testing::test_data_path("host/captured/firecracker-amd-2cpu.cpuinfo")),
      amd);
  CHECK(amd.microcode == "0x1000065");
}

TEST_CASE("platform facts: DMI placeholders are unknown, not a BIOS version") {
  testing::TempDir root;
  root.write("sys/class/dmi/id/bios_version", "To Be Filled By O.E.M.\n");
  root.write("sys/class/dmi/id/board_name", "Default string\n");
  root.write("sys/class/dmi/id/bios_date", "\n");
  root.write("sys/class/dmi/id/sys_vendor", "Supermicro\n");
  std::vector<ProbeError> errors;
  Host h = probe_host(Root::open(root.path).value(), errors);
  CHECK_FALSE(h.platform.bios_version.has_value());
  CHECK_FALSE(h.platform.board_name.has_value());
  CHECK_FALSE(h.platform.bios_date.has_value());
  CHECK(h.platform.system_vendor == "Supermicro");
}

TEST_CASE("platform facts: PCIe link speed and width as sysfs writes them") {
  CHECK(parse_link_speed("16.0 GT/s PCIe") == 16.0);
  CHECK(parse_link_speed("8 GT/s") == 8.0);  // kernels before 4.19
  CHECK(parse_link_speed("2.5 GT/s PCIe\n") == 2.5);
  CHECK_FALSE(parse_link_speed("Unknown").has_value());
  CHECK_FALSE(parse_link_speed("Unknown speed").has_value());
  CHECK_FALSE(parse_link_speed("fast GT/s").has_value());

  testing::TempDir root;
  const std::string gpu = "sys/bus/pci/devices/0000:3b:00.0/";
  root.write(gpu + "current_link_speed", "16.0 GT/s PCIe\n");
  root.write(gpu + "current_link_width", "8\n");
  root.write(gpu + "max_link_speed", "32.0 GT/s PCIe\n");
  root.write(gpu + "max_link_width", "16\n");
  const std::string down = "sys/bus/pci/devices/0000:5e:00.0/";
  root.write(down + "current_link_speed", "Unknown\n");
  root.write(down + "current_link_width", "0\n");
  std::vector<PciDevice> devices(3);
  devices[0].address = "0000:3b:00.0";
  devices[1].address = "0000:5e:00.0";
  devices[2].address = "0000:00:1f.0";  // conventional PCI: no link files
  probe_pci_links(Root::open(root.path).value(), devices);
  CHECK(devices[0].link.speed_gts == 16.0);
  CHECK(devices[0].link.width == 8u);
  CHECK(devices[0].link.max_speed_gts == 32.0);
  CHECK(devices[0].link.max_width == 16u);
  CHECK_FALSE(devices[1].link.speed_gts.has_value());
  CHECK_FALSE(devices[1].link.width.has_value());  // 0 lanes: not trained
  CHECK_FALSE(devices[2].link.speed_gts.has_value());
}

TEST_CASE("platform facts: driver and firmware versions through ETHTOOL_GDRVINFO (root)") {
  if (auto why = testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  testing::Report r = testing::run_in_netns([] {
    if (!testing::run_command({"ip", "link", "add", "dv0", "type", "veth", "peer", "name", "dv1"})
             .empty())
      return testing::Report{{"skip", "cannot create a veth pair"}};
    testing::Report out;
    auto info = read_drvinfo("dv0");
    out["ok"] = info.ok() ? "1" : info.error().message();
    if (info.ok()) {
      out["driver"] = info->driver;
      out["version"] = info->version.value_or("(none)");
    }
    auto gone = read_drvinfo("nosuchif0");
    out["gone"] = gone.ok() ? "ok" : std::to_string(gone.error().err);
    return out;
  });
  if (r.contains("skip")) {
    MESSAGE("skipped: " << r["skip"]);
    return;
  }
  CHECK(r["ok"] == "1");
  CHECK(r["driver"] == "veth");
  CHECK(r["version"] == "1.0");  // drivers/net/veth.c DRV_VERSION
  CHECK(r["gone"] == std::to_string(ENODEV));
}

}  // namespace tuner
