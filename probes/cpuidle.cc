#include "probes/cpuidle.h"

#include <algorithm>

#include "base/strings.h"

namespace tuner {
namespace {

const char* const kCpu = "sys/devices/system/cpu";

/// The first CPU of sys/devices/system/cpu/online ("0-63" -> 0), else 0.
unsigned first_online_cpu(const Root& root) {
  auto text = root.read(std::string(kCpu) + "/online");
  if (!text.ok()) return 0;
  auto cpus = CpuSet::parse(trim(*text));
  if (!cpus.ok() || cpus->empty()) return 0;
  return cpus->cpus().front();
}

/// Not there: no such entry, or something else than a directory on the way.
bool absent(const Error& e) { return e.err == ENOENT || e.err == ENOTDIR; }

/// A file of one number ("290\n"); nullopt when it is not there, and also, with an entry
/// in errors, when it holds something else: then `field` of the state is unknown.
std::optional<uint64_t> read_number(const Root& root, const std::string& path, const char* field,
                                    std::vector<ProbeError>& errors) {
  auto text = root.read(path);
  if (!text.ok()) {
    if (!absent(text.error())) errors.push_back({"cpuidle", text.error().message()});
    return std::nullopt;
  }
  auto n = parse_u64(*text);
  if (!n)
    errors.push_back(
        {"cpuidle", Error::invalid("'" + escape_controls(trim(*text).substr(0, 40)) +
                                       "' is not a number: the state's " + field + " is unknown",
                                   path)
                        .message()});
  return n;
}

}  // namespace

std::optional<Cpuidle> probe_cpuidle(const Root& root, std::vector<ProbeError>& errors) {
  Cpuidle table;
  table.cpu = first_online_cpu(root);
  std::string dir = std::string(kCpu) + "/cpu" + std::to_string(table.cpu) + "/cpuidle";
  auto names = root.list(dir);
  if (!names.ok()) {
    if (!absent(names.error())) errors.push_back({"cpuidle", names.error().message()});
    return std::nullopt;
  }
  for (const std::string& name : *names) {
    if (!starts_with(name, "state")) continue;
    auto k = parse_u64(std::string_view(name).substr(5));
    if (!k || name.size() == 5 || *k > 1000) continue;
    std::string state = dir + "/" + name;
    auto state_name = root.read(state + "/name");
    if (!state_name.ok()) {
      errors.push_back({"cpuidle", state_name.error().message()});
      continue;
    }
    IdleState s;
    s.index = static_cast<unsigned>(*k);
    s.name = std::string(trim(*state_name));
    auto desc = root.read(state + "/desc");
    s.polling = s.name == "POLL" || (desc.ok() && trim(*desc) == "CPUIDLE CORE POLL IDLE");
    if (auto us = read_number(root, state + "/latency", "exit latency", errors);
        us && *us <= UINT32_MAX)
      s.latency_us = static_cast<unsigned>(*us);
    if (auto off = read_number(root, state + "/disable", "disable flag", errors); off && *off <= 1)
      s.disabled = *off == 1;
    table.states.push_back(std::move(s));
  }
  if (table.states.empty()) return std::nullopt;
  std::sort(table.states.begin(), table.states.end(),
            [](const IdleState& a, const IdleState& b) { return a.index < b.index; });
  if (auto driver = root.read(std::string(kCpu) + "/cpuidle/current_driver"); driver.ok())
    table.driver = std::string(trim(*driver));
  return table;
}

}  // namespace tuner
