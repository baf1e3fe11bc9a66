#include "rollback/journal.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <ctime>

#include <fmt/core.h>

#include "base/enum_names.h"
#include "base/fd_io.h"
#include "rollback/run_report.h"
#include "tuner/knobs/knob_id.h"

namespace tuner {

namespace {

constexpr std::array<EnumName<RecordType>, 8> kRecordTypes = {{
    {RecordType::begin, "begin"},
    {RecordType::intent, "intent"},
    {RecordType::done, "done"},
    {RecordType::failed, "failed"},
    {RecordType::decision, "decision"},
    {RecordType::rollback_begin, "rollback_begin"},
    {RecordType::rollback, "rollback"},
    {RecordType::end, "end"},
}};
static_assert(in_enum_order(kRecordTypes));

constexpr std::array<EnumName<RunKind>, 2> kRunKinds = {{
    {RunKind::apply, "apply"},
    {RunKind::restore, "restore"},
}};
static_assert(in_enum_order(kRunKinds));

void put(nlohmann::json& j, const char* key, const std::string& v) {
  if (!v.empty()) j[key] = v;
}

/// A string field into out; absent leaves it empty, any other type is an error.
Status take(const nlohmann::json& j, const char* key, std::string& out) {
  auto it = j.find(key);
  if (it == j.end()) return Ok{};
  if (!it->is_string()) return Error::invalid(fmt::format("\"{}\" is not a string", key));
  out = it->get<std::string>();
  return Ok{};
}

/// The value of `"key":"..."` in a line that is not JSON any more (cut short by a
/// crash or a bad disk), as encode_record writes it; "" unless its closing quote
/// survived and it holds no escape. It only names what was lost, never a value to write.
std::string complete_field(std::string_view line, std::string_view key) {
  std::string open = fmt::format("\"{}\":\"", key);
  auto at = line.find(open);
  if (at == std::string_view::npos) return "";
  std::string_view rest = line.substr(at + open.size());
  auto close = rest.find('"');
  if (close == std::string_view::npos || rest.substr(0, close).find('\\') != std::string_view::npos)
    return "";
  return std::string(rest.substr(0, close));
}

std::string journal_name(const std::string& run_id) { return run_id + ".journal"; }

}  // namespace

const char* record_type_name(RecordType t) { return enum_name(kRecordTypes, t); }

const char* run_kind_name(RunKind k) { return enum_name(kRunKinds, k); }

std::optional<RunKind> parse_run_kind(std::string_view name) {
  return enum_from_name(kRunKinds, name);
}

std::string encode_record(const JournalRecord& r) {
  nlohmann::json j;
  j["type"] = record_type_name(r.type);
  put(j, "run_id", r.run_id);
  if (r.type == RecordType::begin) j["kind"] = run_kind_name(r.kind);
  put(j, "time", r.time);
  if (r.type == RecordType::begin) j["profiles"] = r.profiles;
  if (r.pid) j["pid"] = r.pid;
  put(j, "knob", r.knob);
  put(j, "group", r.group);
  // before/after are values: an empty string is a real value for some knobs.
  if (r.type == RecordType::intent) {
    j["before"] = r.before;
    j["after"] = r.after;
  }
  if (r.type == RecordType::rollback) j["after"] = r.after;
  if (r.type == RecordType::done) j["readback"] = r.readback;
  put(j, "error", r.error);
  if (r.decision) j["decision"] = group_decision_name(*r.decision);
  if (r.restore_status) j["status"] = change_status_name(*r.restore_status);
  else if (r.end_status) j["status"] = run_status_name(*r.end_status);
  if (r.refused) j["refused"] = true;
  if (!r.stats.is_null()) j["stats"] = r.stats;
  // Replace invalid UTF-8 from odd kernel text rather than fail the journal write.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

/// The names of a record's closed sets, as its type uses them. A name this version does
/// not know is damage: an end status never reads as "finished" by guess (the run reads
/// as unfinished, and rollback or --abandon settles it), nor a decision as "kept".
Status closed_sets(JournalRecord& r, const std::string& kind, const std::string& decision,
                   const std::string& status) {
  if (r.type == RecordType::begin && !kind.empty()) {
    auto k = parse_run_kind(kind);
    if (!k) return Error::invalid("begin record with unknown kind '" + kind + "'");
    r.kind = *k;
  }
  if (r.type == RecordType::decision) {
    r.decision = parse_group_decision(decision);
    if (!r.decision)
      return Error::invalid("decision record with unknown decision '" + decision + "'");
  }
  if (r.type == RecordType::rollback) {
    r.restore_status = parse_change_status(status);
    if (!r.restore_status)
      return Error::invalid("rollback record with unknown status '" + status + "'");
  }
  if (r.type == RecordType::end) {
    r.end_status = parse_run_status(status);
    if (!r.end_status || *r.end_status == RunStatus::unfinished)
      return Error::invalid("end record with unknown status '" + status + "'");
  }
  return Ok{};
}

}  // namespace

Result<JournalRecord> decode_record(std::string_view line, const std::string& where) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error::invalid("not a JSON object", where);
  JournalRecord r;
  std::string type;
  if (auto s = take(j, "type", type); !s.ok()) return s.error().context(where);
  auto t = enum_from_name(kRecordTypes, type);
  if (!t) return Error::invalid("unknown record type '" + type + "'", where);
  r.type = *t;
  std::string kind, decision, status;
  for (auto [key, field] : {std::pair{"run_id", &r.run_id},
                            {"kind", &kind},
                            {"time", &r.time},
                            {"knob", &r.knob},
                            {"group", &r.group},
                            {"before", &r.before},
                            {"after", &r.after},
                            {"readback", &r.readback},
                            {"error", &r.error},
                            {"decision", &decision},
                            {"status", &status}})
    if (auto s = take(j, key, *field); !s.ok()) return s.error().context(where);
  if (auto p = j.find("profiles"); p != j.end()) {
    if (!p->is_array()) return Error::invalid("\"profiles\" is not an array", where);
    for (const auto& e : *p) {
      if (!e.is_string()) return Error::invalid("\"profiles\" holds a non-string", where);
      r.profiles.push_back(e.get<std::string>());
    }
  }
  if (auto p = j.find("pid"); p != j.end()) {
    if (!p->is_number_integer()) return Error::invalid("\"pid\" is not an integer", where);
    r.pid = p->get<long>();
  }
  if (auto p = j.find("refused"); p != j.end()) {
    if (!p->is_boolean()) return Error::invalid("\"refused\" is not true or false", where);
    r.refused = p->get<bool>();
  }
  if (auto p = j.find("stats"); p != j.end()) {
    if (!p->is_object()) return Error::invalid("\"stats\" is not an object", where);
    r.stats = *p;
  }
  bool needs_knob = r.type == RecordType::intent || r.type == RecordType::done ||
                    r.type == RecordType::failed || r.type == RecordType::rollback;
  if (needs_knob && r.knob.empty()) return Error::invalid(type + " record without a knob", where);
  // A knob id no knob can be built from cannot be undone, restored or kept: damage, as a
  // field of the wrong type is, so that `state rebuild` never copies it into state.json.
  if (!r.knob.empty()) {
    if (auto id = parse_knob_id(r.knob); !id.ok())
      return Error::invalid("\"knob\" is not a knob id: " + id.error().what, where);
  }
  if (auto s = closed_sets(r, kind, decision, status); !s.ok()) return s.error().context(where);
  // Rollback writes before back and compares the live value with after: an intent
  // missing either cannot be undone safely.
  if (r.type == RecordType::intent && !j.contains("before"))
    return Error::invalid("intent record without a before value", where);
  if (r.type == RecordType::intent && !j.contains("after"))
    return Error::invalid("intent record without an after value", where);
  return r;
}

std::string DamagedRecord::message() const {
  std::string out = where + ": damaged record skipped: " + what;
  if (!type.empty() || !knob.empty())
    out += " (" + (type.empty() ? std::string("record") : type + " record") +
           (knob.empty() ? "" : " of " + knob) + ")";
  return out;
}

JournalText parse_journal(std::string_view text, const std::string& file) {
  JournalText out;
  std::size_t start = 0;
  int line_no = 0;
  while (start < text.size()) {
    ++line_no;
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      out.torn = true;  // a crash mid-append: this record was never complete
      break;
    }
    std::string_view line = text.substr(start, nl - start);
    start = nl + 1;
    if (line.empty()) continue;
    std::string where = fmt::format("{}:{}", file, line_no);
    auto r = decode_record(line, where);
    if (r.ok()) {
      out.records.push_back(std::move(r).value());
      continue;
    }
    // Keep what can still be read of it: rollback names the knob whose before is lost.
    DamagedRecord d{where, r.error().what, "", ""};
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object()) {
      if (auto t = j.find("type"); t != j.end() && t->is_string()) d.type = t->get<std::string>();
      if (auto k = j.find("knob"); k != j.end() && k->is_string()) d.knob = k->get<std::string>();
    } else {
      d.type = complete_field(line, "type");
      d.knob = complete_field(line, "knob");
    }
    out.damaged.push_back(std::move(d));
  }
  return out;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string new_run_id() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  uint16_t rnd = 0;
  if (::getrandom(&rnd, sizeof rnd, 0) != sizeof rnd) rnd = static_cast<uint16_t>(::getpid());
  return fmt::format("{}-{:04x}", buf, rnd);
}

std::string new_run_id(const StateDir& dir) {
  for (;;) {
    std::string id = new_run_id();
    auto runs = list_runs(dir);
    if (!runs.ok() || runs->empty() || runs->back() < id) return id;
    const std::string& last = runs->back();
    if (last.compare(0, 16, id, 0, 16) != 0) return id;  // the clock went back: keep it
    unsigned max = static_cast<unsigned>(std::stoul(last.substr(17), nullptr, 16));
    if (max < 0xffff) return fmt::format("{}-{:04x}", id.substr(0, 16), max + 1);
    ::usleep(200000);  // 65536 runs in one second: wait for the next
  }
}

bool valid_run_id(std::string_view id) {
  // YYYYMMDDTHHMMSSZ-hhhh
  if (id.size() != 21 || id[8] != 'T' || id[15] != 'Z' || id[16] != '-') return false;
  for (std::size_t i = 0; i < id.size(); ++i) {
    if (i == 8 || i == 15 || i == 16) continue;
    char c = id[i];
    bool ok = i < 15 ? (c >= '0' && c <= '9') : ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    if (!ok) return false;
  }
  return true;
}

Result<Journal> Journal::create(const StateDir& dir, const std::string& run_id) {
  Journal j;
  j.run_id_ = run_id;
  j.path_ = dir.path_of("runs/" + journal_name(run_id));
  if (!valid_run_id(run_id)) return Error::invalid("invalid run id", run_id);
  // Opened without create (restore, rollback) and never made by tuner: say what is
  // missing rather than EBADF from openat(-1).
  if (dir.runs_fd() < 0)
    return Error::invalid("no runs directory to journal in (a state directory tuner did not make); "
                          "'tuner apply' makes one",
                          dir.path_of("runs"));
  j.fd_.reset(::openat(dir.runs_fd(), journal_name(run_id).c_str(),
                       O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!j.fd_) return errno_error("cannot create journal", j.path_);
  j.dir_fd_ = dir.runs_fd();
  return j;
}

Result<Journal> Journal::open(const StateDir& dir, const std::string& run_id) {
  Journal j;
  j.run_id_ = run_id;
  j.path_ = dir.path_of("runs/" + journal_name(run_id));
  if (!valid_run_id(run_id)) return Error::invalid("invalid run id", run_id);
  j.fd_.reset(::openat(dir.runs_fd(), journal_name(run_id).c_str(),
                       O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC));
  if (!j.fd_) return errno_error("cannot open journal", j.path_);
  // Cut a torn last record so the next append starts on a fresh line.
  struct stat st {};
  if (::fstat(j.fd_.get(), &st) != 0) return errno_error("cannot stat", j.path_);
  off_t end = st.st_size;
  char buf[4096];
  while (end > 0) {
    off_t from = std::max<off_t>(0, end - static_cast<off_t>(sizeof buf));
    ssize_t n = ::pread(j.fd_.get(), buf, static_cast<size_t>(end - from), from);
    if (n <= 0) return errno_error("cannot read", j.path_);
    auto* nl = static_cast<char*>(::memrchr(buf, '\n', static_cast<size_t>(n)));
    if (nl) {
      end = from + (nl - buf) + 1;
      break;
    }
    end = from;
  }
  if (end != st.st_size) {
    if (::ftruncate(j.fd_.get(), end) != 0 || ::fsync(j.fd_.get()) != 0)
      return errno_error("cannot cut the torn last record", j.path_);
  }
  return j;
}

Status Journal::append(const std::vector<JournalRecord>& records, bool sync) {
  std::string text;
  for (const auto& r : records) {
    text += encode_record(r);
    text += '\n';
  }
  std::size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd_.get(), text.data() + off, text.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("cannot append to journal", path_);
    }
    off += static_cast<size_t>(n);
  }
  if (!sync) return Ok{};
  if (::fdatasync(fd_.get()) != 0) return errno_error("cannot fsync journal", path_);
  if (dir_fd_ >= 0) {
    if (::fsync(dir_fd_) != 0) return errno_error("cannot fsync the runs directory", path_);
    dir_fd_ = -1;
  }
  return Ok{};
}

Result<std::vector<std::string>> list_runs(const StateDir& dir) {
  std::vector<std::string> ids;
  if (dir.runs_fd() < 0) return ids;
  UniqueFd fd(::openat(dir.runs_fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return errno_error("cannot open", dir.path_of("runs"));
  DIR* d = ::fdopendir(fd.get());
  if (!d) return errno_error("cannot list", dir.path_of("runs"));
  fd.release();  // closedir closes it
  while (dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (!n.ends_with(".journal")) continue;
    n.remove_suffix(8);
    if (valid_run_id(n)) ids.emplace_back(n);
  }
  ::closedir(d);
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<JournalText> read_journal(const StateDir& dir, const std::string& run_id) {
  std::string path = dir.path_of("runs/" + journal_name(run_id));
  if (!valid_run_id(run_id))
    return Error::invalid("not a run id (expected YYYYMMDDTHHMMSSZ-xxxx)", run_id);
  auto text =
      read_file_at(dir.runs_fd(), journal_name(run_id), path, {.regular_only = true}, O_NOFOLLOW);
  if (!text.ok()) return text.error();
  return parse_journal(*text, path);
}

}  // namespace tuner
