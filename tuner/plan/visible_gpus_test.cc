#include "tuner/plan/visible_gpus.h"

#include <doctest/doctest.h>
#include <fmt/core.h>

#include "tests/support/temp_dir.h"

namespace tuner {

namespace {

// A 4-GPU, 2-node node as its PCI list comes out of the probe (not in bus order), with
// an AMD GPU neither NVML nor CUDA counts, and the BMC's display.
Inventory four_gpus() {
  Inventory inv;
  auto gpu = [](const char* pci, uint16_t vendor, int node) {
    return PciDevice{pci, "gpu", vendor, 0x2330, 0x0302, node, {}, {}, {}, {}, {}};
  };
  inv.topology.pci = {gpu("0000:86:00.0", 0x10de, 1), gpu("0000:18:00.0", 0x10de, 0),
                      gpu("0000:05:00.0", 0x1002, 0), gpu("0000:af:00.0", 0x10de, 1),
                      gpu("0000:3b:00.0", 0x10de, 0)};
  inv.topology.pci.push_back(
      PciDevice{"0000:03:00.0", "display", 0x1a03, 0x2000, 0x0300, 0, {}, {}, {}, {}, {}});
  return inv;
}

constexpr const char* kUuid18 = "GPU-5d1f2c7a-8b3e-4f09-a1c2-3e4d5f6a7b80";
constexpr const char* kUuid3b = "GPU-5d1f9e01-22c4-4b6d-8e7f-90a1b2c3d4e5";
constexpr const char* kUuid86 = "GPU-a04c3e6f-1d2b-4c5a-9e8f-7a6b5c4d3e2f";
constexpr const char* kUuidAf = "GPU-c7e9b1d3-5f7a-4b9c-8d1e-2f3a4b5c6d7e";

// proc/driver/nvidia/gpus/PCI/information as the driver writes it: the fields, order,
// tabs and spaces of real files (535 and 550 drivers), the values of an H100 node.
std::string information(const char* pci, const char* uuid, unsigned minor) {
  return fmt::format("Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 486\nGPU UUID: \t {}\n"
                     "Video BIOS: \t 96.00.74.00.01\nBus Type: \t PCIe\nDMA Size: \t 52 bits\n"
                     "DMA Mask: \t 0xfffffffffffff\nBus Location: \t {}\nDevice Minor: \t {}\n"
                     "GPU Firmware: \t 550.54.15\nGPU Excluded:\t No\n",
                     uuid, pci, minor);
}

/// The driver's table on the four GPUs; the minors (dev/nvidiaM) are not in bus order.
void write_driver(const testing::TempDir& dir) {
  const std::pair<const char*, std::pair<const char*, unsigned>> gpus[] = {
      {"0000:18:00.0", {kUuid18, 2}},
      {"0000:3b:00.0", {kUuid3b, 0}},
      {"0000:86:00.0", {kUuid86, 3}},
      {"0000:af:00.0", {kUuidAf, 1}}};
  for (const auto& [pci, id] : gpus)
    dir.write(std::string("proc/driver/nvidia/gpus/") + pci + "/information",
              information(pci, id.first, id.second));
}

struct Visible {
  Inventory inv = four_gpus();
  testing::TempDir dir{"tuner-visible-gpus"};
  Visible() { write_driver(dir); }

  using Var = std::optional<std::string>;
  Result<std::optional<VisibleGpu>> gpu(const Var& nvidia, const Var& cuda, unsigned n) const {
    return visible_gpu(inv, Root::open(dir.path).value(), VisibleDevices{nvidia, cuda}, n);
  }
  std::string pci(const Var& nvidia, const Var& cuda, unsigned n) const {
    auto r = gpu(nvidia, cuda, n);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message()));
    REQUIRE(r->has_value());
    return (*r)->pci;
  }
  /// The error, checked to name the variable it is about.
  std::string error(const Var& nvidia, const Var& cuda, unsigned n, const char* where) const {
    auto r = gpu(nvidia, cuda, n);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().where == where);
    return r.error().what;
  }
};

constexpr const char* kNv = "NVIDIA_VISIBLE_DEVICES";
constexpr const char* kCuda = "CUDA_VISIBLE_DEVICES";

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("near: the driver's information file gives a GPU's UUID, PCI address and minor") {
  // As `cat /proc/driver/nvidia/gpus/0000:00:1e.0/information` shows it on a cloud VM
  // (A10G, driver 535): the minor is not the GPU's index.
  auto gpu = parse_nvidia_information(
      "Model: \t\t NVIDIA A10G\nIRQ:   \t\t 42\n"
      "GPU UUID: \t GPU-82d3b1c4-0a2e-4f51-9c7d-6e5f4a3b2c1d\nVideo BIOS: \t 94.02.75.00.01\n"
      "Bus Type: \t PCIe\nDMA Size: \t 47 bits\nDMA Mask: \t 0x7fffffffffff\n"
      "Bus Location: \t 0000:00:1E.0\nDevice Minor: \t 3\nGPU Excluded:\t No\n");
  CHECK(gpu.uuid == "GPU-82d3b1c4-0a2e-4f51-9c7d-6e5f4a3b2c1d");
  CHECK(gpu.pci == "0000:00:1e.0");
  CHECK(gpu.minor == 3u);
  auto odd = parse_nvidia_information("Model: x\nDevice Minor: \t 99999999999999999999\n");
  CHECK(odd.uuid.empty());
  CHECK(odd.pci.empty());
  CHECK_FALSE(odd.minor);
  CHECK_FALSE(parse_nvidia_information("Device Minor: -1").minor);
}

TEST_CASE("near: without either variable gpuN is the machine's N-th GPU") {
  Visible v;
  auto r = v.gpu(std::nullopt, std::nullopt, 0);
  REQUIRE(r.ok());
  CHECK_FALSE(r->has_value());
}

TEST_CASE("near: gpuN under NVIDIA_VISIBLE_DEVICES is the container's N-th GPU in PCI order") {
  Visible v;
  // Indexes count the NVIDIA GPUs in PCI order (the AMD one is not among them); the
  // container numbers what it was given in PCI order, not in the list's.
  CHECK(v.pci("2,0", std::nullopt, 0) == "0000:18:00.0");
  CHECK(v.pci("2,0", std::nullopt, 1) == "0000:86:00.0");
  auto how = v.gpu("2,0", std::nullopt, 1).value()->how;
  CHECK(how ==
        "under NVIDIA_VISIBLE_DEVICES=2,0 (this container's GPUs, in PCI order: 0000:18:00.0, "
        "0000:86:00.0)");
  CHECK(has(v.error("2,0", std::nullopt, 2, kNv), "gpu2 asked, but this container has 2 GPUs"));
  // The Kubernetes device plugin's whole UUIDs, in any case, and PCI bus ids as NVML
  // writes them.
  CHECK(v.pci(std::string(kUuidAf) + "," + kUuid3b, std::nullopt, 0) == "0000:3b:00.0");
  CHECK(v.pci("gpu-C7E9B1D3-5F7A-4B9C-8D1E-2F3A4B5C6D7E", std::nullopt, 0) == "0000:af:00.0");
  CHECK(v.pci("00000000:AF:00.0,0000:18:00.0", std::nullopt, 1) == "0000:af:00.0");
  // "all" anywhere is every GPU; extra commas and repeats count for nothing.
  CHECK(v.pci("1,all", std::nullopt, 3) == "0000:af:00.0");
  CHECK(v.pci(",,1,,", std::nullopt, 0) == "0000:3b:00.0");
  CHECK(has(v.error(std::string("1,1,") + kUuid3b, std::nullopt, 1, kNv),
            "this container has 1 GPU"));
}

TEST_CASE("near: NVIDIA_VISIBLE_DEVICES that gives no GPU or names none of this machine's") {
  Visible v;
  CHECK(has(v.error("none", std::nullopt, 0, kNv), "gave this process no GPU"));
  CHECK(has(v.error(",,", std::nullopt, 0, kNv), "lists no GPU"));
  CHECK(has(v.error("4", std::nullopt, 0, kNv), "'4' is an index past this machine's 4 NVIDIA "
                                                "GPUs"));
  CHECK(has(v.error("99999999999999999999999", std::nullopt, 0, kNv), "an index past"));
  CHECK(has(v.error("GPU-5d1f", std::nullopt, 0, kNv), "no GPU has UUID 'GPU-5d1f' (the runtime "
                                                       "takes whole UUIDs"));
  CHECK(has(v.error("0000:05:00.0", std::nullopt, 0, kNv),
            "is not one of this machine's NVIDIA GPUs"));
  CHECK(has(v.error("MIG-2f4e6a8c-1b3d-5e7f-9a0b-c1d2e3f4a5b6", std::nullopt, 0, kNv),
            "is a MIG instance: it shares its GPU's PCI device"));
  CHECK(has(v.error("1:0", std::nullopt, 0, kNv),
            "'1:0' is a MIG instance of GPU 1 (PCI 0000:3b:00.0)"));
  CHECK(has(v.error("gpu0", std::nullopt, 0, kNv), "not a GPU index, UUID or PCI address"));
}

TEST_CASE("near: NVIDIA_VISIBLE_DEVICES=void: the GPUs whose device nodes the process has") {
  // CDI writes NVIDIA_VISIBLE_DEVICES=void into the container and adds the device nodes
  // of its GPUs; dev/nvidia3 is minor 3, the GPU at 0000:86:00.0.
  Visible v;
  CHECK(has(v.error("void", std::nullopt, 0, kNv), "no GPU's device node (dev/nvidiaN) is here"));
  v.dir.write("dev/nvidiactl", "");
  v.dir.write("dev/nvidia-uvm", "");
  v.dir.write("dev/nvidia3", "");
  CHECK(v.pci("void", std::nullopt, 0) == "0000:86:00.0");
  CHECK(v.pci("", std::nullopt, 0) == "0000:86:00.0");
  CHECK(v.pci("/var/run/nvidia-container-devices", std::nullopt, 0) == "0000:86:00.0");
  CHECK(has(v.gpu("void", std::nullopt, 0).value()->how, "the GPUs whose device nodes are here"));
  v.dir.write("dev/nvidia2", "");  // minor 2: 0000:18:00.0, first in PCI order
  CHECK(v.pci("void", std::nullopt, 0) == "0000:18:00.0");
  CHECK(v.pci("void", "1", 0) == "0000:86:00.0");
  // Without the driver's table a device node cannot be told to be a GPU's.
  testing::TempDir bare{"tuner-visible-bare"};
  bare.write("dev/nvidia0", "");
  auto r = visible_gpu(v.inv, Root::open(bare.path).value(), VisibleDevices{"void", {}}, 0);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().is(ErrorKind::missing));
  CHECK(has(r.error().what, "cannot be told"));
}

TEST_CASE("near: CUDA_VISIBLE_DEVICES indexes the GPUs NVIDIA_VISIBLE_DEVICES gave") {
  Visible v;
  std::string given = std::string(kUuidAf) + "," + kUuid18;  // the container's 18:00, af:00
  CHECK(v.pci(given, "1", 0) == "0000:af:00.0");
  CHECK(v.pci(given, "1,0", 1) == "0000:18:00.0");
  CHECK(v.pci(given, "GPU-c7e9", 0) == "0000:af:00.0");
  CHECK(v.gpu(given, "1", 0).value()->how ==
        "under CUDA_VISIBLE_DEVICES=1, an index into the GPUs under NVIDIA_VISIBLE_DEVICES=" +
            given + " (this container's GPUs, in PCI order: 0000:18:00.0, 0000:af:00.0)");
  CHECK(has(v.error(given, "2", 0, kCuda), "entry 0 names GPU 2, and this container has 2 GPUs"));
  // A UUID of a GPU the container was not given is not one CUDA sees.
  CHECK(has(v.error(given, kUuid3b, 0, kCuda), "no GPU of this container has UUID"));
  // The NVIDIA list is checked first: it decides what CUDA can see.
  CHECK(v.error("none", "0", 0, kNv).find("no GPU") != std::string::npos);
}

TEST_CASE("near: gpuN under CUDA_VISIBLE_DEVICES is the N-th GPU the process sees") {
  Visible v;
  // A rank with LOCAL_RANK 0 under "3,0" runs near the machine's fourth GPU.
  CHECK(v.pci(std::nullopt, "3,0", 0) == "0000:af:00.0");
  CHECK(v.pci(std::nullopt, "3,0", 1) == "0000:18:00.0");
  CHECK(v.pci(std::nullopt, " 1 ", 0) == "0000:3b:00.0");
  CHECK(v.gpu(std::nullopt, "3,0", 0).value()->how == "under CUDA_VISIBLE_DEVICES=3,0");
  // UUIDs, whole or a unique prefix, through the driver's own table.
  CHECK(v.pci(std::nullopt, kUuid86, 0) == "0000:86:00.0");
  CHECK(v.pci(std::nullopt, "GPU-5d1f2", 0) == "0000:18:00.0");
  auto error = [&](const char* cuda, unsigned n) { return v.error(std::nullopt, cuda, n, kCuda); };
  CHECK(has(error("GPU-5d1f", 0), "the start of 2 GPUs' UUIDs"));
  CHECK(has(error("GPU-ffff", 0), "no GPU of this machine has UUID"));
  CHECK(has(error("1", 1), "makes 1 GPU visible"));
  CHECK(has(error("5", 0), "entry 0 names GPU 5, and this machine has 4 GPUs"));
  CHECK(has(error("", 0), "hides every GPU"));
  CHECK(has(error("-1", 0), "hides every GPU"));
  CHECK(has(error("x1", 0), "neither a GPU index nor a GPU-UUID"));
  CHECK(has(error("MIG-4f0e8a3c-aaaa", 0), "MIG instance"));
  // CUDA stops at the first entry it cannot use: "0,-1,1" shows one GPU.
  CHECK(has(error("0,-1,1", 2), "entry 1 '-1' is neither"));
  CHECK(has(error("2,2", 1), "entries 0 and 1 name the same GPU (PCI 0000:86:00.0)"));
}

TEST_CASE("near: hostile visible-device lists get errors that show them escaped") {
  Visible v;
  auto esc = v.error("0,\x1b]0;pwned\x07", std::nullopt, 0, kNv);
  CHECK(has(esc, "'\\x1b]0;pwned\\x07' is not a GPU index"));
  CHECK_FALSE(has(esc, "\x1b"));
  auto cuda = v.error(std::nullopt, "0\n1", 0, kCuda);
  CHECK(has(cuda, "entry 0 '0\\n1' is neither"));
  CHECK_FALSE(has(cuda, "\n"));
  std::string many;
  for (int i = 0; i < 2000; ++i) many += "0,";
  CHECK(has(v.error(many, std::nullopt, 0, kNv), "2001 entries: more than the 1024 tuner reads"));
  CHECK(has(v.error(std::nullopt, many, 0, kCuda), "2001 entries"));
  std::string long_uuid = "GPU-" + std::string(5000, 'a');
  auto cut = v.error(long_uuid, std::nullopt, 0, kNv);
  CHECK(cut.size() < 400);  // the value is cut, not repeated whole
  CHECK(has(cut, "..."));
}

}  // namespace tuner
