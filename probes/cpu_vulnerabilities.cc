#include "probes/cpu_vulnerabilities.h"

#include <cerrno>

#include "base/strings.h"

namespace tuner {
namespace {

constexpr const char* kDir = "sys/devices/system/cpu/vulnerabilities";

}  // namespace

bool is_vulnerable(std::string_view verdict) { return starts_with(trim(verdict), "Vulnerable"); }

std::optional<std::map<std::string, std::string>> probe_cpu_vulnerabilities(
    const Root& root, std::vector<ProbeError>& errors) {
  auto names = root.list(kDir);
  if (!names.ok()) {
    // A kernel before 4.15 has sys/devices/system/cpu without it: nothing to say. A root
    // without sys/devices/system/cpu (an empty capture) cannot say which kernel it was.
    if (names.error().err != ENOENT || !root.exists("sys/devices/system/cpu"))
      errors.push_back({"vulnerabilities", names.error().message()});
    return std::nullopt;
  }
  std::map<std::string, std::string> out;
  for (const std::string& name : *names) {
    auto text = root.read(std::string(kDir) + "/" + name);
    if (!text.ok()) {
      errors.push_back({"vulnerabilities", text.error().message()});
      continue;
    }
    out[name] = std::string(trim(*text));
  }
  return out;
}

std::string vulnerable_names(const std::map<std::string, std::string>& verdicts) {
  std::string out;
  for (const auto& [name, verdict] : verdicts)
    if (is_vulnerable(verdict)) out += (out.empty() ? "" : ",") + name;
  return out.empty() ? "none" : out;
}

}  // namespace tuner
