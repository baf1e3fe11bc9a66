// Test support: a systemctl (tuner/knobs/systemd.h) that records every call instead of
// running one. Knobs find it in their KnobContext (there is no global to install).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tuner/knobs/systemd.h"

namespace tuner::testing {

/// Records every systemctl call ("start irqbalance.service"); is-active answers from
/// `active`, which start and stop change as systemd would. on_start / on_stop let a
/// fake machine start or stop the daemon's process as well.
class FakeSystemctl : public Systemctl {
 public:
  bool is_running = true;
  std::string active = "active";
  std::vector<std::string> calls;
  std::function<void()> on_start, on_stop;

  bool running() override { return is_running; }
  Status run(const std::vector<std::string>& args) override {
    std::string c;
    for (const auto& a : args) c += (c.empty() ? "" : " ") + a;
    calls.push_back(c);
    if (args.size() == 2 && args[0] == "start") {
      active = "active";
      if (on_start) on_start();
    }
    if (args.size() == 2 && args[0] == "stop") {
      active = "inactive";
      if (on_stop) on_stop();
    }
    return Ok{};
  }
  Result<std::string> is_active(const std::string& unit) override {
    calls.push_back("is-active " + unit);
    return active;
  }
};

}  // namespace tuner::testing
