#include "tuner/knobs/knob.h"

#include "base/strings.h"

namespace tuner {

Result<std::unique_ptr<Knob>> make_knob(const std::string& id, KnobContext& ctx) {
  if (starts_with(id, "sysctl:")) return make_sysctl_knob(id, ctx);
  if (starts_with(id, "irq:")) return make_irq_knob(id, ctx);
  if (starts_with(id, "nic:")) return make_nic_knob(id, ctx);
  if (starts_with(id, "numa:")) return make_numa_knob(id, ctx);
  if (starts_with(id, "irqbalance:")) return make_irqbalance_knob(id, ctx);
  return Error::invalid("unknown knob kind", id);
}

}  // namespace tuner
