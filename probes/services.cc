#include "probes/services.h"

#include "base/strings.h"

namespace tuner {

UnitEnablement unit_enablement(const Root& root, std::string_view unit) {
  UnitEnablement e;
  // etc/ and run/ first: a mask there overrides any enablement.
  for (const char* dir : {"etc/systemd/system", "run/systemd/system"}) {
    std::string path = std::string(dir) + "/" + std::string(unit);
    if (auto target = root.readlink(path); target.ok() && *target == "/dev/null") {
      e.masked = true;
      e.via = path;
      return e;
    }
  }
  for (const char* dir : {"etc/systemd/system", "run/systemd/system", "usr/lib/systemd/system",
                          "lib/systemd/system"}) {
    auto names = root.list(dir);
    if (!names.ok()) continue;
    for (const std::string& name : *names) {
      if (!name.ends_with(".wants") && !name.ends_with(".requires")) continue;
      std::string path = std::string(dir) + "/" + name + "/" + std::string(unit);
      if (root.readlink(path).ok() || root.exists(path)) {
        e.enabled = true;
        e.via = path;
        return e;
      }
    }
  }
  return e;
}

Result<std::optional<bool>> process_running(const Root& root, std::string_view comm) {
  auto pids = root.list("proc");
  if (!pids.ok()) return pids.error();
  bool any = false;
  for (const std::string& pid : *pids) {
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    any = true;
    // Processes come and go, and others' comm may be hidden (hidepid): skip quietly.
    if (auto c = root.read("proc/" + pid + "/comm"); c.ok() && trim(*c) == comm)
      return std::optional<bool>(true);
  }
  if (!any) return std::optional<bool>();  // a capture without processes cannot say
  return std::optional<bool>(false);
}

}  // namespace tuner
