// What the numa:unit and irqbalance knobs need from systemd: drop-in files written
// atomically, and systemctl (run as a child process: our dependencies have no D-Bus
// library). Systemctl is a seam so tests can record what would have been run.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace tuner {

/// Checks a unit name: [A-Za-z0-9:_.@-]+ ending in .service, .scope or .slice, at most
/// 255 characters (so no '/', no "..": a name is never a path).
Status validate_unit_name(const std::string& unit, const std::string& id);

/// Writes DIR/SUBDIR/NAME atomically: a temp file, fsync, rename, fsync of SUBDIR.
/// Creates SUBDIR (0755) inside DIR when missing. DIR must exist; SUBDIR and NAME are
/// opened without following symlinks.
Status write_file_atomic(const std::string& dir, const std::string& subdir,
                         const std::string& name, const std::string& content);
/// Reads DIR/SUBDIR/NAME without following symlinks; nullopt when it does not exist.
Result<std::optional<std::string>> read_optional_file(const std::string& dir,
                                                      const std::string& subdir,
                                                      const std::string& name);
/// Removes DIR/SUBDIR/NAME (absent is fine), then SUBDIR if it is left empty.
Status remove_file_and_empty_dir(const std::string& dir, const std::string& subdir,
                                 const std::string& name);

/// The write step of a drop-in knob: writes DIR/SUBDIR/NAME (or removes it when
/// content is nullopt), then reads the knob back through `read_back` and compares it
/// with `want`. Errors name the knob id and the file.
Status write_dropin_checked(const std::string& id, const std::string& dir,
                            const std::string& subdir, const std::string& name,
                            const std::optional<std::string>& content, const std::string& want,
                            const std::function<Result<std::string>()>& read_back);

class Systemctl {
 public:
  virtual ~Systemctl() = default;
  /// True when systemd is the running init (/run/systemd/system exists).
  virtual bool running() = 0;
  /// Runs `systemctl ARGS...`; an Error carries its exit status and stderr.
  virtual Status run(const std::vector<std::string>& args) = 0;
  /// `systemctl is-active UNIT`: "active", "inactive", "failed", ...
  virtual Result<std::string> is_active(const std::string& unit) = 0;
};

/// The process-wide systemctl: the real one unless a test installed another.
Systemctl& systemctl();
/// Installs s (nullptr: back to the real one). For tests.
void set_systemctl(Systemctl* s);

/// A note for the person running tuner ("tuner: note: ..." on stderr): things done or
/// left undone on purpose that are not errors.
void knob_note(const std::string& id, const std::string& text);

}  // namespace tuner
