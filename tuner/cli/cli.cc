#include "tuner/cli/cli.h"

#include <cstdio>
#include <iostream>

#include <fmt/core.h>

#include "base/result.h"

namespace po = boost::program_options;

namespace tuner {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"probe", "describe this node (topology, NUMA, IRQs, NICs, sysctls, host)", probe_command},
      {"profiles", "list profiles and which match this machine", profiles_command},
      {"plan", "show what a profile would change (dry run)", plan_command},
      {"apply", "apply a profile, journaled so it can be rolled back", apply_command},
      {"rollback", "undo a run (the unfinished one, RUN_ID, or --last)", rollback_command},
      {"status", "kept settings versus live values (drift)", status_command},
      {"history", "list runs", history_command},
      {"restore", "re-apply kept settings (at boot), no benchmarks", restore_command},
      {"bench", "run benchmarks alone (a baseline before a change); --serve for a peer",
       bench_command},
      {"exec", "run a command bound to the NUMA node nearest a device", exec_command},
  };
  return table;
}

namespace {

void usage(FILE* out) {
  fmt::print(out, "usage: tuner COMMAND [OPTIONS]\n\ncommands:\n");
  for (const Command& c : commands()) fmt::print(out, "  {:<10} {}\n", c.name, c.summary);
  fmt::print(out, "\nglobal options: --state-dir DIR, --profile-path DIRS, -v, --color "
                  "auto|always|never\nrun 'tuner COMMAND --help' for a command's options\n");
}

}  // namespace

bool parse_options(const std::string& command, const std::vector<std::string>& args,
                   po::options_description& desc, const po::positional_options_description& pos,
                   po::variables_map& vm, GlobalOptions& globals) {
  po::options_description global("global options");
  std::string color = "auto";
  std::string profile_path;
  global.add_options()("help,h", "show this help")("state-dir",
                                                   po::value<std::string>(&globals.state_dir),
                                                   "state directory (default /var/lib/tuner)")(
      "profile-path", po::value<std::string>(&profile_path), "profile directories, ':'-separated")(
      "verbose,v", po::value<int>()->implicit_value(1)->zero_tokens(), "more detail on stderr")(
      "color", po::value<std::string>(&color), "auto, always or never");
  po::options_description all;
  all.add(desc).add(global);
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fail_input(fmt::format("tuner {}: {}", command, e.what()));
  }
  if (vm.count("help")) {
    std::cout << "usage: tuner " << command << " [OPTIONS]\n" << all << "\n";
    return false;
  }
  if (vm.count("verbose")) globals.verbose = 1;
  if (color == "auto") globals.color = ColorMode::automatic;
  else if (color == "always") globals.color = ColorMode::always;
  else if (color == "never") globals.color = ColorMode::never;
  else fail_input("--color: expected auto, always or never, got '" + color + "'");
  if (!profile_path.empty()) {
    globals.profile_path.clear();
    std::size_t start = 0;
    for (;;) {
      auto colon = profile_path.find(':', start);
      std::string part = profile_path.substr(start, colon - start);
      if (!part.empty()) globals.profile_path.push_back(part);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  return true;
}

int run_cli(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    usage(args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    fmt::print("tuner {}\n", TUNER_VERSION);
    return 0;
  }
  std::string name = args[0];
  args.erase(args.begin());
  for (const Command& c : commands()) {
    if (name != c.name) continue;
    GlobalOptions globals;
    try {
      return c.run(globals, args);
    } catch (const FatalError& e) {
      fmt::print(stderr, "tuner: {}\n", e.what());
      return static_cast<int>(e.code());
    } catch (const std::exception& e) {
      fmt::print(stderr, "tuner: internal error: {}\n", e.what());
      return 1;
    }
  }
  fmt::print(stderr, "tuner: unknown command '{}'\n", name);
  usage(stderr);
  return 2;
}

}  // namespace tuner
