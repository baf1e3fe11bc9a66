// gpuN for a process that was given only some of the machine's GPUs: the N-th GPU it
// sees, where /sys (which the inventory reads, and which no namespace narrows) still
// shows every GPU of the machine. Two variables say which, each read as its owner reads
// it; `tuner exec --near gpuN` asks here before near.h resolves the PCI address.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// The variables as the process has them; nullopt: unset.
struct VisibleDevices {
  std::optional<std::string> nvidia;  // NVIDIA_VISIBLE_DEVICES: what a container was given
  std::optional<std::string> cuda;    // CUDA_VISIBLE_DEVICES: what CUDA numbers
};

/// gpuN resolved through them.
struct VisibleGpu {
  std::string pci;  // "0000:84:00.0"
  /// Which variables decided, for `exec -v`: "under NVIDIA_VISIBLE_DEVICES=GPU-8e2f...
  /// (this container's GPUs, in PCI order: 0000:84:00.0)". Values shown escaped.
  std::string how;
};

/// One GPU as the NVIDIA driver lists it in proc/driver/nvidia/gpus/PCI/information.
struct NvidiaGpuInfo {
  std::string pci;                // "Bus Location", lower case: "0000:18:00.0"
  std::string uuid;               // "GPU UUID": "GPU-8e2f1c3a-..."
  std::optional<unsigned> minor;  // "Device Minor": the GPU's node is dev/nvidiaN
};

/// Parses one information file; a field it lacks stays empty.
NvidiaGpuInfo parse_nvidia_information(std::string_view text);

/// The N-th GPU this process sees (nullopt when neither variable is set: the machine's
/// N-th GPU, which resolve_near gives). Indexes count the machine's NVIDIA GPUs in PCI
/// order (nvidia-smi's and NVML's numbering; CUDA's under CUDA_DEVICE_ORDER=PCI_BUS_ID,
/// and on a node of identical GPUs). UUIDs are matched through proc/driver/nvidia.
///  - NVIDIA_VISIBLE_DEVICES as the NVIDIA container runtime reads it: `all`; `none`
///    (no GPU); a comma list of indexes, whole GPU UUIDs or PCI addresses, repeats
///    counted once. The container sees those GPUs numbered 0..n-1 in PCI order, not in
///    the list's. `void`, empty, or a path (the device plugin's volume-mounts list) say
///    nothing of which GPUs: CDI, which gives GPUs its own way, sets `void` itself. Then
///    the GPUs are those whose device node (dev/nvidiaM, M the driver's minor) is here.
///  - CUDA_VISIBLE_DEVICES: the N-th entry, an index into the GPUs the process has (the
///    container's, under NVIDIA_VISIBLE_DEVICES) or a GPU UUID or unique prefix of one.
/// Errors (invalid or missing, where = the variable): no GPU given, an index past the
/// list, a MIG instance (it has no PCI device of its own), an unknown or ambiguous
/// UUID, an entry the runtime or CUDA would refuse or stop at, a GPU listed twice in
/// CUDA_VISIBLE_DEVICES, more than 1024 entries.
Result<std::optional<VisibleGpu>> visible_gpu(const Inventory& inv, const Root& root,
                                              const VisibleDevices& env, unsigned n);

}  // namespace tuner
