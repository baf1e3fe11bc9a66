// libFuzzer target: a tuned profile's tuned.conf (probes/tuned.h) and a NetworkManager
// keyfile (probes/nm_keyfile.h), the two files tuner check reads from other daemons,
// and tuned's devices= selections, on the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "probes/nm_keyfile.h"
#include "probes/tuned.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto conf = tuner::parse_tuned_conf(text, "tuned.conf");
  if (conf.ok())
    for (const auto& section : conf->sections) {
      if (section.name.empty()) std::abort();  // refused, never parsed
      for (const auto& option : section.options) {
        if (option.key.empty() || option.line < 1) std::abort();
        (void)tuner::tuned_computed(option.value);
        (void)tuner::tuned_devices_match(option.value, "eth0");
      }
    }
  auto nm = tuner::parse_nm_keyfile(text, "x.nmconnection");
  if (nm.ok() && nm->id.empty()) std::abort();  // the file's name at least
  return 0;
}
