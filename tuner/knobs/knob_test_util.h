// Helpers for the knob tests: a temporary directory and a systemctl that records.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tuner/knobs/systemd.h"

namespace tuner::test {

struct TempDir {
  std::string path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tuner-knob-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Records every systemctl call; is-active answers from `active`.
class FakeSystemctl : public Systemctl {
 public:
  bool is_running = true;
  std::string active = "active";
  std::vector<std::string> calls;

  FakeSystemctl() { set_systemctl(this); }
  ~FakeSystemctl() override { set_systemctl(nullptr); }

  bool running() override { return is_running; }
  Status run(const std::vector<std::string>& args) override {
    std::string c;
    for (const auto& a : args) c += (c.empty() ? "" : " ") + a;
    calls.push_back(c);
    if (args.size() == 2 && args[0] == "start") active = "active";
    if (args.size() == 2 && args[0] == "stop") active = "inactive";
    return Ok{};
  }
  Result<std::string> is_active(const std::string& unit) override {
    calls.push_back("is-active " + unit);
    return active;
  }
};

}  // namespace tuner::test
