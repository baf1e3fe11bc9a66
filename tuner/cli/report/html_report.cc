#include "tuner/cli/report/html_report.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/core.h>

#include "base/atomic_file.h"
#include "base/fd_io.h"
#include "base/json_nesting.h"
#include "tuner/cli/report/group_story.h"
#include "tuner/cli/report/html_svg.h"

namespace tuner {

namespace {

using nlohmann::json;

// A page shows this many settings of a group at most (a report is anyone's).
constexpr std::size_t kMaxChangesPerGroup = 256;

// No script, no fetch: the policy tells the browser so, whatever a report held.
constexpr const char* kHead = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tuner report</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}
h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.2em;margin:1.6em 0 .4em;border-bottom:1px solid #ccc}
h4{margin:.6em 0 .2em}code{font-size:.95em}small{color:#555}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
table.summary td a{color:inherit;text-decoration:none;font-weight:600}
td.kept,.badge.kept{background:#dff0d8}td.rolled_back,.badge.rolled_back{background:#f8dcdc}
td.applied,.badge.applied{background:#e8eef8}td.failed{background:#f3c4c4}td.none{color:#aaa}
.badge{padding:0 .4em;border-radius:3px;font-size:.9em}
.cards{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start}
.card{margin:0;border:1px solid #ccc;border-radius:6px;padding:8px 10px;width:460px}
.card figcaption{margin-bottom:4px}.numbers{margin:.2em 0;font-size:.9em}
.error{color:#a40000;overflow-wrap:anywhere}.note,.legend{color:#555}
svg{display:block;margin:6px 0;overflow:visible}svg text{font:10px system-ui,sans-serif;fill:#444}
.axis{stroke:#888;fill:none}.grid{stroke:#eee}.zero{stroke:#666;stroke-width:1.2}
.min-effect{stroke:#2a7d2a;stroke-dasharray:5 3;stroke-width:1.4}text.min-effect{fill:#2a7d2a;stroke:none}
.power{stroke:#999;stroke-dasharray:1 3}
.arm.a{fill:#2f6db5;stroke:#2f6db5}.arm.b{fill:#e07b00;stroke:#e07b00}
.arm .run{fill:none;stroke-opacity:.35}.arm .median{stroke-dasharray:6 3;stroke-opacity:.8}
.arm circle,.arm rect{stroke:none}
.ci{stroke:#444;stroke-width:2}.point{fill:#444}.arrow{fill:#444}
.effect.good .ci,.effect.good .point,.effect.good .arrow{stroke:#2a7d2a;fill:#2a7d2a}
.effect.bad .ci,.effect.bad .point,.effect.bad .arrow{stroke:#b00;fill:#b00}
.effect.dim{opacity:.45}
table.guards{font-size:.85em;margin:6px 0}tr.tripped td{background:#f8dcdc}
.bisect ol{padding-left:1.4em;margin:.2em 0}.step{margin:.3em 0}
.why{margin:.2em 0}.profile{color:#555}
table.changes{font-size:.85em;margin:4px 0}table.changes td{overflow-wrap:anywhere}
table.changes td:last-child{overflow-wrap:normal;min-width:5em}
tr.change.applied td{background:#eef7ea}tr.change.refused td,tr.change.failed td{background:#f8dcdc}
</style></head><body>
)";

constexpr const char* kLegend =
    R"(<p class="legend">Trials: <svg width="10" height="10" style="display:inline;margin:0"><circle cx="5" cy="5" r="3.2" fill="#2f6db5"/></svg> baseline (A),
<svg width="10" height="10" style="display:inline;margin:0"><rect x="2" y="2" width="6" height="6" fill="#e07b00"/></svg> candidate (B),
left to right in the order they ran (a drift or an outlier shows); dashed: each arm's median.
Effects: the dot is the estimate (+ = better), the line its interval; solid grey: no effect;
dashed green: min_effect (a keep needs the whole interval right of it); dotted: power_effect.</p>
)";

std::string string_at(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

/// The summary cell's second line: the outcome and the effect that decided it (a
/// partly kept group's: each part's), or what else ended the group.
std::string cell_note(const HtmlRun& r, const HtmlGroup& g) {
  bool refused = std::any_of(g.changes.begin(), g.changes.end(), [](const ChangeReport& c) {
    return c.status == ChangeStatus::skipped;
  });
  bool write_failed = std::any_of(g.changes.begin(), g.changes.end(), [](const ChangeReport& c) {
    return c.status == ChangeStatus::failed;
  });
  std::string tail = refused ? ", write refused" : "";
  if (write_failed) return "write failed: run rolled back" + tail;
  if (!g.outcome) {
    if (!g.problem.empty()) return "unreadable" + tail;
    if (g.decision == "rolled_back" && r.failed) return "run failed" + tail;
    return refused ? "write refused" : "";
  }
  const verify::GroupOutcome& o = *g.outcome;
  if (g.decision == "rolled_back" && verify::decision_of(o.reason) != GroupDecision::rolled_back)
    return std::string(r.failed ? "run failed" : "put back") + ", was " +
           verify::reason_name(o.reason) + tail;
  if (o.reason == verify::Reason::partly_kept) {
    PartlyKept p = partly_kept_parts(o);
    auto part = [](const char* what, const GroupPart& gp) {
      return fmt::format("{} {}{}", what, gp.knobs.size(),
                         gp.measured ? " " + percent(gp.measured->stats.effect) : "");
    };
    return "partly kept: " + part("kept", p.kept) + ", " + part("back", p.rolled_back) + tail;
  }
  std::string out = verify::reason_name(o.reason);
  if (o.measured) out += " " + percent(o.measured->stats.effect);
  return out + tail;
}

std::string summary_table(const std::vector<HtmlRun>& runs,
                          const std::vector<std::string>& groups) {
  std::string out = "<table class=\"summary\" id=\"summary\"><tr><th>node</th>";
  for (const std::string& g : groups) out += "<th>" + html_text(g) + "</th>";
  out += "<th>run</th></tr>";
  for (std::size_t n = 0; n < runs.size(); ++n) {
    const HtmlRun& r = runs[n];
    out += "<tr data-node=\"" + html_text(r.node) + "\"><th>" + html_text(r.node) + "</th>";
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      auto it = std::find_if(r.groups.begin(), r.groups.end(),
                             [&](const HtmlGroup& g) { return g.name == groups[gi]; });
      if (it == r.groups.end()) {
        out += "<td class=\"none\">&ndash;</td>";
        continue;
      }
      out += fmt::format(
          "<td class=\"{0}\" data-group=\"{1}\"><a href=\"#g{2}-n{3}\">{4}</a><br><small>{5}"
          "</small></td>",
          html_text(it->decision), html_text(it->name), gi, n,
          html_text(it->decision == "rolled_back" ? "rolled back" : it->decision),
          html_text(cell_note(r, *it)));
    }
    std::string run = r.failed ? "<b>failed</b> " : "";
    if (std::string p = profile_text(r.profiles, r.profile_digest); !p.empty())
      run += "<div class=\"profile\">profile <code>" + html_text(p) + "</code></div>";
    run += html_text(r.time.empty() ? "" : r.time) + (r.run_id.empty() ? "" : " <small>") +
           html_text(r.run_id) + (r.run_id.empty() ? "" : "</small>");
    for (const std::string& e : r.errors) run += "<div class=\"error\">" + html_text(e) + "</div>";
    out += "<td" + std::string(r.failed ? " class=\"failed\"" : "") + ">" + run + "</td></tr>";
  }
  return out + "</table>";
}

}  // namespace

Result<HtmlRun> html_run_from_json(const json& doc, const std::string& node) {
  if (!doc.is_object()) return Error::invalid("not a JSON object", node);
  std::string schema = string_at(doc, "schema");
  HtmlRun r;
  r.node = node;
  r.time = string_at(doc, "time");
  r.run_id = string_at(doc, "run_id");
  r.profile_digest = string_at(doc, "profile_digest");
  if (auto p = doc.find("profiles"); p != doc.end() && p->is_array())
    for (const json& name : *p)
      if (name.is_string() && r.profiles.size() < kMaxGroupsPerNode)
        r.profiles.push_back(name.get<std::string>());
  if (schema == "tuner.failure/1") {
    r.failed = true;
    r.errors.push_back(string_at(doc, "msg"));
    return r;
  }
  if (schema != "tuner.run/1")
    return Error::invalid("not a tuner.run/1 or tuner.failure/1 document", node);
  if (auto e = doc.find("errors"); e != doc.end() && e->is_array())
    for (const json& m : *e) {
      if (r.errors.size() == kMaxErrorsPerNode) break;
      // Plain strings until 2026-12, {message, knob?, where?} since.
      if (m.is_string()) r.errors.push_back(m.get<std::string>());
      else if (m.is_object()) r.errors.push_back(string_at(m, "message"));
    }
  r.failed = !r.errors.empty();
  auto groups = doc.find("groups");
  if (groups == doc.end() || !groups->is_array()) return r;
  for (const json& g : *groups) {
    if (r.groups.size() == kMaxGroupsPerNode || !g.is_object()) break;
    HtmlGroup& out = r.groups.emplace_back();
    out.name = string_at(g, "name");
    out.decision = string_at(g, "decision");
    if (auto c = g.find("changes"); c != g.end()) out.changes = changes_from_json(*c);
    if (out.changes.size() > kMaxChangesPerGroup) out.changes.resize(kMaxChangesPerGroup);
    // {}: no numbers (applied without verification, or the run ended before its decision).
    auto stats = g.find("stats");
    if (stats == g.end() || stats->is_null() || (stats->is_object() && stats->empty())) continue;
    auto o = verify::outcome_from_json(*stats);
    if (o.ok()) out.outcome = std::move(o).value();
    else out.problem = "its numbers could not be read: " + o.error().message();
  }
  return r;
}

std::string html_report(const std::vector<HtmlRun>& runs) {
  std::vector<std::string> groups;
  std::set<std::string> seen;
  for (const HtmlRun& r : runs)
    for (const HtmlGroup& g : r.groups)
      if (seen.insert(g.name).second) groups.push_back(g.name);
  std::size_t failed = std::count_if(runs.begin(), runs.end(), [](auto& r) { return r.failed; });
  std::string out = kHead;
  out += fmt::format(
      "<h1>tuner report</h1><p>{} node{}, {} group{}{}. Each verify decision below with its "
      "trials; the table links to them.</p>\n",
      runs.size(), runs.size() == 1 ? "" : "s", groups.size(), groups.size() == 1 ? "" : "s",
      failed ? fmt::format(", {} with errors", failed) : "");
  out += summary_table(runs, groups) + "\n" + kLegend;
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    out += fmt::format("<section class=\"group\" id=\"g{}\" data-group=\"{}\"><h2>group <code>{}"
                       "</code></h2><div class=\"cards\">\n",
                       gi, html_text(groups[gi]), html_text(groups[gi]));
    for (std::size_t n = 0; n < runs.size(); ++n)
      for (const HtmlGroup& g : runs[n].groups)
        if (g.name == groups[gi]) {
          out += html_group_card(runs[n], g, fmt::format("g{}-n{}", gi, n)) + "\n";
          break;
        }
    out += "</div></section>\n";
  }
  return out + "</body></html>\n";
}

Status write_html_report(const std::string& file, const std::vector<NodeReport>& documents,
                         const FleetSummary& summary) {
  std::set<std::string> ignored;
  for (const Duplicate& d : summary.duplicates) ignored.insert(d.ignored.begin(), d.ignored.end());
  std::vector<HtmlRun> runs;
  std::map<std::string, std::size_t> by_node;
  for (const NodeReport& d : documents) {
    if ((d.kind != "run" && d.kind != "failure") || ignored.contains(d.source)) continue;
    // The fleet summary read only names and decisions; the page needs every number.
    auto text = read_file(d.source, ReadLimits{.max_bytes = 64u << 20, .regular_only = true});
    if (!text.ok()) return text.error();
    if (Status depth = check_json_nesting(*text, d.source); !depth.ok()) return depth.error();
    json doc = json::parse(*text, nullptr, false);
    auto run = html_run_from_json(doc, d.node);
    if (!run.ok()) return Error::invalid(run.error().message(), d.source);
    // A node's failure and its run report of one rollout: one row.
    if (auto it = by_node.find(d.node); it != by_node.end()) {
      HtmlRun& same = runs[it->second];
      same.failed = same.failed || run->failed;
      for (std::string& e : run->errors) same.errors.push_back(std::move(e));
      if (same.groups.empty()) same.groups = std::move(run->groups);
      continue;
    }
    by_node[d.node] = runs.size();
    runs.push_back(std::move(run).value());
  }
  std::stable_sort(runs.begin(), runs.end(),
                   [](const HtmlRun& a, const HtmlRun& b) { return a.node < b.node; });
  return write_file_atomic(file, html_report(runs), 0644);
}

}  // namespace tuner
