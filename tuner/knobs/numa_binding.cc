#include "base/strings.h"
#include "tuner/knobs/numa_knobs.h"

namespace tuner {

Result<std::unique_ptr<Knob>> make_numa_knob(const std::string& id, KnobContext& ctx) {
  if (starts_with(id, "numa:unit:")) return make_numa_unit_knob(id, id.substr(10), ctx);
  if (starts_with(id, "numa:cgroup:")) return make_numa_cgroup_knob(id, id.substr(12), ctx);
  if (starts_with(id, "numa:pid:")) return make_numa_process_knob(id, id.substr(9), ctx);
  return Error::invalid("unknown numa knob (expected numa:unit:NAME, numa:cgroup:PATH or "
               "numa:pid:PID@STARTTIME)",
               id);
}

}  // namespace tuner
