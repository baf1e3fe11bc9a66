// NVIDIA's driver table as the CUDA rule reads it: drivers of the field (470.57.02 is
// CUDA 11.4), the newest rows, minor version compatibility within a major.
#include "tuner/check/cuda_table.h"

#include <doctest/doctest.h>

namespace tuner {
namespace {

DriverVersion drv(const char* text) { return parse_driver_version(text).value(); }

}  // namespace

TEST_CASE("cuda table: driver versions") {
  CHECK(drv("470.57.02").parts == std::vector<unsigned>{470, 57, 2});
  CHECK(drv("455.23") >= drv("455.23.0"));
  CHECK(drv("535.104.05") >= drv("535.54.03"));  // numbers, not text
  CHECK(drv("535.54.03") < drv("535.104.05"));
  CHECK_FALSE(parse_driver_version("").has_value());
  CHECK_FALSE(parse_driver_version("470.57.02-beta").has_value());
  CHECK_FALSE(parse_driver_version("1.0").has_value());
  CHECK(parse_driver_version(" 580.95.05\n").has_value());
}

TEST_CASE("cuda table: each driver's CUDA version") {
  CHECK(max_cuda_for_driver(drv("470.57.02")) == CudaVersion{11, 4});
  CHECK(max_cuda_for_driver(drv("470.42.01")) == CudaVersion{11, 4});
  CHECK(max_cuda_for_driver(drv("470.42.00")) == CudaVersion{11, 3});
  CHECK(max_cuda_for_driver(drv("510.39.01")) == CudaVersion{11, 6});
  CHECK(max_cuda_for_driver(drv("525.60.13")) == CudaVersion{12, 0});
  CHECK(max_cuda_for_driver(drv("535.104.05")) == CudaVersion{12, 2});
  CHECK(max_cuda_for_driver(drv("550.54.15")) == CudaVersion{12, 4});
  CHECK(max_cuda_for_driver(drv("570.26")) == CudaVersion{12, 8});
  CHECK(max_cuda_for_driver(drv("580.65.06")) == CudaVersion{13, 0});
  CHECK(max_cuda_for_driver(drv("595.45.04")) == CudaVersion{13, 2});
  CHECK(max_cuda_for_driver(drv("999.1")) == CudaVersion{13, 2});
  CHECK_FALSE(max_cuda_for_driver(drv("340.108")).has_value());
  CHECK(min_driver_for({11, 6})->text == "510.39.01");
  CHECK(min_driver_for({12, 7})->text == "570.26");  // never released: 12.8's
  CHECK_FALSE(min_driver_for({14, 0}).has_value());
  CHECK(minor_compat_driver(11)->text == "450.80.02");
  CHECK_FALSE(minor_compat_driver(10).has_value());
}

TEST_CASE("cuda table: the table is ordered, newest first") {
  const auto& rows = cuda_releases();
  REQUIRE(rows.size() > 20);
  for (size_t i = 1; i < rows.size(); ++i) {
    CAPTURE(i);
    CHECK(rows[i].cuda < rows[i - 1].cuda);
    CHECK(rows[i].min_driver < rows[i - 1].min_driver);
  }
}

TEST_CASE("cuda table: how a runtime runs on a driver") {
  // The field case: a 470 driver (CUDA 11.4) under software built for 11.6.
  CHECK(cuda_fit(drv("470.57.02"), {11, 6}) == CudaFit::minor_compat);
  CHECK(cuda_fit(drv("470.57.02"), {11, 4}) == CudaFit::supported);
  CHECK(cuda_fit(drv("470.57.02"), {10, 2}) == CudaFit::supported);
  CHECK(cuda_fit(drv("470.57.02"), {12, 2}) == CudaFit::unsupported);  // a newer major
  CHECK(cuda_fit(drv("450.51.06"), {11, 2}) == CudaFit::unsupported);  // below 450.80.02
  CHECK(cuda_fit(drv("450.80.02"), {11, 8}) == CudaFit::minor_compat);
  CHECK(cuda_fit(drv("418.39"), {10, 2}) == CudaFit::unsupported);  // 10.x had no such thing
  CHECK(cuda_fit(drv("535.104.05"), {12, 4}) == CudaFit::minor_compat);
  CHECK(cuda_fit(drv("535.104.05"), {13, 0}) == CudaFit::unsupported);
  CHECK(cuda_fit(drv("580.65.06"), {13, 2}) == CudaFit::minor_compat);
  // Past the table: a newer driver may well run it; the table cannot say.
  CHECK(cuda_fit(drv("600.10"), {13, 5}) == CudaFit::unknown);
  CHECK(cuda_fit(drv("600.10"), {14, 0}) == CudaFit::unknown);
  CHECK(cuda_fit(drv("570.26"), {14, 0}) == CudaFit::unsupported);
}

}  // namespace tuner
