// Command-line front end: one static table of subcommands {name, summary, function},
// after ninja's tools table. Each subcommand parses its own options plus the globals.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "tuner/cli/report/term.h"

namespace tuner {

/// Options every subcommand accepts (DESIGN.md "global").
struct GlobalOptions {
  std::string state_dir = "/var/lib/tuner";
  std::vector<std::string> profile_path;  // empty = the default search path
  int verbose = 0;
  ColorMode color = ColorMode::automatic;
};

struct Command {
  const char* name;
  const char* summary;
  int (*run)(GlobalOptions& globals, const std::vector<std::string>& args);
};

/// The subcommand table.
const std::vector<Command>& commands();

/// Parses args against desc plus the global options; positional names go to pos.
/// Throws FatalError(bad_input) with the parser's message on a usage error. Returns
/// false when --help was given (usage has been printed).
bool parse_options(const std::string& command, const std::vector<std::string>& args,
                   boost::program_options::options_description& desc,
                   const boost::program_options::positional_options_description& pos,
                   boost::program_options::variables_map& vm, GlobalOptions& globals);

/// Prints a command's --json document on stdout (json_text). The one way a document
/// reaches stdout: a failure after it adds no tuner.error/1 document behind it.
void print_document(const nlohmann::json& doc);

/// Runs the CLI; returns the process exit code.
int run_cli(int argc, char** argv);

// Subcommands, one file each (tuner/cli/NAME_command.cc), in commands()' table.
int probe_command(GlobalOptions& g, const std::vector<std::string>& args);
int profiles_command(GlobalOptions& g, const std::vector<std::string>& args);
int plan_command(GlobalOptions& g, const std::vector<std::string>& args);
int check_command(GlobalOptions& g, const std::vector<std::string>& args);
int apply_command(GlobalOptions& g, const std::vector<std::string>& args);
int rollback_command(GlobalOptions& g, const std::vector<std::string>& args);
int status_command(GlobalOptions& g, const std::vector<std::string>& args);
int history_command(GlobalOptions& g, const std::vector<std::string>& args);
int restore_command(GlobalOptions& g, const std::vector<std::string>& args);
int state_command(GlobalOptions& g, const std::vector<std::string>& args);
int exec_command(GlobalOptions& g, const std::vector<std::string>& args);
int bench_command(GlobalOptions& g, const std::vector<std::string>& args);
int report_command(GlobalOptions& g, const std::vector<std::string>& args);

}  // namespace tuner
