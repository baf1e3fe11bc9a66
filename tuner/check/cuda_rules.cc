// The CUDA rule: runtimes installed on the node that are newer than the NVIDIA driver's
// CUDA version. A newer major (or a driver below the major's minor-compatibility
// minimum) cannot initialise at all; a newer minor of the same major runs under CUDA
// minor version compatibility, without what needs the newer driver (cuda_table.h).
#include <map>

#include <fmt/core.h>

#include "tuner/check/check.h"
#include "tuner/check/cuda_table.h"

namespace tuner {
namespace {

std::string cuda_text(CudaVersion v) { return fmt::format("{}.{}", v.major, v.minor); }

std::string driver_cuda_text(const std::optional<CudaVersion>& v) {
  return v ? cuda_text(*v) : "older than CUDA 7.0";
}

}  // namespace

void check_cuda(const CheckInput& in, CheckReport& out) {
  if (!in.cuda) {
    skip(out, Rule::gpu_cuda_newer_than_driver,
         in.cuda_skipped.value_or(Unavailable{"no NVIDIA driver"}));
    return;
  }
  auto driver = parse_driver_version(in.cuda->driver);
  if (!driver) {
    skip(out, Rule::gpu_cuda_newer_than_driver,
         {"the NVIDIA driver version '" + in.cuda->driver + "' is not one NVIDIA publishes", true});
    return;
  }
  std::map<CudaVersion, std::vector<const CudaRuntime*>> by_version;
  for (const CudaRuntime& r : in.cuda->runtimes) by_version[r.cuda].push_back(&r);
  const std::optional<CudaVersion> max = max_cuda_for_driver(*driver);
  for (const auto& [version, found] : by_version) {
    CudaFit fit = cuda_fit(*driver, version);
    if (fit == CudaFit::supported || fit == CudaFit::unknown) continue;
    std::vector<Evidence> ev = {
        {"NVIDIA driver (proc/driver/nvidia/version, else sys/module/nvidia/version)",
         driver->text},
        {"its CUDA version (NVIDIA release notes, Table 3)", driver_cuda_text(max)}};
    for (const CudaRuntime* r : found) ev.push_back({r->where, r->version});
    auto needs = min_driver_for(version);
    std::string needs_text = needs ? ">= " + needs->text : "newer than " + driver->text;
    std::string summary;
    if (fit == CudaFit::unsupported) {
      auto floor = minor_compat_driver(version.major);
      summary = fmt::format(
          "a CUDA {} runtime is installed, but NVIDIA driver {} supports CUDA {}{}: programs "
          "built for CUDA {} fail to start (cudaErrorInsufficientDriver)",
          cuda_text(version), driver->text, driver_cuda_text(max),
          floor ? fmt::format(" (CUDA {}.x needs {} or newer even under minor version "
                              "compatibility)",
                              version.major, floor->text)
                : "",
          cuda_text(version));
      ev.push_back(
          {fmt::format("driver CUDA {} needs (NVIDIA release notes, Table 3)", cuda_text(version)),
           needs_text});
    } else {
      summary = fmt::format(
          "a CUDA {} runtime is installed, newer than driver {}'s CUDA {}: it runs only under "
          "CUDA minor version compatibility, where PTX newer than the driver fails to load "
          "(cudaErrorUnsupportedPtxVersion: JIT-compiled kernels, GPUs without the built "
          "code) and CUDA {} features return cudaErrorCallRequiresNewerDriver",
          cuda_text(version), driver->text, driver_cuda_text(max), cuda_text(version));
      ev.push_back(
          {fmt::format("driver CUDA {} needs for full support", cuda_text(version)), needs_text});
    }
    out.findings.push_back(
        {Rule::gpu_cuda_newer_than_driver,
         fit == CudaFit::unsupported ? Severity::error : Severity::warning,
         "CUDA " + cuda_text(version), std::move(summary), std::move(ev),
         fmt::format("install an NVIDIA driver {} (the CUDA {} release's minimum), or run "
                     "software built for CUDA {} at most; data-center GPUs can also take the "
                     "cuda-compat forward-compatibility package of CUDA {}",
                     needs_text, cuda_text(version), driver_cuda_text(max), cuda_text(version))});
  }
}

}  // namespace tuner
