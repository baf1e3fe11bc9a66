// Which CUDA runtimes an NVIDIA driver runs: NVIDIA's published minimum driver per CUDA
// release, and the driver each major version needs for minor version compatibility.
// The table and its source are in cuda_table.cc, the one place to update when NVIDIA
// ships a release; README.md "gpu.cuda_newer_than_driver" states the rule.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/cuda.h"

namespace tuner {

/// An NVIDIA driver version, "470.57.02" -> {470, 57, 2}, compared part by part (a
/// missing part is 0: "455.23" == "455.23.0").
struct DriverVersion {
  std::vector<unsigned> parts;
  std::string text;
  bool operator<(const DriverVersion& o) const;
  bool operator>=(const DriverVersion& o) const { return !(*this < o); }
};

/// nullopt unless it is dot-separated numbers, the first of three digits or more.
std::optional<DriverVersion> parse_driver_version(std::string_view text);

/// A CUDA release and the oldest Linux x86_64 driver it needs (its first release's).
struct CudaRelease {
  CudaVersion cuda;
  DriverVersion min_driver;
};

/// NVIDIA's table, newest release first.
const std::vector<CudaRelease>& cuda_releases();

/// The newest CUDA release `driver` meets the minimum of (nvidia-smi's "CUDA Version");
/// nullopt when it is older than every release in the table.
std::optional<CudaVersion> max_cuda_for_driver(const DriverVersion& driver);
/// The oldest driver of the first release at or after `cuda` (12.7 was never released:
/// 12.8's); nullopt past the table's newest release.
std::optional<DriverVersion> min_driver_for(CudaVersion cuda);
/// The driver a major version's runtimes need to run on an older driver of the same
/// major (CUDA minor version compatibility): 11 -> 450.80.02, 12 -> 525.60.13, 13 -> 580.
/// nullopt before CUDA 11, which had none.
std::optional<DriverVersion> minor_compat_driver(unsigned major);

enum class CudaFit {
  supported,     // the driver's CUDA version is this runtime's or newer
  minor_compat,  // newer, same major: runs under minor version compatibility, with limits
  unsupported,   // the runtime's programs fail to initialise (cudaErrorInsufficientDriver)
  unknown,       // the runtime is newer than the table and the driver meets its newest row
};

/// How a runtime of version `runtime` runs on `driver`.
CudaFit cuda_fit(const DriverVersion& driver, CudaVersion runtime);

}  // namespace tuner
