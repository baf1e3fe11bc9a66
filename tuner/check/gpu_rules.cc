// PCIe and GPU rules: links trained below what the device can do, GPUs without a NIC on
// their NUMA node (GPUDirect RDMA then crosses the socket link), and GPUs of one node
// bound to different drivers.
#include <algorithm>
#include <set>

#include <fmt/core.h>

#include "tuner/check/check.h"

namespace tuner {
namespace {

std::string gts(double v) { return fmt::format("{:g} GT/s", v); }

std::string pci_file(const PciDevice& d, const char* name) {
  return "sys/bus/pci/devices/" + d.address + "/" + name;
}

std::string label(const PciDevice& d) {
  std::string os = d.os_devices.empty() ? "" : " (" + d.os_devices.front() + ")";
  return d.kind + " " + d.address + os;
}

}  // namespace

void check_pcie(const CheckInput& in, CheckReport& out) {
  const Inventory& inv = in.inventory;
  if (auto why = probe_failed(inv, "topology", inv.topology.all_pus.empty())) {
    skip(out, Rule::pcie_link_degraded, *why);
    return;
  }
  for (const PciDevice& d : inv.topology.pci) {
    if (d.kind == "display" || d.kind == "other") continue;
    const auto& l = d.link;
    bool narrow = l.width && l.max_width && *l.width < *l.max_width;
    bool slow = l.speed_gts && l.max_speed_gts && *l.speed_gts < *l.max_speed_gts;
    if (!narrow && !slow) continue;
    std::vector<Evidence> ev;
    if (l.width && l.max_width) {
      ev.push_back({pci_file(d, "current_link_width"), std::to_string(*l.width)});
      ev.push_back({pci_file(d, "max_link_width"), std::to_string(*l.max_width)});
    }
    if (l.speed_gts && l.max_speed_gts) {
      ev.push_back({pci_file(d, "current_link_speed"), gts(*l.speed_gts)});
      ev.push_back({pci_file(d, "max_link_speed"), gts(*l.max_speed_gts)});
    }
    // A GPU idle trains its link down to save power and back up under load: a slower
    // link alone is expected there. A narrower link never fixes itself.
    Severity sev = narrow ? Severity::error : d.kind == "gpu" ? Severity::info : Severity::warning;
    std::string what = narrow ? fmt::format("x{} of x{}", *l.width, *l.max_width)
                              : fmt::format("{} of {}", gts(*l.speed_gts), gts(*l.max_speed_gts));
    std::string why = narrow ? "narrower than the device's maximum: a fraction of its bandwidth"
                      : d.kind == "gpu"
                          ? "slower than its maximum; GPUs train down when idle, so read it "
                            "again under load"
                          : "slower than the device's maximum";
    out.findings.push_back(
        {Rule::pcie_link_degraded, sev, d.address,
         fmt::format("{}: PCIe link at {}, {}", label(d), what, why), std::move(ev),
         "reseat the card or move it to a slot wired for its full width and speed; check the "
         "BIOS slot settings (bifurcation, link speed) and the riser; 'lspci -vv -s " +
             d.address + "' shows LnkCap against LnkSta"});
  }
}

void check_gpus(const CheckInput& in, CheckReport& out) {
  const Inventory& inv = in.inventory;
  if (auto why = probe_failed(inv, "topology", inv.topology.all_pus.empty())) {
    skip(out, Rule::gpu_without_local_nic, *why);
    skip(out, Rule::gpu_driver_mixed, *why);
    return;
  }
  std::vector<const PciDevice*> gpus = inv.gpus();
  if (gpus.empty()) return;

  // GPUDirect RDMA: a NIC under the GPU's own node, or traffic crosses the socket link.
  if (inv.topology.numa_nodes.size() < 2) {
    out.skipped.push_back({Rule::gpu_without_local_nic, "one NUMA node: every NIC is local"});
  } else {
    std::set<int> nic_nodes;
    bool any_nic = false;
    for (const PciDevice& d : inv.topology.pci)
      if ((d.kind == "nic" || d.kind == "infiniband") && d.numa_node) {
        nic_nodes.insert(*d.numa_node);
        any_nic = true;
      }
    if (!any_nic) {
      out.skipped.push_back(
          {Rule::gpu_without_local_nic, "no NIC with a known NUMA node on this machine"});
    } else {
      for (const PciDevice* g : gpus) {
        if (!g->numa_node || nic_nodes.contains(*g->numa_node)) continue;
        std::string nodes;
        for (int n : nic_nodes) nodes += (nodes.empty() ? "" : ",") + std::to_string(n);
        out.findings.push_back(
            {Rule::gpu_without_local_nic,
             Severity::warning,
             g->address,
             fmt::format("{} is on NUMA node {}, which has no NIC: GPUDirect RDMA to it "
                         "crosses the inter-socket link (NCCL may turn it off)",
                         label(*g), *g->numa_node),
             {{g->address + " NUMA node (hwloc PCI locality)", std::to_string(*g->numa_node)},
              {"NUMA nodes with a NIC or HCA (hwloc PCI locality)", nodes}},
             "hardware: a NIC in a slot on node " + std::to_string(*g->numa_node) +
                 "; meanwhile run each rank near its GPU ('tuner exec --near gpuN') and "
                 "pick the nearest NIC per GPU (NCCL_IB_HCA / NCCL topology file)"});
      }
    }
  }

  // One kernel loads one nvidia module, so one node cannot run two versions of it; what
  // it can show is GPUs of one vendor bound to different drivers (nvidia beside
  // vfio-pci, nouveau, or none). Versions across nodes: 'tuner report' compares them.
  std::map<uint16_t, std::map<std::string, std::vector<std::string>>> by_vendor;
  for (const PciDevice* g : gpus)
    by_vendor[g->vendor_id][g->driver.value_or("(none)")].push_back(g->address);
  for (const auto& [vendor, drivers] : by_vendor) {
    if (drivers.size() < 2) continue;
    std::vector<Evidence> ev;
    std::string names;
    for (const auto& [driver, addrs] : drivers) {
      for (const std::string& a : addrs)
        ev.push_back({"sys/bus/pci/devices/" + a + "/driver", driver});
      names += (names.empty() ? "" : ", ") + driver;
    }
    if (in.inventory.host.nvidia_driver)
      ev.push_back({"proc/driver/nvidia/version", *in.inventory.host.nvidia_driver});
    out.findings.push_back(
        {Rule::gpu_driver_mixed, Severity::warning, fmt::format("{:04x}", vendor),
         fmt::format("GPUs of vendor {:04x} are bound to different drivers ({}): jobs see "
                     "fewer GPUs than the node has",
                     vendor, names),
         std::move(ev),
         "bind every GPU to one driver (driverctl, or the vfio-pci ids= on the kernel "
         "command line if passthrough was meant); 'tuner report' compares driver versions "
         "across nodes"});
  }
}

}  // namespace tuner
