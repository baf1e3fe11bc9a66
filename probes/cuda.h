// The CUDA runtimes installed on the node, where software finds them: toolkit
// directories (usr/local/cuda, usr/local/cuda-X.Y, their version.json or, before CUDA
// 11.1, version.txt) and the runtime library libcudart.so.X.Y.Z in the usual library
// directories. Read through the Root, so a --root capture answers as the live machine.
// Runtimes inside container images or Python wheels are not on the host's paths: a
// node can run newer ones than this finds.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// A CUDA version's major and minor ("11.6.55" -> 11, 6).
struct CudaVersion {
  unsigned major = 0, minor = 0;
  bool operator==(const CudaVersion&) const = default;
  // Spelled out: clang-tidy 14 misreads a defaulted operator<=> (modernize-use-nullptr).
  bool operator<(const CudaVersion& o) const {
    return major != o.major ? major < o.major : minor < o.minor;
  }
  bool operator>(const CudaVersion& o) const { return o < *this; }
  bool operator<=(const CudaVersion& o) const { return !(o < *this); }
  bool operator>=(const CudaVersion& o) const { return !(*this < o); }
};

/// "11.6", "11.6.55", "11.8.20220929" -> {11, 6}; nullopt unless it starts with two
/// numbers joined by a dot.
std::optional<CudaVersion> parse_cuda_version(std::string_view text);

/// One place that says a runtime is installed, and which.
struct CudaRuntime {
  std::string version;  // as found: "11.6.55", "11.8.20220929", "11.6" (a directory's name)
  CudaVersion cuda;
  std::string where;  // the file or directory that says so: "usr/local/cuda-11.6/version.json"
};

/// A toolkit's version.json: "cuda_cudart" (the runtime itself), else "cuda" (the SDK).
std::optional<std::string> parse_cuda_version_json(std::string_view text, const std::string& where);
/// A toolkit's version.txt (CUDA 11.0 and older): "CUDA Version 10.2.89".
std::optional<std::string> parse_cuda_version_txt(std::string_view text);
/// The version in a runtime library's file name: "libcudart.so.11.6.55" -> "11.6.55".
/// nullopt for the links named after the ABI ("libcudart.so.11.0" is every 11.x
/// runtime's soname, "libcudart.so.12" every 12.x's): only X.Y.Z names the release.
std::optional<std::string> cudart_file_version(std::string_view name);

/// Every runtime of usr/local/cuda and usr/local/cuda-* (version.json, else
/// version.txt, else the directory's name; then lib64/libcudart.so.X.Y.Z) and of
/// usr/lib/x86_64-linux-gnu, usr/lib/aarch64-linux-gnu and usr/lib64. A directory that
/// is not there is nothing; one that cannot be read, or a version file that does not
/// parse, is an entry in `errors` (probe "cuda").
std::vector<CudaRuntime> probe_cuda_runtimes(const Root& root, std::vector<ProbeError>& errors);

}  // namespace tuner
