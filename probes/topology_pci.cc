#include "probes/topology_pci.h"

#include <cstdio>
#include <string_view>

#include "probes/hwloc_util.h"

namespace tuner {

std::string pci_kind(uint32_t class_id, uint16_t vendor_id, const OsDeviceKinds& os) {
  if (class_id == 0x0207 || class_id == 0x0c06) return "infiniband";
  if ((class_id >> 8) == 0x02 || os.network) return "nic";
  if (os.openfabrics) return "infiniband";
  constexpr uint16_t kNvidia = 0x10de;
  if (class_id == 0x0300 && vendor_id != kNvidia && !os.compute) return "display";
  if (class_id == 0x0b40 && !os.gpu && !os.compute) return "coprocessor";
  if ((class_id >> 8) == 0x03 || os.gpu || os.compute) return "gpu";
  if (os.coproc) return "coprocessor";
  if (class_id == 0x0108) return "nvme";
  return "other";
}

namespace {

std::string pci_address(const hwloc_obj* dev) {
  const hwloc_obj_attr_u::hwloc_pcidev_attr_s& p = dev->attr->pcidev;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%01x", p.domain, p.bus, p.dev, p.func);
  return buf;
}

}  // namespace

std::vector<PciDevice> collect_pci(hwloc_topology_t topo) {
  std::vector<PciDevice> out;
  for (hwloc_obj_t dev = hwloc_get_next_pcidev(topo, nullptr); dev;
       dev = hwloc_get_next_pcidev(topo, dev)) {
    PciDevice d;
    OsDeviceKinds kinds;
    // OS devices hang directly below their PCI device as I/O children.
    for (hwloc_obj_t c = dev->io_first_child; c; c = c->next_sibling) {
      if (c->type != HWLOC_OBJ_OS_DEVICE || !c->name) continue;
      d.os_devices.emplace_back(c->name);
      switch (c->attr->osdev.type) {
        case HWLOC_OBJ_OSDEV_NETWORK:
          kinds.network = true;
          d.netdevs.emplace_back(c->name);
          break;
        case HWLOC_OBJ_OSDEV_OPENFABRICS: kinds.openfabrics = true; break;
        case HWLOC_OBJ_OSDEV_GPU: kinds.gpu = true; break;
        case HWLOC_OBJ_OSDEV_COPROC: {
          bool compute = false;
          std::string_view n = c->name;
          for (std::string_view prefix : {"cuda", "nvml", "opencl", "rsmi"})
            if (n.substr(0, prefix.size()) == prefix) compute = true;
          (compute ? kinds.compute : kinds.coproc) = true;
          break;
        }
        default: break;
      }
    }
    const hwloc_obj_attr_u::hwloc_pcidev_attr_s& p = dev->attr->pcidev;
    d.class_id = p.class_id;
    d.kind = pci_kind(d.class_id, dev->attr->pcidev.vendor_id, kinds);
    if (d.os_devices.empty() && d.kind == "other") continue;
    d.address = pci_address(dev);
    d.vendor_id = p.vendor_id;
    d.device_id = p.device_id;
    hwloc_obj_t cpu_side = hwloc_get_non_io_ancestor_obj(topo, dev);
    if (cpu_side) {
      d.local_cpus = to_cpuset(cpu_side->cpuset);
      if (auto node = nearest_numa_node(topo, cpu_side)) d.numa_node = static_cast<int>(*node);
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace tuner
