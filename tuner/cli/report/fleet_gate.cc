#include "tuner/cli/report/fleet_gate.h"

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {

Result<FleetGate> parse_fleet_gate(const std::vector<std::string>& values) {
  FleetGate gate;
  for (const std::string& value : values)
    for (std::string_view word : split(value, ',')) {
      word = trim(word);
      if (word == "failed") gate.failed = true;
      else if (word == "drift") gate.drift = true;
      else
        return Error::invalid(fmt::format(
            "--fail-on: expected failed or drift (or both, comma-separated), got '{}'", word));
    }
  return gate;
}

FleetVerdict fleet_verdict(const FleetSummary& s, const FleetGate& gate) {
  auto nodes = [](std::size_t n) { return fmt::format("{} node{}", n, n == 1 ? "" : "s"); };
  if (gate.failed && s.failed) return {1, nodes(s.failed) + " failed"};
  if (gate.drift && !s.unfinished.empty())
    return {4, nodes(s.unfinished.size()) + " with an unfinished run"};
  if (gate.drift && s.drifted) return {3, nodes(s.drifted) + " with drifted settings"};
  return {};
}

}  // namespace tuner
