// The probe's text report names the node's hardware class.
#include "tuner/cli/report/probe_text.h"

#include <doctest/doctest.h>

#include "probes/hw_class.h"
#include "tuner/cli/report/term.h"

using namespace tuner;

TEST_CASE("probe text: the hardware class key, how many facts, and the label") {
  const Term plain(ColorMode::never, 1);
  Inventory inv;
  inv.host.cpu_model = "Xeon";
  std::string text = plain.printable(format_probe_report(inv, plain));
  HwClass c = hw_class(inv);
  CHECK(text.find("      class " + c.key + " (" + std::to_string(c.facts.size()) +
                  " facts; probe --json lists them)\n") != std::string::npos);
  inv.class_label = "rack-a";
  text = plain.printable(format_probe_report(inv, plain));
  CHECK(text.find("class " + hw_class(inv, "rack-a").key) != std::string::npos);
  CHECK(text.find(", label rack-a;") != std::string::npos);
}

TEST_CASE("probe text: the idle states with their exit latencies, when known") {
  const Term plain(ColorMode::never, 1);
  Inventory inv;
  CHECK(plain.printable(format_probe_report(inv, plain)).find("cpuidle") == std::string::npos);
  inv.cpuidle = Cpuidle{0,
                        "intel_idle",
                        {{0, "POLL", true, 0, false},
                         {1, "C1", false, 2, false},
                         {2, "C1E", false, std::nullopt, false},
                         {3, "C6", false, 133, true}}};
  CHECK(plain.printable(format_probe_report(inv, plain))
            .find("cpuidle  intel_idle on CPU 0: POLL 0 us, C1 2 us, C1E ? us, C6 133 us "
                  "(disabled)\n") != std::string::npos);
}
