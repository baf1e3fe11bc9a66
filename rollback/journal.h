// Journal: one run's append-only record of what tuner is about to change and did
// change, as JSON lines in <state-dir>/runs/<run-id>.journal. Records that announce a
// write are fsynced before the write happens, so after a crash the journal alone says
// what to put back. A crash mid-append leaves an unterminated last line: readers ignore
// it, and reopening for append cuts it off first.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/unique_fd.h"
#include "rollback/run_report.h"
#include "rollback/state_dir.h"

namespace tuner {

enum class RecordType {
  begin,           // run_id, kind ("apply", "restore"), profiles, time, pid
  intent,          // knob, group, before, after: fsynced before the write
  done,            // knob, readback
  failed,          // knob, error, refused (the kernel refused: skipped, not fatal)
  decision,        // group, decision ("applied", "kept", "rolled_back"), stats
  rollback_begin,  // time, pid: a rollback of this run has started
  rollback,        // knob, after (the value restored), status ("restored"/"failed"), error
  end,             // status ("finished", "rolled_back", "abandoned", ...)
};

/// What a run is (its begin record's "kind"): an apply, or a restore at boot.
enum class RunKind { apply, restore };

/// One record. Plain data; fields a type does not use stay empty. The closed sets are
/// enums here and their names only in the file: a name this version does not know makes
/// the line damaged (decode_record), never a guess.
// NOLINTNEXTLINE(bugprone-exception-escape): json's noexcept move, seen through its asserts
struct JournalRecord {
  RecordType type = RecordType::begin;
  std::string run_id, time;
  RunKind kind = RunKind::apply;  // begin
  std::vector<std::string> profiles;
  long pid = 0;
  std::string knob, group, before, after, readback, error;
  std::optional<GroupDecision> decision;       // decision
  std::optional<ChangeStatus> restore_status;  // rollback: restored, gone, changed_since, failed
  std::optional<RunStatus> end_status;         // end: never unfinished
  bool refused = false;
  nlohmann::json stats;
};

const char* record_type_name(RecordType t);
const char* run_kind_name(RunKind k);
std::optional<RunKind> parse_run_kind(std::string_view name);

/// One JSON object, no newline.
std::string encode_record(const JournalRecord& r);
/// Parses one line; `where` ("file:line") names it in errors. A field of the wrong type
/// (a number where a value belongs) is an error, never coerced: an empty write or a
/// wrong before-value is worse than a record known to be lost.
Result<JournalRecord> decode_record(std::string_view line, const std::string& where);

/// A terminated line that is not a valid record: skipped, and reported.
struct DamagedRecord {
  std::string where;  // "file:line"
  std::string what;   // why it is not a record
  /// What could still be read of it (empty when nothing could): an intent whose knob is
  /// known names the knob whose before-value is lost.
  std::string type, knob;
  /// "file:line: damaged record skipped: what (TYPE record of KNOB)".
  std::string message() const;
};

struct JournalText {
  std::vector<JournalRecord> records;
  /// Damaged lines, skipped: one bad line must not cost every other before-value.
  std::vector<DamagedRecord> damaged;
  bool torn = false;  // an unterminated last line was ignored
};
/// Parses a whole journal. An unterminated last line is ignored (torn write); a bad
/// terminated line is skipped and listed in `damaged` with its file:line.
JournalText parse_journal(std::string_view text, const std::string& file);

/// "20261129T173000Z-1a2b": UTC, with 16 random bits against collisions.
std::string new_run_id();
/// A new id that sorts after every run already in dir, even within the same second
/// (the suffix then climbs above the largest one): `rollback --last` relies on it.
std::string new_run_id(const StateDir& dir);
/// True for ids new_run_id can produce (also keeps RUN_ID arguments out of paths).
bool valid_run_id(std::string_view id);
/// ISO 8601 UTC now, "2026-11-29T17:30:00Z".
std::string utc_now();

/// Move-only: it owns the journal's descriptor.
class Journal {
 public:
  /// Creates runs/<run_id>.journal (O_EXCL, 0600). The file and its directory entry
  /// are made durable by the first synced append, before anything it announces.
  static Result<Journal> create(const StateDir& dir, const std::string& run_id);
  /// Opens an existing journal for append, cutting off a torn last line.
  static Result<Journal> open(const StateDir& dir, const std::string& run_id);

  /// Appends records in one write; with sync, fdatasync before returning.
  Status append(const std::vector<JournalRecord>& records, bool sync = true);
  Status append(const JournalRecord& r, bool sync = true) { return append(std::vector{r}, sync); }
  const std::string& run_id() const { return run_id_; }
  const std::string& path() const { return path_; }

 private:
  UniqueFd fd_;
  int dir_fd_ = -1;  // runs/, still to be fsynced for a new file; not owned
  std::string run_id_, path_;
};

/// Run ids with a journal, oldest first.
Result<std::vector<std::string>> list_runs(const StateDir& dir);
/// Reads and parses runs/<run_id>.journal.
Result<JournalText> read_journal(const StateDir& dir, const std::string& run_id);

}  // namespace tuner
