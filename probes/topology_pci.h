// PCI part of the topology probe: the devices of interest in a loaded hwloc topology,
// with their NUMA locality and OS device names.
#pragma once

#include <hwloc.h>

#include <cstdint>
#include <string>
#include <vector>

#include "probes/inventory.h"

namespace tuner {

/// What a PCI device's OS devices say about it.
struct OsDeviceKinds {
  bool network = false;      // a netdev ("eth0", "ib0")
  bool openfabrics = false;  // an RDMA device ("mlx5_0", "qib0")
  bool gpu = false;          // a GPU OS device ("card0", "renderD128") or a compute one
  bool compute = false;      // a compute OS device ("cuda0", "nvml0", "opencl0d0", "rsmi0")
  bool coproc = false;       // another co-processor ("ve0": NEC Vector Engine, "mic0")
};

/// "nic", "infiniband", "gpu", "coprocessor", "display", "nvme" or "other", from the PCI class, the
/// vendor and the OS devices. InfiniBand class (0x0207, 0x0c06) wins over its IPoIB
/// netdev; an RDMA-only device is InfiniBand; a device with a netdev is a NIC whatever
/// its class says. A VGA controller (0x0300) is a "gpu" only when it is NVIDIA's (their
/// workstation cards are VGA class) or has a compute OS device: nearly every server has
/// a VGA chip in its BMC (Matrox G200, ASPEED AST2x00, ATI ES1000), and calling those
/// GPUs would send plain servers to GPU profiles and bind "gpu0" to a BMC. Those are
/// "display". A co-processor (class 0x0b40, or a co-processor OS device that is not a
/// CUDA/OpenCL/ROCm one: an NEC Vector Engine, a Xeon Phi) is a "coprocessor", not a GPU:
/// GPU profiles and "gpuN" must not reach it.
std::string pci_kind(uint32_t class_id, uint16_t vendor_id, const OsDeviceKinds& os);

/// PCI devices that have OS devices or are NIC/GPU/NVMe/InfiniBand, in hwloc's PCI
/// order. The topology must have been loaded with I/O objects.
std::vector<PciDevice> collect_pci(hwloc_topology_t topo);

}  // namespace tuner
