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
