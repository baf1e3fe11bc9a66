// The drawings of `tuner report --html` (html_report.h), as inline SVG: a
// measurement's trials in the order run, and effects with their intervals against zero
// and min_effect. Text from a report (names, knobs, values) is anyone's: every string
// goes through html_text(), every number is formatted here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tuner/verify/outcome.h"

namespace tuner {

/// At most this many trials are drawn per plot (a run caps them at 2 x max_trials,
/// 2000; a report from elsewhere may hold more).
inline constexpr std::size_t kMaxTrialsDrawn = 2000;

/// s as HTML text or attribute value: shown as the text report shows it (controls,
/// bidirectional overrides and bytes that are not UTF-8 escaped, escape_controls), then
/// & < > " ' as character references. Cut at kMaxReportText bytes.
std::string html_text(std::string_view s);

/// "+4.1%" ("-" when not finite).
std::string percent(double v);

/// "708.2M", "1.63G", "0.0632": 4 digits, an SI prefix from k up ("-" when not finite).
std::string short_number(double v);

/// The trials of one measurement in the order run (values aligned with order): the
/// baseline's (A) as circles, the candidate's (B) as squares, each arm's median as a
/// dashed line; `<svg class="trials">` with data-trials, one `<g class="arm"
/// data-arm="baseline|candidate">` per arm and data-i / data-value on each mark. ""
/// when the measurement has no per-trial values (reports of earlier versions).
std::string trials_svg(const verify::Comparison& c, std::string_view label);

/// One row of an effect plot.
struct EffectRow {
  std::string label;                     // shown as it is (escaped here)
  double effect = 0, low = 0, high = 0;  // relative, + = better; NaN: unknown
  std::string kind;                      // CSS class of the mark: "good", "bad" or "" (neutral)
};

/// Effects with their intervals on one axis, a row each, with the zero line and the
/// `min_effect` line (none when NaN: reports of earlier versions) and `power_effect`,
/// dotted, when > 0; an infinite bound runs to the edge with an arrow. `<svg
/// class="effects">`, a `<g class="effect" data-row=N data-effect data-ci-low
/// data-ci-high>` per row.
std::string effects_svg(const std::vector<EffectRow>& rows, double min_effect, double power_effect);

}  // namespace tuner
