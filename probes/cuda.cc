#include "probes/cuda.h"

#include <cerrno>

#include <nlohmann/json.hpp>

#include "base/json_nesting.h"
#include "base/strings.h"

namespace tuner {
namespace {

constexpr const char* kLibDirs[] = {"usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu",
                                    "usr/lib64"};

void note(std::vector<ProbeError>& errors, const Error& e) {
  errors.push_back({"cuda", e.message()});
}

/// Not there: no such entry, or something else than a directory on the way.
bool absent(const Error& e) { return e.err == ENOENT || e.err == ENOTDIR; }

/// A directory's names; a directory that is not there has none.
std::vector<std::string> list_or_none(const Root& root, const std::string& dir,
                                      std::vector<ProbeError>& errors) {
  auto names = root.list(dir);
  if (names.ok()) return std::move(names).value();
  if (!absent(names.error())) note(errors, names.error());
  return {};
}

/// Adds the runtime `version` says is at `where`, if it names one.
void add(std::vector<CudaRuntime>& out, const std::string& version, const std::string& where,
         std::vector<ProbeError>& errors) {
  auto cuda = parse_cuda_version(version);
  if (!cuda) {
    note(errors, Error::invalid("'" + version.substr(0, 40) + "' is not a CUDA version", where));
    return;
  }
  out.push_back({version, *cuda, where});
}

void add_libraries(const Root& root, const std::string& dir, std::vector<CudaRuntime>& out,
                   std::vector<ProbeError>& errors) {
  for (const std::string& name : list_or_none(root, dir, errors))
    if (auto v = cudart_file_version(name)) add(out, *v, dir + "/" + name, errors);
}

/// usr/local/cuda or usr/local/cuda-X.Y: its version file (else its name), its runtime.
void add_toolkit(const Root& root, const std::string& name, std::vector<CudaRuntime>& out,
                 std::vector<ProbeError>& errors) {
  const std::string dir = "usr/local/" + name;
  if (auto json = root.read(dir + "/version.json"); json.ok()) {
    if (auto v = parse_cuda_version_json(*json, dir + "/version.json"))
      add(out, *v, dir + "/version.json", errors);
    else
      note(errors, Error::invalid("no \"cuda_cudart\" or \"cuda\" version", dir + "/version.json"));
  } else if (!absent(json.error())) {
    note(errors, json.error());
  } else if (auto txt = root.read(dir + "/version.txt"); txt.ok()) {
    if (auto v = parse_cuda_version_txt(*txt)) add(out, *v, dir + "/version.txt", errors);
    else note(errors, Error::invalid("no 'CUDA Version X.Y.Z'", dir + "/version.txt"));
  } else if (!absent(txt.error())) {
    note(errors, txt.error());
  } else if (name != "cuda" && parse_cuda_version(name.substr(5)) && root.exists(dir + "/lib64")) {
    // A toolkit without a version file still names its release: cuda-11.6.
    add(out, name.substr(5), dir, errors);
  }
  add_libraries(root, dir + "/lib64", out, errors);
}

}  // namespace

std::optional<CudaVersion> parse_cuda_version(std::string_view text) {
  auto parts = split(trim(text), '.');
  if (parts.size() < 2) return std::nullopt;
  auto major = parse_u64(parts[0]), minor = parse_u64(parts[1]);
  if (!major || !minor || *major > 1000 || *minor > 1000) return std::nullopt;
  return CudaVersion{static_cast<unsigned>(*major), static_cast<unsigned>(*minor)};
}

std::optional<std::string> parse_cuda_version_json(std::string_view text,
                                                   const std::string& where) {
  if (!check_json_nesting(text, where).ok()) return std::nullopt;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  for (const char* key : {"cuda_cudart", "cuda"}) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_object()) continue;
    auto v = it->find("version");
    if (v != it->end() && v->is_string()) return v->get<std::string>();
  }
  return std::nullopt;
}

std::optional<std::string> parse_cuda_version_txt(std::string_view text) {
  auto words = split_ws(text);
  if (words.size() >= 3 && words[0] == "CUDA" && words[1] == "Version")
    return std::string(words[2]);
  return std::nullopt;
}

std::optional<std::string> cudart_file_version(std::string_view name) {
  constexpr std::string_view prefix = "libcudart.so.";
  if (!starts_with(name, prefix)) return std::nullopt;
  std::string_view v = name.substr(prefix.size());
  auto parts = split(v, '.');
  if (parts.size() != 3) return std::nullopt;
  for (std::string_view p : parts)
    if (!parse_u64(p)) return std::nullopt;
  return std::string(v);
}

std::vector<CudaRuntime> probe_cuda_runtimes(const Root& root, std::vector<ProbeError>& errors) {
  std::vector<CudaRuntime> out;
  for (const std::string& name : list_or_none(root, "usr/local", errors))
    if (name == "cuda" || starts_with(name, "cuda-")) add_toolkit(root, name, out, errors);
  for (const char* dir : kLibDirs) add_libraries(root, dir, out, errors);
  return out;
}

}  // namespace tuner
