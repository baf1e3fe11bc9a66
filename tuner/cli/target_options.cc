#include "tuner/cli/target_options.h"

#include <unistd.h>


namespace po = boost::program_options;

namespace tuner {

void add_target_options(po::options_description& desc) {
  desc.add_options()
      ("root", po::value<std::string>(), "read a captured /proc and /sys tree under DIR")
      ("topology", po::value<std::string>(), "load the topology from a hwloc XML export");
}

Target open_target(const po::variables_map& vm) {
  if (vm.count("root") && vm.count("topology"))
    fail_input("--root and --topology cannot be used together");
  std::optional<std::string> xml;
  if (vm.count("topology")) {
    xml = vm["topology"].as<std::string>();
    if (::access(xml->c_str(), R_OK) != 0)
      fail_input(errno_error("cannot read topology XML", "--topology " + *xml).message());
  }
  std::string dir = vm.count("root") ? vm["root"].as<std::string>() : "/";
  auto root = Root::open(dir);
  if (!root.ok()) fail_input(root.error().message());
  return Target{std::move(root).value(), xml};
}

}  // namespace tuner
