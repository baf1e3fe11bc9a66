// A searched [cpu] resume_latency_us fitted to this node's idle states. A limit admits
// the idle states whose exit latency is within it (tuner/knobs/cpu_latency.h), and which
// those are is the idle driver's table: on Sapphire Rapids 2 and 10 us both admit C1 and
// C1E, on Skylake-SP 1 us admits nothing but polling. Racing candidates that leave a
// CPU the same states would spend trials on identical arms, and one that leaves only
// polling is not the shallow C-state its author meant.
#include <algorithm>
#include <map>

#include "tuner/knobs/cpu_latency.h"
#include "tuner/plan/builder.h"

namespace tuner::planner_detail {
namespace {

/// The enabled states a limit admits, shallowest first (polling among them).
std::vector<const IdleState*> admitted(const Cpuidle& table, const std::string& value) {
  auto limit = resume_latency_limit_us(value);
  std::vector<const IdleState*> out;
  for (const IdleState& s : table.states)
    if (s.disabled != true && (!limit || *s.latency_us <= *limit)) out.push_back(&s);
  return out;
}

bool only_polling(const std::vector<const IdleState*>& states) {
  return std::all_of(states.begin(), states.end(), [](const IdleState* s) { return s->polling; });
}

/// "C1, C1E": the C-states among them.
std::string names(const std::vector<const IdleState*>& states) {
  std::string out;
  for (const IdleState* s : states)
    if (!s->polling) out += (out.empty() ? "" : ", ") + s->name;
  return out;
}

/// Their state numbers: what tells two candidates' arms apart.
std::vector<unsigned> indices(const std::vector<const IdleState*>& states) {
  std::vector<unsigned> out;
  out.reserve(states.size());
  for (const IdleState* s : states) out.push_back(s->index);
  return out;
}

/// "1", "2 and 10", "1, 2 and 10".
std::string listed(const std::vector<std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i)
    out += (i == 0 ? "" : i + 1 == values.size() ? " and " : ", ") + values[i];
  return out;
}

}  // namespace

FittedCandidates fit_resume_latency_search(const std::vector<std::string>& candidates,
                                           const std::optional<Cpuidle>& table,
                                           const std::string& where) {
  FittedCandidates out;
  std::string head = "search of cpu:resume_latency (" + where + ")";
  if (!table) {
    out.kept = candidates;
    out.notes.push_back(
        head + ": this node's idle states are unknown (no cpuidle table): candidates " +
        listed(candidates) + " planned as written, though some may admit the same states here");
    return out;
  }
  std::string cpu = "CPU " + std::to_string(table->cpu) + "'s " +
                    table->driver.value_or("cpuidle") + " table";
  for (const IdleState& s : table->states)
    if (!s.latency_us) {
      out.kept = candidates;
      out.notes.push_back(head + ": the exit latency of " + s.name + " (state" +
                          std::to_string(s.index) + " in " + cpu +
                          ") is unknown: candidates planned as written");
      return out;
    }
  const IdleState* shallowest = nullptr;  // the first enabled C-state
  for (const IdleState& s : table->states)
    if (!s.polling && s.disabled != true) {
      shallowest = &s;
      break;
    }
  // Candidates by the states they admit: each set is one arm, the smallest limit's.
  std::vector<std::string> usable;
  std::map<std::vector<unsigned>, std::vector<std::string>> by_states;
  for (const std::string& c : candidates) {
    std::vector<const IdleState*> states = admitted(*table, c);
    bool numeric = c != "0" && c != "n/a";  // those two mean what they say anywhere
    if (numeric && only_polling(states)) {
      out.notes.push_back(head + ": candidate " + c +
                          " dropped: it admits no idle state but polling (" +
                          (shallowest ? "the shallowest, " + shallowest->name + ", takes " +
                                            std::to_string(*shallowest->latency_us) + " us to wake"
                                      : "none is enabled") +
                          "; " + cpu + ")");
      continue;
    }
    usable.push_back(c);
    by_states[indices(states)].push_back(c);
  }
  for (const std::string& c : usable) {
    const std::vector<std::string>& same = by_states[indices(admitted(*table, c))];
    std::string keep = *std::min_element(same.begin(), same.end(), resume_latency_stricter);
    if (c != keep) continue;
    out.kept.push_back(c);
    if (same.size() > 1)
      out.notes.push_back(head + ": candidates " + listed(same) +
                          " admit the same enabled idle states on this node (" +
                          names(admitted(*table, c)) + "; " + cpu + "): one candidate, " + c);
  }
  if (out.kept.empty())
    out.notes.push_back(head + ": no candidate left on this node: resume_latency_us not planned");
  else if (out.kept.size() == 1 && candidates.size() > 1)
    out.notes.push_back(head + ": one candidate left on this node, " + out.kept.front() +
                        ": planned as a stated value");
  return out;
}

Profile fit_idle_search(const Profile& profile, const Inventory& inventory,
                        std::vector<std::string>& notes) {
  const std::optional<TableSetting>& s = profile.cpu.resume_latency;
  if (!s || s->search.empty()) return profile;
  FittedCandidates fit = fit_resume_latency_search(s->search, inventory.cpuidle, short_loc(s->loc));
  notes.insert(notes.end(), fit.notes.begin(), fit.notes.end());
  Profile out = profile;
  std::optional<TableSetting>& t = out.cpu.resume_latency;
  if (fit.kept.empty()) {
    t.reset();
    return out;
  }
  t->value = fit.kept.front();
  t->search = fit.kept.size() > 1 ? fit.kept : std::vector<std::string>{};
  return out;
}

}  // namespace tuner::planner_detail
