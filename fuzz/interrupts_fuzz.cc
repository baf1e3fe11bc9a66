// libFuzzer target: /proc/interrupts text (probes/irq.h), and each IRQ's name through
// the per-driver vector names (probes/irq_names.h), as probe_irqs reads them.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "probes/irq.h"
#include "probes/irq_names.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto cpus = tuner::parse_interrupts_cpus(text);
  auto irqs = tuner::parse_interrupts(text);
  if (!irqs.ok()) return 0;
  // The columns a parsed line has are the header's columns.
  if (cpus.ok())
    for (const tuner::Irq& irq : *irqs)
      if (irq.per_cpu.size() != cpus->size()) std::abort();
  std::vector<std::string> names;
  names.reserve(irqs->size());
  for (const tuner::Irq& irq : *irqs) names.push_back(irq.name);
  tuner::FunctionVectors fn = tuner::summarize_vectors(names);
  const std::vector<std::string> netdevs = {"eth0", "ens1f0"};
  for (const std::string& name : names) {
    (void)tuner::classify_vector(name, netdevs, fn, true);
    (void)tuner::classify_vector(name, {}, fn, false);
  }
  return 0;
}
