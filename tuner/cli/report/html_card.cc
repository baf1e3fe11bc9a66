// One node's card for one group of `tuner report --html` (html_report.h).
#include <cmath>
#include <limits>

#include <fmt/core.h>

#include "tuner/cli/report/group_story.h"
#include "tuner/cli/report/html_report.h"
#include "tuner/cli/report/html_svg.h"

namespace tuner {

namespace {

using nlohmann::json;
using verify::Comparison;
using verify::GroupOutcome;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string knobs_text(const std::vector<std::string>& knobs) {
  std::string out;
  for (const std::string& k : knobs) out += (out.empty() ? "" : ", ") + k;
  return out;
}

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : "-"; }

/// A number of a search's JSON (a report is anyone's: read only when it is one).
double json_number(const json& j, const char* key) {
  auto it = j.is_object() ? j.find(key) : j.end();
  return it != j.end() && it->is_number() ? it->get<double>() : kNaN;
}
std::string json_string(const json& j, const char* key) {
  auto it = j.is_object() ? j.find(key) : j.end();
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

/// "effect +4.1% [+1.2%, +7.0%] (95%), p 0.0003, 10 + 10 trials, look 2 of 6".
std::string numbers_line(const Comparison& c) {
  const verify::Stats& s = c.stats;
  std::string out = fmt::format("effect <b>{}</b> [{}, {}]", percent(s.effect), percent(s.ci_low),
                                percent(s.ci_high));
  if (std::isfinite(s.ci_level)) out += fmt::format(" ({:g}%)", 100 * s.ci_level);
  out += fmt::format(", p {}, {} + {} trials, look {} of {}, verdict {}", number(s.p),
                     c.trials_baseline, c.trials_candidate, s.look, s.looks,
                     html_text(verify::verdict_name(c.verdict)));
  out += fmt::format("; medians A {} B {} {}", short_number(s.baseline_median),
                     short_number(s.candidate_median), html_text(c.unit));
  if (c.min_effect) out += fmt::format("; min_effect {}", percent(*c.min_effect));
  if (!c.order.empty())
    out += fmt::format("; seed {}, {} wash{}", c.seed, c.washes, c.washes == 1 ? "" : "es");
  return out;
}

const char* kind_of(verify::Reason r) {
  using verify::Reason;
  if (verify::decision_of(r) == GroupDecision::kept) return "good";
  return r == Reason::harm || r == Reason::guard || r == Reason::interference ? "bad" : "";
}

std::string guards_table(const std::vector<verify::GuardResult>& guards) {
  if (guards.empty()) return "";
  std::string out =
      "<table class=\"guards\"><tr><th>guard</th><th>baseline (A)</th><th>candidate (B)</th>"
      "<th></th></tr>";
  for (const verify::GuardResult& g : guards) {
    std::string name = bench::guard_metric_name(g.metric);
    if (!g.interface.empty()) name += " " + g.interface;
    bool pct = g.metric == bench::GuardMetric::tcp_retrans_pct;
    auto arm = [&](double per_trial, std::uint64_t events, double exposure) {
      std::string cell = pct ? fmt::format("{:.3g}%", per_trial)
                             : fmt::format("{:.3g} per trial", per_trial);
      if (g.counts)
        cell += fmt::format("<br><small>{} in {:.6g} {}</small>", events, exposure,
                            pct ? "segments" : "trials");
      return cell;
    };
    std::string verdict = g.tripped ? "<b>tripped</b>" : "ok";
    if (g.tripped && g.p) verdict += fmt::format(", p {}", number(*g.p));
    if (g.tripped) verdict += "<br><small>" + html_text(guard_bound_text(g)) + "</small>";
    out += fmt::format(
        "<tr class=\"guard{}\" "
        "data-metric=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        g.tripped ? " tripped" : "", html_text(bench::guard_metric_name(g.metric)), html_text(name),
        arm(g.baseline, g.counts ? g.counts->x_b : 0, g.counts ? g.counts->t_b : 0),
        arm(g.candidate, g.counts ? g.counts->x_c : 0, g.counts ? g.counts->t_c : 0), verdict);
  }
  return out + "</table>";
}

EffectRow row_of(std::string label, const verify::BenchStats& b, std::string kind) {
  return {std::move(label), b.stats.effect, b.stats.ci_low, b.stats.ci_high, std::move(kind)};
}

/// The effect plot's rows: the group, its watches, the bisect's measurements, the
/// search's screened candidates.
std::vector<EffectRow> effect_rows(const GroupOutcome& o) {
  std::vector<EffectRow> rows;
  if (o.measured) {
    rows.push_back(
        row_of(o.search.is_object() ? "confirmation" : "group", *o.measured, kind_of(o.reason)));
    for (const verify::WatchResult& w : o.measured->watches)
      rows.push_back(row_of("watch " + w.bench, w, w.tripped ? "bad" : ""));
  }
  if (o.bisect) {
    std::size_t k = 0;
    for (const verify::BisectStep& s : o.bisect->steps) {
      ++k;
      if (!s.soak.is_null()) continue;
      bool hurts = s.outcome == verify::StepOutcome::harm ||
                   s.outcome == verify::StepOutcome::guard;
      rows.push_back(
          row_of(fmt::format("step {}: {}", k, knobs_text(s.knobs)), s, hurts ? "bad" : ""));
    }
    if (o.bisect->rest && o.bisect->rest->soak.is_null())
      rows.push_back(row_of("rest: " + knobs_text(o.bisect->rest->knobs), *o.bisect->rest,
                            kind_of(o.bisect->rest->outcome)));
  }
  if (auto c = o.search.is_object() ? o.search.find("candidates") : o.search.end();
      c != o.search.end() && c->is_array())
    for (const json& cand : *c) {
      bool dropped = cand.is_object() && cand.contains("dropped_at") &&
                     !cand["dropped_at"].is_null();
      bool chosen = json_string(o.search, "chosen") == json_string(cand, "value") && !dropped;
      rows.push_back({"screen " + json_string(cand, "value") + (chosen ? " (chosen)" : ""),
                      json_number(cand, "effect"), json_number(cand, "ci_low"),
                      json_number(cand, "ci_high"), dropped ? "dim" : ""});
      if (rows.size() >= 64) break;
    }
  return rows;
}

std::string bisect_list(const verify::Bisect& b, const std::string& label) {
  std::string out = "<div class=\"bisect\"><h4>bisect</h4>";
  if (b.culprit) out += "<p>hurts: <code>" + html_text(knobs_text(*b.culprit)) + "</code></p>";
  if (!b.note.empty()) out += "<p>" + html_text(b.note) + "</p>";
  out += "<ol>";
  std::size_t k = 0;
  auto item = [&](const Comparison& c, const json& soak, const std::vector<std::string>& knobs,
                  const std::string& what, const std::string& outcome) {
    out += fmt::format("<li class=\"step\" data-outcome=\"{}\">{} <code>{}</code>: <b>{}</b>",
                       html_text(outcome), what, html_text(knobs_text(knobs)), html_text(outcome));
    if (!soak.is_null()) {
      out += ", soak " + html_text(json_string(soak, "decision")) + "</li>";
      return;
    }
    out += "<br><small>" + numbers_line(c) + "</small>";
    if (!c.error.empty()) out += "<p class=\"error\">" + html_text(c.error) + "</p>";
    out += trials_svg(c, label + ", " + what + " " + knobs_text(knobs)) + "</li>";
  };
  for (const verify::BisectStep& s : b.steps)
    item(s, s.soak, s.knobs, fmt::format("step {}", ++k), verify::step_outcome_name(s.outcome));
  if (b.rest)
    item(*b.rest, b.rest->soak, b.rest->knobs, "rest", verify::reason_name(b.rest->outcome));
  return out + "</ol></div>";
}

/// The group's settings: before -> after and what became of each (refused, rolled back).
std::string changes_table(const std::vector<ChangeReport>& changes) {
  if (changes.empty()) return "";
  std::string out =
      "<table class=\"changes\"><tr><th>setting</th><th>before</th><th>after</th><th></th></tr>";
  for (const ChangeReport& c : changes) {
    const char* cls = c.status == ChangeStatus::skipped ? "refused" : change_status_name(c.status);
    std::string status = change_status_words(c.status);
    if (!c.error.empty()) status += ": " + c.error;
    out += fmt::format(
        "<tr class=\"change {}\" data-knob=\"{}\"><td><code>{}</code></td><td>{}</td><td>{}</td>"
        "<td>{}</td></tr>",
        cls, html_text(c.knob), html_text(c.knob), html_text(c.before ? *c.before : "?"),
        html_text(c.after), html_text(status));
  }
  return out + "</table>";
}

}  // namespace

std::string html_group_card(const HtmlRun& run, const HtmlGroup& g, const std::string& anchor) {
  const GroupOutcome* o = g.outcome ? &*g.outcome : nullptr;
  std::string reason = o ? verify::reason_name(o->reason) : "";
  std::string out = fmt::format(
      "<figure class=\"card {0}\" id=\"{1}\" data-node=\"{2}\" data-group=\"{3}\" "
      "data-decision=\"{0}\" data-outcome=\"{4}\"><figcaption><b class=\"node\">{2}</b> "
      "<span class=\"badge {0}\">{5}</span> {4}",
      html_text(g.decision), anchor, html_text(run.node), html_text(g.name), html_text(reason),
      html_text(g.decision == "rolled_back" ? "rolled back" : g.decision));
  const Comparison* m = o && o->measured ? &*o->measured : nullptr;
  if (m) {
    const char* better = !m->direction                               ? ""
                         : *m->direction == verify::Direction::lower ? ", lower is better"
                                                                     : ", higher is better";
    out += fmt::format(" &middot; {} ({}{})", html_text(m->bench), html_text(m->unit), better);
  }
  out += "</figcaption>";
  GroupDecision decision = parse_group_decision(g.decision).value_or(GroupDecision::applied);
  // Not guessed from numbers that could not be read: the problem says so below.
  std::string why = g.problem.empty() ? group_why(decision, o, g.changes, run.failed) : "";
  if (!why.empty()) out += "<p class=\"why\">" + html_text(why) + "</p>";
  out += changes_table(g.changes);
  if (!g.problem.empty()) out += "<p class=\"error\">" + html_text(g.problem) + "</p>";
  if (!o) {
    return out + "</figure>";
  }
  std::string label = run.node + " / " + g.name;
  if (m) {
    out += "<p class=\"numbers\">" + numbers_line(*m) + "</p>";
    std::string trials = trials_svg(*m, label + ": trials in the order run");
    out += trials.empty()
               ? "<p class=\"note\">no per-trial values: a report of an earlier tuner</p>"
               : trials;
  }
  if (!o->unmeasured.empty()) out += "<p>" + html_text(o->unmeasured) + "</p>";
  std::vector<EffectRow> rows = effect_rows(*o);
  if (!rows.empty()) {
    double min_effect = m && m->min_effect ? *m->min_effect : kNaN;
    double power = m && m->power_effect ? *m->power_effect : 0;
    out += effects_svg(rows, min_effect, power);
  }
  if (m) out += guards_table(m->guards);
  if (o->soak.is_object()) {
    out += "<p class=\"soak\">soak: <b>" + html_text(json_string(o->soak, "decision")) + "</b>";
    if (std::string note = json_string(o->soak, "note"); !note.empty())
      out += ", " + html_text(note);
    out += "</p>";
    // The soak's guard rows have the shape of a measurement's: the one reader reads them.
    if (auto gs = o->soak.find("guards"); gs != o->soak.end() && gs->is_array()) {
      json fake = {{"outcome", "guard"}, {"bench", ""}, {"guards", *gs}};
      if (auto r = verify::outcome_from_json(fake); r.ok() && r->measured)
        out += guards_table(r->measured->guards);
    }
  }
  if (m && !m->error.empty()) out += "<p class=\"error\">" + html_text(m->error) + "</p>";
  if (!o->error.empty()) out += "<p class=\"error\">" + html_text(o->error) + "</p>";
  if (o->bisect) out += bisect_list(*o->bisect, label);
  if (o->search.is_object()) {
    out += fmt::format("<p class=\"search\">value search of <code>{}</code>: {} blocks, chosen {}",
                       html_text(json_string(o->search, "knob")),
                       number(json_number(o->search, "blocks")),
                       html_text(json_string(o->search, "chosen")));
    if (std::string e = json_string(o->search, "error"); !e.empty()) out += "; " + html_text(e);
    out += "</p>";
  }
  return out + "</figure>";
}

}  // namespace tuner
