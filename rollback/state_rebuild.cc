#include "rollback/state_rebuild.h"

#include <fcntl.h>
#include <stdio.h>

#include <algorithm>
#include <cerrno>
#include <map>

#include "rollback/journal.h"
#include "rollback/run_report.h"

namespace tuner {

namespace {

struct Touched {
  std::string before, after, group;
  bool written = false;
};

/// The knobs a kept group left live: every written knob, or only the rest of a group
/// whose bisect put culprits back (outcome partly_kept).
std::vector<std::string> kept_knobs(const JournalRecord& decision,
                                    const std::vector<std::string>& written) {
  const nlohmann::json& s = decision.stats;
  if (!s.is_object() || s.value("outcome", nlohmann::json()) != "partly_kept") return written;
  nlohmann::json rest = s.value("bisect", nlohmann::json::object()).value("rest", nlohmann::json());
  if (!rest.is_object() || !rest.contains("knobs") || !rest["knobs"].is_array()) return written;
  std::vector<std::string> out;
  for (const auto& k : rest["knobs"]) {
    if (!k.is_string()) continue;
    auto id = k.get<std::string>();
    if (std::find(written.begin(), written.end(), id) != written.end()) out.push_back(id);
  }
  return out;
}

/// Applies one run's records to state as apply and rollback did when they wrote them.
void replay(State& state, const std::string& run_id, const JournalText& journal) {
  std::map<std::string, Touched> knobs;
  std::vector<std::string> order;  // plan order, for a group's knobs
  for (const JournalRecord& r : journal.records) {
    switch (r.type) {
      case RecordType::intent: {
        auto [it, first] = knobs.try_emplace(r.knob);
        if (first) {
          it->second.before = r.before;
          order.push_back(r.knob);
        }
        it->second.after = r.after;
        it->second.group = r.group;
        break;
      }
      case RecordType::done:
        if (knobs.contains(r.knob)) knobs[r.knob].written = true;
        break;
      case RecordType::decision: {
        if (r.decision != GroupDecision::applied && r.decision != GroupDecision::kept) break;
        std::vector<std::string> written;
        for (const std::string& k : order)
          if (knobs[k].group == r.group && knobs[k].written) written.push_back(k);
        for (const std::string& k : kept_knobs(r, written))
          keep_knob(state, k, {knobs[k].after, knobs[k].before, run_id, r.group, {}});
        break;
      }
      case RecordType::rollback:
        // Every outcome but a failure ends the run's hold on the knob (rollback_run).
        if (r.restore_status != ChangeStatus::failed) forget_knob(state, r.knob, run_id);
        break;
      default: break;
    }
  }
}

}  // namespace

Result<RebuiltState> rebuild_state(const StateDir& dir) {
  RebuiltState out;
  auto runs = list_runs(dir);
  if (!runs.ok()) return runs.error();
  for (const std::string& id : *runs) {
    auto text = read_journal(dir, id);
    if (!text.ok()) {
      out.warnings.push_back(text.error().message() + ": skipped; what that run kept is missing");
      continue;
    }
    for (const DamagedRecord& d : text->damaged) out.warnings.push_back(d.message());
    ++out.runs;
    auto begin = std::find_if(text->records.begin(), text->records.end(),
                              [](const JournalRecord& r) { return r.type == RecordType::begin; });
    if (begin == text->records.end())
      out.warnings.push_back("run " + id + ": no begin record; replayed as an apply");
    else if (begin->kind == RunKind::restore)
      continue;  // a boot-time re-apply of what was kept: state.json is left as is
    replay(out.state, id, *text);
  }
  return out;
}

Result<RebuiltState> rewrite_state(const StateDir& dir) {
  auto rebuilt = rebuild_state(dir);
  if (!rebuilt.ok()) return rebuilt;
  std::string stamp = utc_now();  // "2026-11-29T17:30:00Z" -> "20261129T173000Z"
  std::erase_if(stamp, [](char c) { return c == '-' || c == ':'; });
  std::string aside = "state.json.bad-" + stamp;
  if (::renameat(dir.fd(), "state.json", dir.fd(), aside.c_str()) == 0)
    rebuilt->moved_to = dir.path_of(aside);
  else if (errno != ENOENT)
    return errno_error("cannot move the old state.json aside", dir.path_of(aside));
  if (auto s = save_state(dir, rebuilt->state); !s.ok()) return s.error();
  return rebuilt;
}

}  // namespace tuner
