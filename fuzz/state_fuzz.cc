// libFuzzer target: state.json (rollback/state.h) as restore, status and apply read
// it. A state that parses must encode to text that parses to the same state.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "rollback/state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto state = tuner::parse_state(text, "fuzz/state.json");
  if (!state.ok()) return 0;
  std::string encoded = tuner::encode_state(*state);
  auto again = tuner::parse_state(encoded, "re-encoded");
  if (!again.ok() || tuner::encode_state(*again) != encoded) std::abort();
  // The first kept knob, forgotten and kept again, as rollback and apply do.
  // (Its fields only: a KeptKnob's copy is recursive through `earlier`.)
  if (!state->knobs.empty()) {
    const auto& [first_id, first] = *state->knobs.begin();
    std::string id = first_id;
    tuner::KeptKnob kept{.value = first.value,
                         .before = first.before,
                         .run_id = first.run_id,
                         .group = first.group,
                         .earlier = {}};
    tuner::forget_knob(*state, id, kept.run_id);
    tuner::keep_knob(*state, id, std::move(kept));
  }
  return 0;
}
