#include "tuner/cli/report/run_text.h"

#include <cmath>
#include <optional>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/cli/report/group_story.h"
#include "tuner/cli/report/progress.h"

namespace tuner {

namespace {

using verify::BenchStats;

/// "+12.0% [+8.1%, +15.9%]" from a benchmark's effect and ci; "-" when unknown.
std::string effect_of(const BenchStats& b) {
  return format_effect(b.stats.effect, b.stats.ci_low, b.stats.ci_high);
}

std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : "-"; }

// A report file is anyone's: each of its fields is read only when it has its type.
/// j[key] when it is a string (control characters escaped), else `otherwise`.
std::string string_field(const nlohmann::json& j, const char* key, const char* otherwise = "") {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? escape_controls(it->get<std::string>())
                                          : std::string(otherwise);
}

/// j[key] when it is a number, else NaN.
double number_field(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : NAN;
}

std::string knob_list(const std::vector<std::string>& knobs) {
  std::string out;
  for (const auto& k : knobs) out += (out.empty() ? "" : ", ") + k;
  return out;
}

/// A soak's decision for a person: "tripped", "passed", or "no traffic: undecided" (it
/// judged nothing, so it is no evidence either way).
std::string soak_decision(const nlohmann::json& soak) {
  std::string d = soak.is_object() ? string_field(soak, "decision", "?") : "?";
  return d == "no_traffic" ? "no traffic: undecided" : d;
}

/// A proven interference: each test that proved it, then the processes that used the
/// CPU most unevenly between the arms (their names escaped: a process names itself).
std::string format_interference(const verify::Interference& in, const Term& term) {
  std::string out;
  auto test = [&](const char* what, const verify::LoadTest& t, const std::string& b,
                  const std::string& c, const std::string& floor) {
    if (!t.proven) return;
    out += fmt::format("    {}: other {} {} -> {} (medians per trial, baseline -> candidate; p {}, "
                       "{} apart needed)\n",
                       term.red("interference"), what, b, c, num(t.p), floor);
  };
  test("CPU use", in.cpu, fmt::format("{:.2f}", in.cpu.baseline),
       fmt::format("{:.2f} CPUs", in.cpu.candidate), fmt::format("{:g} CPU", in.cpu.floor));
  if (in.cpu.proven && in.demand.judged)
    out += fmt::format("      used or waited for: {:.2f} -> {:.2f} CPUs (p {})\n",
                       in.demand.baseline, in.demand.candidate, num(in.demand.p));
  test("traffic", in.traffic, fmt::format("{:.3g}", in.traffic.baseline / 1e6),
       fmt::format("{:.3g} MB/s", in.traffic.candidate / 1e6),
       fmt::format("{:g} MB/s", in.traffic.floor / 1e6));
  for (const verify::LoadConsumer& c : in.consumers)
    out += fmt::format("      pid {} {} ({}{}): {:.2f} -> {:.2f} CPUs\n", c.pid,
                       escape_controls(c.comm),
                       c.uid ? fmt::format("uid {}", *c.uid) : std::string("uid unknown"),
                       c.kernel_thread ? ", kernel thread" : "", c.baseline, c.candidate);
  out += "    the rest of the node's load followed the arms: the measurement cannot be trusted, "
         "rolled back\n";
  return out;
}

/// One line per bisect measurement: which knobs, what they did alone, the effect.
std::string format_bisect(const verify::Bisect& b, const Term& term) {
  std::string out = "    " + term.bold("bisect") + ": ";
  if (b.culprit) out += "hurts: " + knob_list(*b.culprit);
  if (!b.note.empty()) out += (b.culprit ? "; " : "") + b.note;
  out += "\n";
  auto line = [&](const verify::Comparison& m, const nlohmann::json& soak,
                  const std::vector<std::string>& knobs, std::string_view outcome,
                  const std::string& what) {
    // A soaked part has a soak decision instead of an effect (a file is anyone's: the
    // decision is read only when it is a string).
    std::string numbers = "effect " + effect_of(m);
    if (!soak.is_null()) numbers = "soak " + soak_decision(soak);
    return fmt::format("      {}{}: {}, {}\n", what, escape_controls(knob_list(knobs)), outcome,
                       numbers);
  };
  for (const auto& step : b.steps)
    out += line(step, step.soak, step.knobs, verify::step_outcome_name(step.outcome), "alone ");
  if (b.rest)
    out += line(*b.rest, b.rest->soak, b.rest->knobs, verify::reason_name(b.rest->outcome),
                "the rest ");
  return out;
}

}  // namespace

/// The value search's race: one line per candidate, then what was chosen.
std::string format_search(const nlohmann::json& s, const Term& term) {
  std::string out = "    " + term.bold("search") + " " + string_field(s, "knob") + ":";
  auto blocks = s.find("blocks");
  if (blocks != s.end() && blocks->is_number_unsigned())
    out += fmt::format(" {} screening blocks", blocks->get<unsigned>());
  out += "\n";
  auto cands = s.find("candidates");
  if (cands != s.end() && cands->is_array())
    for (const nlohmann::json& c : *cands) {
      if (!c.is_object()) continue;
      double effect = number_field(c, "effect");
      std::string gone;
      auto at = c.find("dropped_at");
      std::string why = string_field(c, "dropped_for");
      why = why == "behind_best" ? "behind the best"
            : why == "guard"     ? "guard tripped: " + string_field(c, "guard")
            : why == "refused"   ? "refused by the kernel: " + string_field(c, "refused")
                                 : "short of min_effect";
      if (at != c.end() && at->is_number_unsigned())
        gone = fmt::format(", out after {} ({})", at->get<unsigned>(), why);
      out += fmt::format("      {}: {}{}\n", string_field(c, "value"),
                         std::isfinite(effect) ? fmt::format("{:+.1f}%", 100 * effect) : "?", gone);
    }
  std::string chosen = string_field(s, "chosen");
  if (chosen.empty()) out += "      no candidate went to confirmation\n";
  else out += "      " + term.bold("chosen " + chosen) + ", confirmed against the baseline above\n";
  if (!string_field(s, "error").empty())
    out += "      " + term.red(string_field(s, "error")) + "\n";
  return out;
}

std::string format_group_stats(const verify::GroupOutcome& o, const Term& term) {
  std::string out;
  if (o.search.is_object()) out += format_search(o.search, term);
  bool tripped = false;
  if (const auto& m = o.measured) {
    // The mean's gain and p beside the typical one's (a stall shows there only).
    std::string mean = std::isfinite(m->stats.mean_effect)
                           ? fmt::format(", mean {:+.1f}% (p {})", 100 * m->stats.mean_effect,
                                         num(m->stats.p_mean))
                           : std::string();
    out += fmt::format(
        "    {}: baseline {} -> candidate {} {}, effect {}{}, p {}, trials {}+{}{}\n", m->bench,
        num(m->stats.baseline_median), num(m->stats.candidate_median), m->unit, effect_of(*m), mean,
        num(m->stats.p), m->trials_baseline, m->trials_candidate,
        m->order.empty() ? std::string() : fmt::format(", seed {}", m->seed));
    if (m->stats.outliers)
      out += fmt::format("    {} of {} units left out of the test as outliers\n", m->stats.outliers,
                         m->stats.units);
    if (m->stats.power_at_max < 0.8)
      out += "    " + term.yellow("noisy: ") +
             fmt::format("about {} trials per arm would find a gain of power_effect ({:.0f}% "
                         "chance by max_trials)\n",
                         m->stats.trials_needed, 100 * m->stats.power_at_max);
    for (const auto& w : m->watches) {
      tripped = tripped || w.tripped;
      std::string why =
          !w.tripped ? std::string()
          : w.margin && !w.non_inferior
              ? " " + term.red(fmt::format("a loss of {:.1f}% not ruled out", 100 * *w.margin))
              : " " + term.red("harm");
      out += fmt::format("    watch {}: baseline {} -> candidate {} {}, effect {}{}\n", w.bench,
                         num(w.stats.baseline_median), num(w.stats.candidate_median), w.unit,
                         effect_of(w), why);
    }
    for (const auto& gd : m->guards)
      if (gd.tripped) {
        out += "    " + term.red("guard ") + gd.text + "\n";
        // The bound the candidate was proven above, where the report recorded it.
        if (gd.bound) out += "      tested: " + guard_bound_text(gd) + "\n";
        tripped = true;
      } else if (gd.metric == bench::GuardMetric::tcp_retrans_pct && !gd.source.empty()) {
        // Which traffic the retransmit guard judged, also when it passed or could not judge.
        out += fmt::format("    guard tcp_retrans_pct on {}: {:.2f}% -> {:.2f}%{}\n", gd.source,
                           gd.baseline, gd.candidate, gd.note.empty() ? "" : " (" + gd.note + ")");
      }
    for (const auto& gd : m->guards)
      if (gd.expected && gd.expected->baseline + gd.expected->candidate > 0)
        out += fmt::format(
            "    link_flaps {}: {} and {} carrier changes in the settle windows after writes "
            "(baseline, candidate): expected, not counted\n",
            gd.interface, gd.expected->baseline, gd.expected->candidate);
    bool interfered = m->interference && m->interference->flagged;
    if (interfered) out += format_interference(*m->interference, term);
    // A tripped guard's error, or a proven interference's, repeats the lines above.
    if (!m->error.empty() && !(tripped && o.reason == verify::Reason::guard) && !interfered)
      out += "    " + m->error + "\n";
  }
  if (o.time_cap && o.time_cap->reached)
    out += fmt::format(
        "    trials stopped at its share of the budget ({:.0f} s): kept unless harmed, and no "
        "harm was proven in them\n",
        o.time_cap->seconds);
  if (!o.unmeasured.empty()) out += "    " + o.unmeasured + "\n";
  if (o.soak.is_object()) {
    double window = number_field(o.soak, "window_s");
    out += fmt::format("    soak: guards {}s before and after the write: {}\n",
                       std::isfinite(window) ? window : 0.0, soak_decision(o.soak));
    if (o.soak.contains("note")) out += "      " + string_field(o.soak, "note", "?") + "\n";
  }
  if (!o.measured && !o.error.empty()) out += "    " + term.red(escape_controls(o.error)) + "\n";
  if (o.bisect) out += format_bisect(*o.bisect, term);
  return out;
}

std::string format_run_report(const RunReport& r, const Term& term) {
  std::string out;
  if (r.run_id.empty()) return "nothing to change\n";
  out += fmt::format("run {}\n", term.bold(r.run_id));
  if (std::string p = profile_text(r.profiles, r.profile_digest); !p.empty())
    out += "profile " + escape_controls(p) + "\n";
  for (const auto& g : r.groups) {
    // A group applied without verification has no numbers.
    std::optional<verify::GroupOutcome> o;
    std::string unreadable;
    if (!g.stats.empty()) {
      auto read = verify::outcome_from_json(g.stats);
      if (read.ok()) o = std::move(read).value();
      else unreadable = read.error().message();
    }
    // A knob known only from a done record (its intent damaged) has no group.
    out += fmt::format("  group {} ({}{})\n",
                       g.name.empty() ? "? (intent record damaged)" : escape_controls(g.name),
                       group_decision_name(g.decision),
                       o ? std::string(": ") + verify::reason_name(o->reason) : "");
    // Why, in words: the reason, a run failure's rollback, a refused write, the parts
    // (not guessed from numbers that could not be read).
    if (std::string why = unreadable.empty() ? group_why(g.decision, o ? &*o : nullptr, g.changes,
                                                         !r.errors.empty())
                                             : std::string();
        !why.empty())
      out += "    " + escape_controls(why) + "\n";
    if (o) out += format_group_stats(*o, term);
    if (!unreadable.empty())
      out += "    " + term.yellow("numbers unreadable: ") + unreadable + "\n";
    for (const auto& c : g.changes) {
      std::string before = c.before ? *c.before : "?";
      std::string name = change_status_name(c.status);
      std::string mark;
      switch (c.status) {
        case ChangeStatus::applied:
        case ChangeStatus::restored: mark = term.green(name); break;
        case ChangeStatus::skipped: mark = term.yellow(name + ": refused by the kernel"); break;
        case ChangeStatus::gone:
        case ChangeStatus::changed_since: mark = term.yellow(name); break;
        case ChangeStatus::failed:
        case ChangeStatus::restore_failed: mark = term.red(name); break;
        case ChangeStatus::rolled_back:
        case ChangeStatus::not_applied: mark = name; break;
      }
      if (!c.before && c.after.empty())
        out += fmt::format("    {}: values unknown  {}\n", c.knob, mark);
      else out += fmt::format("    {}: {} -> {}  {}\n", c.knob, before, c.after, mark);
      if (!c.error.empty())
        out += fmt::format("      {}\n",
                           c.status == ChangeStatus::skipped ? c.error + ": skipped" : c.error);
    }
  }
  for (const auto& n : r.notes) out += "note: " + n.message + "\n";
  for (const auto& w : r.warnings) out += term.yellow("warning: ") + w.message + "\n";
  for (const auto& e : r.errors) out += term.red("error: ") + e.message + "\n";
  return out;
}

}  // namespace tuner
