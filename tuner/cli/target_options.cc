#include "tuner/cli/target_options.h"

#include <fcntl.h>

#include "base/fd_io.h"
#include "probes/capture_check.h"
#include "probes/hw_class.h"

namespace po = boost::program_options;

namespace tuner {

void add_target_options(po::options_description& desc) {
  desc.add_options()("root", po::value<std::string>()->value_name("DIR"),
                     "read a captured /proc and /sys tree under DIR")(
      "topology", po::value<std::string>()->value_name("FILE"),
      "load the topology from a hwloc XML export");
}

void add_class_label_option(po::options_description& desc) {
  desc.add_options()("class-label", po::value<std::string>()->value_name("LABEL"),
                     "add LABEL to the node's hardware class (a rack, a switch generation: what "
                     "tuner cannot see); docs/fleet-decisions.md");
}

Target open_target(const po::variables_map& vm) {
  if (vm.count("root") && vm.count("topology"))
    fail_input("--root and --topology cannot be used together");
  std::optional<std::string> xml;
  if (vm.count("topology")) {
    xml = vm["topology"].as<std::string>();
    // A regular file only: hwloc would wait forever on a FIFO.
    auto fd = open_for_read(AT_FDCWD, *xml, "--topology " + *xml, {.regular_only = true});
    if (!fd.ok()) {
      Error e = fd.error();
      e.what = "cannot read topology XML: " + e.what;
      fail_input(e.message());
    }
  }
  std::string dir = vm.count("root") ? vm["root"].as<std::string>() : "/";
  auto root = Root::open(dir);
  if (!root.ok()) fail_input(root.error().message());
  // Before anything reads it: hwloc would hang on a FIFO in it (probes/capture_check.h).
  if (Status s = check_capture(*root); !s.ok()) fail_input("--root: " + s.error().message());
  std::string label;
  if (vm.count("class-label")) {
    label = vm["class-label"].as<std::string>();
    if (Status s = check_class_label(label); !s.ok()) fail_input(s.error().message());
  }
  return Target{std::move(root).value(), xml, label};
}

}  // namespace tuner
