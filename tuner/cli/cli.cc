#include "tuner/cli/cli.h"

#include <cstdio>
#include <iostream>

#include <fmt/core.h>

#include "base/result.h"
#include "base/strings.h"
#include "tuner/cli/report/json_text.h"

namespace po = boost::program_options;

namespace tuner {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"probe", "describe this node (topology, NUMA, IRQs, NICs, sysctls, host)", probe_command},
      {"profiles", "list profiles and which match this machine", profiles_command},
      {"plan", "show what a profile would change (dry run)", plan_command},
      {"check", "health findings: link, PCIe, IRQ, GPU/CUDA, CPU, clock problems, with fixes",
       check_command},
      {"apply", "apply a profile, journaled so it can be rolled back", apply_command},
      {"rollback", "undo a run (the unfinished one, RUN_ID, or --last)", rollback_command},
      {"status", "kept settings versus live values (drift)", status_command},
      {"history", "list runs", history_command},
      {"restore", "re-apply kept settings (at boot), no benchmarks", restore_command},
      {"state", "'state rebuild': rewrite state.json from the journals", state_command},
      {"bench", "run benchmarks alone (a baseline before a change); --serve for a peer",
       bench_command},
      {"exec", "run a command bound to the NUMA node nearest a device", exec_command},
      {"report", "summarize a fleet's reports: failures, outcomes, drift, findings, facts",
       report_command},
  };
  return table;
}

namespace {

bool document_printed = false;

void usage(FILE* out) {
  fmt::print(out, "usage: tuner [GLOBAL OPTIONS] COMMAND [OPTIONS]\n\ncommands:\n");
  for (const Command& c : commands()) fmt::print(out, "  {:<10} {}\n", c.name, c.summary);
  fmt::print(out, "\nglobal options (before or after the command): --state-dir DIR, "
                  "--profile-path DIRS,\n  -v, --color auto|always|never; tuner --version\n"
                  "run 'tuner help COMMAND' (or 'tuner COMMAND --help') for a command's options\n");
}

/// The global options that take a value, for moving them from before the command.
bool global_with_value(const std::string& arg) {
  return arg == "--state-dir" || arg == "--profile-path" || arg == "--color";
}
bool global_option(const std::string& arg) {
  for (const char* name : {"--state-dir", "--profile-path", "--color"})
    if (arg == name || arg.starts_with(std::string(name) + "=")) return true;
  return arg == "-v" || arg == "--verbose";
}

/// Whether the command's own options ask for --json (not a child's: `exec -- CMD`).
bool wants_json(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") return false;
    if (a == "--json") return true;
  }
  return false;
}

/// A failure the way it was asked for: on stderr for a person; under --json also
/// {"schema":"tuner.error/1","exit":N,"message"} on stdout, so that a program reading
/// stdout gets a document whatever happened (DESIGN.md, tuner.error/1).
int report_failure(const std::string& message, int code, bool json) {
  // Messages quote profiles, kernel names and paths: shown, never sent to the terminal.
  fmt::print(stderr, "tuner: {}\n", escape_controls(message, Newlines::keep));
  if (json && !document_printed) {
    std::fflush(stderr);
    std::cout << json_text({{"schema", "tuner.error/1"}, {"exit", code}, {"message", message}})
              << std::flush;
  }
  return code;
}

const Command* find_command(const std::string& name) {
  for (const Command& c : commands())
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace

void print_document(const nlohmann::json& doc) {
  std::cout << json_text(doc) << std::flush;
  document_printed = true;
}

bool parse_options(const std::string& command, const std::vector<std::string>& args,
                   po::options_description& desc, const po::positional_options_description& pos,
                   po::variables_map& vm, GlobalOptions& globals) {
  po::options_description global("global options");
  std::string color = "auto";
  std::string profile_path;
  global.add_options()("help,h", "show this help")(
      "state-dir", po::value<std::string>(&globals.state_dir)->value_name("DIR"),
      "state directory (default /var/lib/tuner)")(
      "profile-path", po::value<std::string>(&profile_path)->value_name("DIRS"),
      "profile directories, ':'-separated")(
      "verbose,v", po::value<int>()->implicit_value(1)->zero_tokens(), "more detail on stderr")(
      "color", po::value<std::string>(&color)->value_name("WHEN"), "auto, always or never");
  po::options_description all;
  all.add(desc).add(global);
  // No guessing: '--prof' is not '--profile'. A script that works today must not
  // change meaning when an option is added tomorrow.
  const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).style(style).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fail_input(fmt::format("{}: {} (see 'tuner help {}')", command, e.what(), command));
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
  // Global options may come before the command (tuner --state-dir D status): they move
  // behind it, where each command's parser takes them.
  std::vector<std::string> globals_first;
  while (!args.empty() && global_option(args[0])) {
    globals_first.push_back(args[0]);
    args.erase(args.begin());
    if (global_with_value(globals_first.back())) {
      if (args.empty()) {
        fmt::print(stderr, "tuner: {} needs a value\n", escape_controls(globals_first.back()));
        return 2;
      }
      globals_first.push_back(args[0]);
      args.erase(args.begin());
    }
  }
  if (args.empty()) {
    usage(stderr);
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h" || (args[0] == "help" && args.size() == 1)) {
    usage(stdout);
    return 0;
  }
  if (args[0] == "--version" || args[0] == "-V" || args[0] == "version") {
    fmt::print("tuner {}\n", TUNER_VERSION);
    return 0;
  }
  std::string name = args[0];
  args.erase(args.begin());
  if (name == "help") {  // tuner help COMMAND = tuner COMMAND --help
    name = args[0];
    args = {"--help"};
  }
  const Command* c = find_command(name);
  if (!c) {
    fmt::print(stderr, "tuner: unknown command '{}'\n", escape_controls(name));
    usage(stderr);
    return 2;
  }
  args.insert(args.begin(), globals_first.begin(), globals_first.end());
  GlobalOptions globals;
  const bool json = wants_json(args);
  try {
    return c->run(globals, args);
  } catch (const FatalError& e) {
    return report_failure(e.what(), static_cast<int>(e.code()), json);
  } catch (const std::exception& e) {
    return report_failure(std::string("internal error: ") + e.what(), 1, json);
  }
}

}  // namespace tuner
