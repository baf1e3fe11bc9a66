// The CUDA rule on the R910 capture with an NVIDIA driver and CUDA runtimes laid over it
// (tests/fixtures/check: nvidia-470 is a real /proc/driver/nvidia/version of 470.57.02,
// CUDA 11.4; cuda-11.6 a toolkit tree with its links; cudart-12.2 a distribution's
// runtime library).
#include <doctest/doctest.h>

#include "tests/support/check_node.h"

namespace tuner {

using testing::check_one;
using testing::findings;
using testing::skipped;
using testing::unreadable;
using Node = testing::CheckNode;

TEST_CASE("check: CUDA runtimes newer than the NVIDIA driver's CUDA") {
  SUBCASE("driver 470.57.02 (CUDA 11.4) beside an 11.6 toolkit: minor version compatibility") {
    Node node({"nvidia-470", "cuda-11.6"});
    CheckReport r = node.check();
    check_one(r, Rule::gpu_cuda_newer_than_driver, "CUDA 11.6", Severity::warning);
    const Finding& f = *findings(r, Rule::gpu_cuda_newer_than_driver)[0];
    CHECK(f.evidence[0].value == "470.57.02");
    CHECK(f.evidence[1].value == "11.4");
    // Every place that says 11.6, through the usr/local/cuda link too; the libcudart.so.11.0
    // soname link is not read as a CUDA 11.0 runtime, and the 11.4 toolkit is fine.
    std::vector<std::string> where;
    for (const Evidence& e : f.evidence) where.push_back(e.what + " = " + e.value);
    const std::string driver =
        "NVIDIA driver (proc/driver/nvidia/version, else sys/module/nvidia/version) = 470.57.02";
    CHECK(where == std::vector<std::string>{
                       driver,
                       "its CUDA version (NVIDIA release notes, Table 3) = 11.4",
                       "usr/local/cuda/version.json = 11.6.55",
                       "usr/local/cuda/lib64/libcudart.so.11.6.55 = 11.6.55",
                       "usr/local/cuda-11.6/version.json = 11.6.55",
                       "usr/local/cuda-11.6/lib64/libcudart.so.11.6.55 = 11.6.55",
                       "driver CUDA 11.6 needs for full support = >= 510.39.01",
                   });
    CHECK(f.summary.find("minor version compatibility") != std::string::npos);
    CHECK(r.findings.size() == 1);
  }
  SUBCASE("and a CUDA 12.2 runtime: a newer major cannot start, an error") {
    Node node({"nvidia-470", "cuda-11.6", "cudart-12.2"});
    CheckReport r = node.check();
    auto got = findings(r, Rule::gpu_cuda_newer_than_driver);
    REQUIRE(got.size() == 2);
    CHECK(got[0]->subject == "CUDA 12.2");  // most severe first
    CHECK(got[0]->severity == Severity::error);
    CHECK(got[0]->summary.find("cudaErrorInsufficientDriver") != std::string::npos);
    CHECK(got[0]->summary.find("525.60.13") != std::string::npos);  // 12.x's minimum
    CHECK(got[0]->evidence[2].what == "usr/lib/x86_64-linux-gnu/libcudart.so.12.2.140");
    CHECK(got[1]->subject == "CUDA 11.6");
    CHECK(got[1]->severity == Severity::warning);
    CHECK(r.worst() == Severity::error);
  }
  SUBCASE("a driver whose CUDA covers them all: nothing") {
    Node node({"nvidia-470", "cuda-11.6", "cudart-12.2"});
    CheckReport r = node.check({}, [](CheckInput& in) { in.cuda->driver = "535.104.05"; });
    CHECK(findings(r, Rule::gpu_cuda_newer_than_driver).empty());
    CHECK_FALSE(skipped(r, Rule::gpu_cuda_newer_than_driver));
  }
  SUBCASE("runtimes but no NVIDIA driver: skipped, with why") {
    Node node{"cuda-11.6"};
    CheckReport r = node.check();
    CHECK(findings(r, Rule::gpu_cuda_newer_than_driver).empty());
    CHECK(skipped(r, Rule::gpu_cuda_newer_than_driver));
    CHECK_FALSE(unreadable(r, Rule::gpu_cuda_newer_than_driver));
  }
  SUBCASE("a driver version that is not one: unreadable, nothing guessed") {
    Node node({"nvidia-470", "cuda-11.6"});
    CheckReport r = node.check({}, [](CheckInput& in) { in.cuda->driver = "latest"; });
    CHECK(unreadable(r, Rule::gpu_cuda_newer_than_driver));
    CHECK(findings(r, Rule::gpu_cuda_newer_than_driver).empty());
  }
}

}  // namespace tuner
