// CUDA runtimes: version files as toolkits write them (tests/fixtures/host/cuda), the
// runtime library's file names, and a captured tree with the links a toolkit installs.
#include "probes/cuda.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace tuner {

TEST_CASE("cuda: versions") {
  CHECK(parse_cuda_version("11.6.55") == CudaVersion{11, 6});
  CHECK(parse_cuda_version("11.8.20220929") == CudaVersion{11, 8});
  CHECK(parse_cuda_version("12.2") == CudaVersion{12, 2});
  CHECK(CudaVersion{11, 10} > CudaVersion{11, 9});  // numbers, not text
  CHECK_FALSE(parse_cuda_version("12").has_value());
  CHECK_FALSE(parse_cuda_version("twelve.2").has_value());
  CHECK_FALSE(parse_cuda_version("").has_value());
}

TEST_CASE("cuda: version.json (runtime, else SDK) and version.txt") {
  const std::string w = "usr/local/cuda/version.json";
  CHECK(parse_cuda_version_json(testing::read_test_data("host/cuda/version-11.5.2.json"), w) ==
        "11.5.117");
  CHECK(parse_cuda_version_json(testing::read_test_data("host/cuda/version-11.8-sdk-only.json"),
                                w) == "11.8.20220929");
  CHECK_FALSE(parse_cuda_version_json("{\"cuda\": 11}", w).has_value());
  CHECK_FALSE(parse_cuda_version_json("not json", w).has_value());
  CHECK_FALSE(parse_cuda_version_json(std::string(100000, '['), w).has_value());
  CHECK(parse_cuda_version_txt(testing::read_test_data("host/cuda/version-10.2.txt")) == "10.2.89");
  CHECK_FALSE(parse_cuda_version_txt("CUDA 10.2").has_value());
}

TEST_CASE("cuda: only X.Y.Z names a runtime's release") {
  CHECK(cudart_file_version("libcudart.so.11.6.55") == "11.6.55");
  CHECK(cudart_file_version("libcudart.so.12.2.140") == "12.2.140");
  CHECK_FALSE(cudart_file_version("libcudart.so.11.0").has_value());  // every 11.x's soname
  CHECK_FALSE(cudart_file_version("libcudart.so.12").has_value());
  CHECK_FALSE(cudart_file_version("libcudart.so").has_value());
  CHECK_FALSE(cudart_file_version("libcudart_static.a").has_value());
  CHECK_FALSE(cudart_file_version("libcudart.so.11.6.55.bak").has_value());
}

TEST_CASE("cuda: runtimes of a captured tree, through its links") {
  testing::TempDir root;
  root.write("usr/local/cuda-11.6/version.json",
             testing::read_test_data("host/cuda/version-11.5.2.json"));  // says 11.5.117
  root.write("usr/local/cuda-11.6/targets/x86_64-linux/lib/libcudart.so.11.6.55", "");
  std::filesystem::create_symlink("targets/x86_64-linux/lib", root / "usr/local/cuda-11.6/lib64");
  std::filesystem::create_symlink(
      "libcudart.so.11.6.55",
      root / "usr/local/cuda-11.6/targets/x86_64-linux/lib/libcudart.so.11.0");
  // The alternatives link is absolute: inside a capture it resolves inside the capture.
  std::filesystem::create_symlink("/usr/local/cuda-11.6", root / "usr/local/cuda");
  root.write("usr/local/cuda-10.2/version.txt", "CUDA Version 10.2.89\n");
  root.write("usr/local/cuda-9.0/lib64/libcuda.so.1", "");  // no version file: its name
  root.write("usr/local/cuda-tools/readme", "");            // not a toolkit
  root.write("usr/lib/x86_64-linux-gnu/libcudart.so.12.2.140", "");
  root.write("usr/lib64/libcudart.so.12.4.127", "");

  std::vector<ProbeError> errors;
  auto found = probe_cuda_runtimes(Root::open(root.path).value(), errors);
  CHECK(errors.empty());
  std::vector<std::string> got;
  got.reserve(found.size());
  for (const CudaRuntime& r : found) got.push_back(r.where + " " + r.version);
  CHECK(got == std::vector<std::string>{
                   "usr/local/cuda/version.json 11.5.117",
                   "usr/local/cuda/lib64/libcudart.so.11.6.55 11.6.55",
                   "usr/local/cuda-10.2/version.txt 10.2.89",
                   "usr/local/cuda-11.6/version.json 11.5.117",
                   "usr/local/cuda-11.6/lib64/libcudart.so.11.6.55 11.6.55",
                   "usr/local/cuda-9.0 9.0",
                   "usr/lib/x86_64-linux-gnu/libcudart.so.12.2.140 12.2.140",
                   "usr/lib64/libcudart.so.12.4.127 12.4.127",
               });
  REQUIRE(found.size() == 8);
  CHECK(found[6].cuda == CudaVersion{12, 2});
}

TEST_CASE("cuda: nothing installed is nothing; a hostile version file is an error") {
  testing::TempDir root;
  std::vector<ProbeError> errors;
  CHECK(probe_cuda_runtimes(Root::open(root.path).value(), errors).empty());
  CHECK(errors.empty());

  root.write("usr/local/cuda-12.2/version.json", "{\"cuda\": {\"version\": \"latest\"}}");
  REQUIRE(::mkfifo((root / "usr/local/cuda-12.3").c_str(), 0600) == 0);  // not a directory
  std::filesystem::create_directories(root / "usr/local/cuda-12.4");
  REQUIRE(::mkfifo((root / "usr/local/cuda-12.4/version.json").c_str(), 0600) == 0);
  auto found = probe_cuda_runtimes(Root::open(root.path).value(), errors);
  CHECK(found.empty());
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].probe == "cuda");
  CHECK(errors[0].message.find("'latest' is not a CUDA version") != std::string::npos);
  CHECK(errors[1].message.find("cuda-12.4/version.json") != std::string::npos);
}

}  // namespace tuner
