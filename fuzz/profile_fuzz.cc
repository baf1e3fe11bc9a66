// libFuzzer target: one profile file's text, through what `tuner` does with a profile
// that includes nothing: the nesting limit, toml++, every table's checks
// (tuner/profile/parse.h), then the merge and the group claims of the loader
// (tuner/profile/load.cc).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tuner/profile/merge.h"
#include "tuner/profile/parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto file = tuner::parse_profile_file(text, "fuzz.toml");
  if (!file.ok()) return 0;
  tuner::Profile profile;
  tuner::merge_into(profile, file->profile);
  // Twice, as a profile included by another is laid over by it.
  tuner::merge_into(profile, file->profile);
  auto status = tuner::apply_group_members(profile, tuner::group_claims(file->profile));
  (void)status;
  return 0;
}
