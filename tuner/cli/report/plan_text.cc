#include "tuner/cli/report/plan_text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>
#include <vector>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {
namespace {

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// "dl-training (network-throughput, throughput)": the profile, then what it
/// includes, nearest first.
std::string profile_title(const Plan& plan) {
  if (plan.profiles.empty()) return "(none)";
  std::string out = plan.profiles.back();
  if (plan.profiles.size() > 1) {
    out += " (";
    for (auto it = plan.profiles.rbegin() + 1; it != plan.profiles.rend(); ++it)
      out += (it == plan.profiles.rbegin() + 1 ? "" : ", ") + *it;
    out += ")";
  }
  return out;
}

std::string show_value(const std::optional<std::string>& v) {
  if (!v) return "(unknown)";
  if (v->empty()) return "(empty)";
  return *v;
}

/// "4 min", "40 s", "1 h 5 min".
std::string minutes(std::chrono::seconds s) {
  long long n = s.count();
  if (n < 60) return std::to_string(n) + " s";
  long long m = (n + 59) / 60;
  if (m < 60) return std::to_string(m) + " min";
  return std::to_string(m / 60) + " h" + (m % 60 ? " " + std::to_string(m % 60) + " min" : "");
}

/// "decided by: benchmark tcp (loopback); kept only on a proven gain; bisected if
/// rejected; verified in 4 min at most" (group_policy.h decided_by_text).
std::string verification(const Plan& plan, const std::string& group) {
  for (const PlanGroup& g : plan.groups) {
    if (g.name != group) continue;
    std::string out = "decided by: " + decided_by_text(g.decided);
    if (g.bisect) out += "; bisected if rejected";
    if (g.worst_case.count() > 0) out += "; verified in " + minutes(g.worst_case) + " at most";
    for (const PlanGroup::PeerTraffic& t : g.peer_traffic)
      out += fmt::format("; {}: up to {} runs of {:g} s x {} stream{} {}", t.bench, t.runs,
                         static_cast<double>(t.run.count()) / 1000, t.streams,
                         t.streams == 1 ? "" : "s",
                         t.direction == "in" ? "from the peer (the peer's egress)"
                                             : "to the peer (this node's egress)");
    if (g.peer_wmem_needed > 0)
      out += fmt::format(
          "; the peer must send with net.ipv4.tcp_wmem max >= {} (this node's tcp_rmem max), "
          "else apply soaks the group instead",
          g.peer_wmem_needed);
    return out;
  }
  return "";
}

/// The knob id with its last number as "N", and that number: cpu:17:resume_latency ->
/// ("cpu:N:resume_latency", 17), nic:eth0:rps:rx-3 -> ("nic:eth0:rps:rx-N", 3); an
/// empty pattern when it has none to collapse.
std::pair<std::string, unsigned long> numbered(const std::string& knob) {
  auto digit = [&](std::size_t k) { return std::isdigit(static_cast<unsigned char>(knob[k])); };
  std::size_t j = knob.size();
  while (j > 0 && !digit(j - 1)) --j;
  if (j == 0) return {"", 0};
  std::size_t i = j;
  while (i > 0 && digit(i - 1)) --i;
  // "eth01" would come back as "eth1": a leading zero is not a number to collapse.
  if (j - i > 9 || (knob[i] == '0' && j - i > 1)) return {"", 0};
  return {knob.substr(0, i) + "N" + knob.substr(j), std::stoul(knob.substr(i, j - i))};
}

/// "0-3,8,10-11" of ascending numbers.
std::string ranges(const std::vector<unsigned long>& n) {
  std::string out;
  for (std::size_t i = 0; i < n.size();) {
    std::size_t j = i;
    while (j + 1 < n.size() && n[j + 1] == n[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(n[i]);
    if (j > i) out += "-" + std::to_string(n[j]);
    i = j + 1;
  }
  return out;
}

/// One line of the text plan: a change, or the same change of many numbered knobs (a
/// setting per CPU or cpufreq policy on a 384-CPU server: one entry, not 384).
struct Entry {
  const Change* change;
  std::string pattern;                 // "cpu:N:resume_latency" when collapsed
  std::vector<unsigned long> numbers;  // the N of each knob it stands for
};

/// The changes of one group, those differing only in the knob's number collapsed
/// (at least kCollapseAt of them), each entry where its first change was.
constexpr std::size_t kCollapseAt = 3;
std::vector<Entry> entries_of(const std::vector<const Change*>& changes) {
  using Key = std::tuple<std::string, std::optional<std::string>, std::string, std::string>;
  std::map<Key, std::vector<std::size_t>> same;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const Change& c = *changes[i];
    auto [pattern, number] = numbered(c.knob);
    if (!pattern.empty()) same[{pattern, c.current, c.desired, c.reason}].push_back(i);
  }
  std::vector<Entry> out;
  std::vector<bool> done(changes.size(), false);
  for (std::size_t i = 0; i < changes.size(); ++i) {
    if (done[i]) continue;
    const Change& c = *changes[i];
    auto [pattern, number] = numbered(c.knob);
    auto it = pattern.empty() ? same.end() : same.find({pattern, c.current, c.desired, c.reason});
    if (it == same.end() || it->second.size() < kCollapseAt) {
      out.push_back({&c, "", {}});
      continue;
    }
    Entry e{&c, pattern, {}};
    for (std::size_t k : it->second) {
      done[k] = true;
      e.numbers.push_back(numbered(changes[k]->knob).second);
    }
    std::sort(e.numbers.begin(), e.numbers.end());
    out.push_back(std::move(e));
  }
  return out;
}

/// "a, b, c", or "12 knobs" when there are many.
std::string knob_list(const std::vector<std::string>& knobs) {
  if (knobs.size() > 4) return plural(knobs.size(), "knob", "knobs");
  std::string out;
  for (const std::string& k : knobs) out += (out.empty() ? "" : ", ") + escape_controls(k);
  return out;
}

/// "  search sysctl:net.core.netdev_budget in group sysctl: 300 (now), 600, 1200 ...".
std::string searches_text(const Plan& plan, const Term& term) {
  if (plan.searches.empty()) return "";
  std::string out = "\n" + term.bold("value searches") + "  " +
                    term.dim("(screened, then the best confirmed against the baseline)") + "\n";
  for (const PlanSearch& s : plan.searches) {
    std::string values;
    for (const PlanSearch::Candidate& c : s.candidates)
      values += (values.empty() ? "" : ", ") + escape_controls(c.value) +
                (c.current ? " (now)" : "");
    out += fmt::format("  {} {} in group {}\n    candidates: {}\n    {} design, at most {} "
                       "benchmark runs; knobs: {}\n",
                       term.yellow("?"), escape_controls(s.setting), escape_controls(s.group),
                       values, s.design, s.worst_case_runs, knob_list(s.knobs));
  }
  return out;
}

}  // namespace

std::string format_plan(const Plan& plan, const Term& term) {
  std::string out = term.bold("plan: profile " + profile_title(plan)) + "\n";
  std::size_t groups = 0;
  for (std::size_t i = 0; i < plan.changes.size();) {
    const std::string& group = plan.changes[i].group;
    std::vector<const Change*> members;
    for (; i < plan.changes.size() && plan.changes[i].group == group; ++i)
      members.push_back(&plan.changes[i]);
    ++groups;
    std::string how = verification(plan, group);
    out += "\n" + term.bold(escape_controls(group)) +
           (how.empty() ? "" : "  " + term.dim("(" + how + ")")) + "\n";
    for (const Entry& e : entries_of(members)) {
      const Change& c = *e.change;
      if (e.pattern.empty()) out += "  " + term.yellow("~") + " " + c.knob + "\n";
      else
        out += fmt::format("  {} {}  for N in {} ({} knobs)\n", term.yellow("~"), e.pattern,
                           ranges(e.numbers), e.numbers.size());
      out += "    " + term.red("- " + show_value(c.current)) + "\n";
      out += "    " + term.green("+ " + show_value(c.desired)) + "\n";
      if (!c.reason.empty()) out += "      " + term.dim(c.reason) + "\n";
    }
  }
  out += searches_text(plan, term);
  out += "\n";
  if (plan.changes.empty() && !plan.searches.empty()) {
    out += fmt::format("no changes of stated values; {} to verify\n",
                       plural(plan.searches.size(), "value search", "value searches"));
  } else if (plan.changes.empty()) {
    out += "no changes: the machine already matches profile " + profile_title(plan);
    if (plan.unchanged) out += " (" + plural(plan.unchanged, "setting", "settings") + " checked)";
    out += "\n";
  } else {
    out += fmt::format(
        "{} in {}, {} already as desired{}\n", plural(plan.changes.size(), "change", "changes"),
        plural(groups, "group", "groups"), plural(plan.unchanged, "setting", "settings"),
        plan.searches.empty()
            ? ""
            : "; " + plural(plan.searches.size(), "value search", "value searches"));
  }
  if (auto total = verify_worst_case(plan); total.count() > 0)
    out += "verifying it takes " + minutes(total) + " at most; apply gives it " +
           minutes(plan.verify_budget) + " without --budget\n";
  if (!plan.notes.empty()) {
    out += "\nnotes:\n";
    for (const std::string& n : plan.notes) out += "  - " + n + "\n";
  }
  return out;
}

}  // namespace tuner
