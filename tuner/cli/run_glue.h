// Shared glue of the commands that change the machine or read its durable state
// (apply, rollback, restore, status, history): opening the state directory and the
// lock, building live knobs, and printing a RunReport for people or as tuner.run/1.
#pragma once

#include <memory>
#include <string>

#include "rollback/lock.h"
#include "rollback/rollback.h"
#include "rollback/run_report.h"
#include "rollback/state_dir.h"
#include "tuner/cli/cli.h"
#include "tuner/cli/report/run_text.h"
#include "tuner/knobs/knob.h"

namespace tuner {

/// Knobs of the live machine; the ethtool backend is opened by the first knob that
/// needs it (KnobContext::ethtool), never for a sysfs one.
class LiveKnobs {
 public:
  LiveKnobs();
  ~LiveKnobs();
  Result<std::unique_ptr<Knob>> make(const std::string& id);
  /// The notes of every knob made here so far, as a run report carries them.
  std::vector<RunMessage> notes() const;

 private:
  KnobContext ctx_;
  KnobNotes notes_;
};

/// Exits 1 with an explanation unless running as root; nothing has been touched yet.
void require_root(const std::string& command);
/// Opens --state-dir (creating it when create); a refusal is fatal (exit 1).
StateDir open_state_dir(const GlobalOptions& g, bool create);
/// Takes the lock or exits 1: "another tuner (pid N) is changing this machine".
Lock take_lock(const StateDir& dir);

/// Exit 5: the command did its work (an apply's run stands, as its journal and stdout
/// say) but an output file it was asked for (--report, --prometheus) could not be
/// written. Not 1, which means "rolled back" to the Ansible module and the units.
inline constexpr int kExitOutputNotWritten = 5;
/// Throws the FatalError of exit kExitOutputNotWritten.
[[noreturn]] void fail_output(const std::string& message);

/// Checks the FILE of an output option (--report, --prometheus) before the command does
/// anything: given but empty, or an existing target write_file_atomic would refuse (a
/// FIFO, device, socket, directory or symlink that is not this process's stdout), is
/// exit 2 naming the option and the file.
void check_output_option(const boost::program_options::variables_map& vm, const char* option);

/// Prints r (text or JSON) to stdout and, with report_file, the JSON there too
/// (atomically), with its time set to now when it has none. A report file that cannot
/// be written is exit 5 after stdout has the report: the caller's changes stand, and
/// the message says so.
void print_run_report(const RunReport& r, bool json, const std::string& report_file,
                      const GlobalOptions& g);

/// Seconds since the epoch, for metrics' timestamps.
double unix_now();
/// Writes a --prometheus textfile atomically; exit 5 when it cannot be written (what
/// the command did stands).
void write_prometheus(const std::string& file, const std::string& text);

}  // namespace tuner
