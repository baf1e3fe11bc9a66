#include "tuner/knobs/systemd.h"

#include <unistd.h>

#include "base/runner.h"
#include "base/strings.h"

namespace tuner {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& a : v) s += (s.empty() ? "" : " ") + a;
  return s;
}

class RealSystemctl : public Systemctl {
 public:
  bool running() override { return ::access("/run/systemd/system", F_OK) == 0; }

  Status run(const std::vector<std::string>& args) override {
    RunSpec spec = command(args);
    auto r = runner_.run(spec);
    if (!r.ok()) return r.error();
    if (!r->success())
      return Error::io("systemctl " + join(args) + " " + r->describe(spec) +
                           (r->err.empty() ? "" : ": " + normalize_ws(r->stderr_tail())),
                       "systemctl");
    return Ok{};
  }

  Result<std::string> is_active(const std::string& unit) override {
    RunSpec spec = command({"is-active", unit});
    auto r = runner_.run(spec);
    if (!r.ok()) return r.error();
    // A non-zero status just means "not active"; the word says which.
    std::string state = normalize_ws(r->out);
    if (state.empty())
      return Error::io("systemctl is-active " + unit + " said nothing" +
                           (r->err.empty() ? "" : ": " + normalize_ws(r->stderr_tail())),
                       "systemctl");
    return state;
  }

 private:
  static RunSpec command(const std::vector<std::string>& args) {
    RunSpec spec;
    spec.argv = {"systemctl"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    // daemon-reload and a restart of irqbalance take seconds; a minute means stuck.
    spec.timeout = std::chrono::seconds(60);
    spec.max_output = std::size_t{64} * 1024;
    return spec;
  }

  ProcessRunner runner_;
};

}  // namespace

bool unit_state_active(const std::string& state) {
  return state == "active" || state == "activating" || state == "reloading";
}

Systemctl& real_systemctl() {
  static RealSystemctl real;
  return real;
}

}  // namespace tuner
