// STUB: the irqbalance knob, to be implemented.
#include "tuner/knobs/knob.h"

namespace tuner {

Result<std::unique_ptr<Knob>> make_irqbalance_knob(const std::string& id, KnobContext&) {
  return Error{"not implemented", id, 0};
}

}  // namespace tuner
