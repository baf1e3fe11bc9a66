// Source: NVIDIA CUDA Toolkit Release Notes (CUDA 13.2 Update 2), section "CUDA Driver":
//   Table 3 "CUDA Toolkit and Corresponding Driver Versions", column "Linux x86_64
//   Driver Version": the first row of each CUDA X.Y (its GA, or 11.0's RC, the first
//   11.0 release), https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html
//   Table 2 "CUDA Toolkit and Minimum Required Driver Version for CUDA Minor Version
//   Compatibility": 13.x >= 580, 12.x >= 525 (525.60.13, the 12.0 GA driver), 11.x >=
//   450 (450.80.02: its footnote, the driver that brought minor version compatibility
//   to the whole 11.x family); https://docs.nvidia.com/deploy/cuda-compatibility/
// A toolkit's updates (12.8 Update 1 needs 570.124.06) are left out: a runtime is judged
// by its X.Y, and an update's runtime on its GA's driver is within minor version
// compatibility. Add a row when NVIDIA ships a release.
#include "tuner/check/cuda_table.h"

#include <algorithm>

#include "base/strings.h"

namespace tuner {
namespace {

struct Row {
  unsigned major, minor;
  const char* driver;
};

constexpr Row kTable3[] = {
    {13, 2, "595.45.04"}, {13, 1, "590.44.01"}, {13, 0, "580.65.06"}, {12, 9, "575.51.03"},
    {12, 8, "570.26"},    {12, 6, "560.28.03"}, {12, 5, "555.42.02"}, {12, 4, "550.54.14"},
    {12, 3, "545.23.06"}, {12, 2, "535.54.03"}, {12, 1, "530.30.02"}, {12, 0, "525.60.13"},
    {11, 8, "520.61.05"}, {11, 7, "515.43.04"}, {11, 6, "510.39.01"}, {11, 5, "495.29.05"},
    {11, 4, "470.42.01"}, {11, 3, "465.19.01"}, {11, 2, "460.27.03"}, {11, 1, "455.23"},
    {11, 0, "450.36.06"}, {10, 2, "440.33"},    {10, 1, "418.39"},    {10, 0, "410.48"},
    {9, 2, "396.26"},     {9, 1, "390.46"},     {9, 0, "384.81"},     {8, 0, "367.48"},
    {7, 5, "352.31"},     {7, 0, "346.46"},
};

constexpr Row kTable2[] = {{13, 0, "580"}, {12, 0, "525.60.13"}, {11, 0, "450.80.02"}};

DriverVersion must_parse(const char* text) { return parse_driver_version(text).value(); }

}  // namespace

bool DriverVersion::operator<(const DriverVersion& o) const {
  for (size_t i = 0; i < std::max(parts.size(), o.parts.size()); ++i) {
    unsigned a = i < parts.size() ? parts[i] : 0, b = i < o.parts.size() ? o.parts[i] : 0;
    if (a != b) return a < b;
  }
  return false;
}

std::optional<DriverVersion> parse_driver_version(std::string_view text) {
  text = trim(text);
  DriverVersion v{{}, std::string(text)};
  for (std::string_view part : split(text, '.')) {
    auto n = parse_u64(part);
    if (!n || *n > 1000000) return std::nullopt;
    v.parts.push_back(static_cast<unsigned>(*n));
  }
  if (v.parts.empty() || v.parts.size() > 4 || v.parts[0] < 100) return std::nullopt;
  return v;
}

const std::vector<CudaRelease>& cuda_releases() {
  static const std::vector<CudaRelease> releases = [] {
    std::vector<CudaRelease> out;
    for (const Row& r : kTable3) out.push_back({{r.major, r.minor}, must_parse(r.driver)});
    return out;
  }();
  return releases;
}

std::optional<CudaVersion> max_cuda_for_driver(const DriverVersion& driver) {
  for (const CudaRelease& r : cuda_releases())  // newest first
    if (driver >= r.min_driver) return r.cuda;
  return std::nullopt;
}

std::optional<DriverVersion> min_driver_for(CudaVersion cuda) {
  std::optional<DriverVersion> out;
  for (const CudaRelease& r : cuda_releases())  // newest first: the last at or after wins
    if (r.cuda >= cuda) out = r.min_driver;
  return out;
}

std::optional<DriverVersion> minor_compat_driver(unsigned major) {
  for (const Row& r : kTable2)
    if (r.major == major) return must_parse(r.driver);
  return std::nullopt;
}

CudaFit cuda_fit(const DriverVersion& driver, CudaVersion runtime) {
  const CudaRelease& newest = cuda_releases().front();
  if (runtime > newest.cuda && driver >= newest.min_driver) return CudaFit::unknown;
  if (auto max = max_cuda_for_driver(driver); max && runtime <= *max) return CudaFit::supported;
  if (auto floor = minor_compat_driver(runtime.major); floor && driver >= *floor)
    return CudaFit::minor_compat;
  return CudaFit::unsupported;
}

}  // namespace tuner
