// Quoted text stays on its line: a newline in a hostname, a group's name or a report
// file's (node's) name is shown as \n, so text tuner did not write cannot forge a line
// of its output (an "all kept" line, a fleet outcome). The output's own line breaks stay.
#include <doctest/doctest.h>

#include <string>

#include "tuner/cli/report/fleet.h"
#include "tuner/cli/report/probe_text.h"
#include "tuner/cli/report/run_text.h"
#include "tuner/cli/report/term.h"

using namespace tuner;

namespace {

const Term kPlain(ColorMode::never, 1);

}  // namespace

TEST_CASE("one line: a newline in a hostname, a group or a node's file name is escaped") {
  Inventory inv;
  inv.host.hostname = "node7\nhost  forged kernel 9.9";
  std::string probe = kPlain.printable(format_probe_report(inv, kPlain));
  CHECK(probe.find("node7\\nhost  forged kernel 9.9 kernel") != std::string::npos);
  CHECK(probe.find("\nhost  forged") == std::string::npos);

  RunReport run;
  run.run_id = "20261201T000000Z-abcd";
  run.groups.push_back({"sysctl\n  group all (kept: gain)",
                        GroupDecision::rolled_back,
                        {},
                        nlohmann::json::object()});
  std::string text = kPlain.printable(format_run_report(run, kPlain));
  CHECK(text.find("  group sysctl\\n  group all (kept: gain) (rolled_back") != std::string::npos);
  CHECK(text.find("\n  group all") == std::string::npos);

  NodeReport a, b, c;
  a.node = "web1";
  a.kind = b.kind = c.kind = "run";
  a.decisions = c.decisions = {{"sysctl", "kept"}};
  c.node = "web3";
  // The minority outcome lists its nodes: the one whose file name holds a newline.
  b.node = "web2\n    1 nodes  kept everything";
  b.decisions = {{"sysctl\nx", "rolled_back"}};
  std::string fleet = kPlain.printable(format_fleet_text(summarize_fleet({a, b, c}), kPlain));
  INFO(fleet);
  CHECK(fleet.find("web2\\n    1 nodes  kept everything") != std::string::npos);
  CHECK(fleet.find("rolled back sysctl\\nx") != std::string::npos);
  CHECK(fleet.find("\n    1 nodes  kept everything") == std::string::npos);
}
