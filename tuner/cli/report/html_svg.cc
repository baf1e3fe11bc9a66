#include "tuner/cli/report/html_svg.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/cli/report/fleet.h"
#include "tuner/verify/stats.h"

namespace tuner {

namespace {

/// A coordinate or a number in an attribute: plain, short, never NaN.
std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : "null"; }
std::string px(double v) { return fmt::format("{:.1f}", v); }

/// The first `chars` code points of s, "..." when cut (s is valid UTF-8 by then).
std::string shortened(const std::string& s, std::size_t chars) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (n++ == chars) return s.substr(0, i) + "...";
  }
  return s;
}

/// & < > " ' as character references.
std::string entities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

/// A linear map of [lo, hi] onto [a, b].
struct Scale {
  double lo, hi, a, b;
  double operator()(double v) const { return a + (v - lo) / (hi - lo) * (b - a); }
};

}  // namespace

std::string html_text(std::string_view s) { return entities(escape_controls(bounded_text(s))); }

std::string percent(double v) {
  if (!std::isfinite(v)) return "-";
  // Two calls: GCC 12 miscompiles a format string chosen at run time (a crash, or worse).
  if (std::fabs(v) < 0.001 && v != 0) return fmt::format("{:+.2f}%", 100 * v);
  return fmt::format("{:+.1f}%", 100 * v);
}

std::string short_number(double v) {
  if (!std::isfinite(v)) return "-";
  for (auto [scale, suffix] : {std::pair{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}})
    if (std::fabs(v) >= scale) return fmt::format("{:.4g}{}", v / scale, suffix);
  return fmt::format("{:.4g}", v);
}

std::string trials_svg(const verify::Comparison& c, std::string_view label) {
  std::size_t n = std::min({c.values.size(), c.order.size(), kMaxTrialsDrawn});
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(c.values[i])) lo = std::min(lo, c.values[i]), hi = std::max(hi, c.values[i]);
  if (n == 0 || lo > hi) return "";
  double span = std::max({hi - lo, std::fabs(hi) * 0.02, 1e-12});
  const double w = 440, h = 150, left = 62, right = 10, top = 10, bottom = 22;
  Scale y{lo - 0.08 * span, hi + 0.08 * span, h - bottom, top};
  Scale x{0, n > 1 ? static_cast<double>(n - 1) : 1.0, left + 6, w - right - 6};
  auto xi = [&](std::size_t i) { return n > 1 ? x(static_cast<double>(i)) : (left + w) / 2; };
  std::string title = html_text(label);
  std::string out = fmt::format(
      "<svg class=\"trials\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" "
      "width=\"{0}\" height=\"{1}\" role=\"img\" aria-label=\"{2}\" data-trials=\"{3}\">"
      "<title>{2}</title>",
      w, h, title, n);
  // Axes, three values on the left (low, middle, high), the first and last trial below.
  out += fmt::format("<path class=\"axis\" d=\"M{0} {1}V{2}H{3}\"/>", px(left), px(top),
                     px(h - bottom), px(w - right));
  for (double v : {lo, (lo + hi) / 2, hi}) {
    if (lo == hi && v != lo) continue;
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                       px(left - 4), px(y(v) + 3), html_text(short_number(v)));
  }
  out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\">1</text>", px(xi(0) - 3), px(h - 6));
  out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                     px(left - 4), px(h - 6), html_text(c.unit));
  if (n > 1)
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">trial {}</text>",
                       px(w - right), px(h - 6), n);
  if (c.values.size() > n)
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\">first {} of {} trials</text>",
                       px(left + 6), px(top + 8), n, c.values.size());
  for (char letter : {'A', 'B'}) {
    bool base = letter == 'A';
    std::vector<double> arm;
    std::string marks, line;
    for (std::size_t i = 0; i < n; ++i) {
      double v = c.values[i];
      if (c.order[i] != letter || !std::isfinite(v)) continue;
      arm.push_back(v);
      line += fmt::format("{}{} {}", line.empty() ? "M" : "L", px(xi(i)), px(y(v)));
      std::string tip = fmt::format("<title>trial {}, {}: {} {}</title>", i + 1,
                                    base ? "baseline (A)" : "candidate (B)",
                                    html_text(fmt::format("{:.6g}", v)), html_text(c.unit));
      if (base)
        marks += fmt::format(
            "<circle cx=\"{}\" cy=\"{}\" r=\"3.2\" data-i=\"{}\" data-value=\"{}\">{}</circle>",
            px(xi(i)), px(y(v)), i, num(v), tip);
      else
        marks += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"6\" height=\"6\" data-i=\"{}\" "
                             "data-value=\"{}\">{}</rect>",
                             px(xi(i) - 3), px(y(v) - 3), i, num(v), tip);
    }
    out += fmt::format("<g class=\"arm {}\" data-arm=\"{}\" data-count=\"{}\">", base ? "a" : "b",
                       base ? "baseline" : "candidate", arm.size());
    if (!arm.empty()) {
      double m = verify::median(arm);
      out += fmt::format(
          "<path class=\"median\" d=\"M{} {}H{}\"><title>{} median: {} {}</title></path>", px(left),
          px(y(m)), px(w - right), base ? "baseline" : "candidate",
          html_text(fmt::format("{:.6g}", m)), html_text(c.unit));
      out += fmt::format("<path class=\"run\" d=\"{}\"/>", line);
    }
    out += marks + "</g>";
  }
  return out + "</svg>";
}

std::string effects_svg(const std::vector<EffectRow>& rows, double min_effect,
                        double power_effect) {
  double lo = std::min(0.0, min_effect), hi = std::max(0.0, min_effect);
  if (power_effect > 0) hi = std::max(hi, power_effect);
  for (const EffectRow& r : rows)
    for (double v : {r.effect, r.low, r.high})
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  double span = std::max(hi - lo, 0.02);
  const double w = 440, label_w = 150, right = 14, top = 18, row_h = 20;
  const double h = top + row_h * static_cast<double>(rows.size()) + 18;
  Scale x{lo - 0.08 * span, hi + 0.08 * span, label_w + 6, w - right};
  auto clamp = [&](double v) { return std::clamp(v, x.lo, x.hi); };
  std::string out = fmt::format(
      "<svg class=\"effects\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" "
      "width=\"{0}\" height=\"{1}\" role=\"img\" aria-label=\"effects with intervals\">",
      w, h);
  // Ticks at a round step (1, 2 or 5 times a power of ten: about 5 of them, whether the
  // effects are 3% or +3000%), then zero, min_effect and power_effect over them.
  double raw = span / 5, step = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * step) {
      step *= m;
      break;
    }
  // An integer counter: a double one, stepped, drifts from the multiples of step.
  const double first = std::ceil(x.lo / step);
  for (int k = 0; (first + k) * step <= x.hi; ++k) {
    const double t = (first + k) * step;
    out += fmt::format(
        "<path class=\"grid\" d=\"M{0} {1}V{2}\"/><text class=\"tick\" x=\"{0}\" y=\"{3}\" "
        "text-anchor=\"middle\">{4}</text>",
        px(x(t)), px(top), px(h - 16), px(h - 4),
        fmt::format("{:g}%", std::round(t * 1e4) / 100 + 0.0));
  }
  out += fmt::format("<path class=\"zero\" d=\"M{0} {1}V{2}\"><title>no effect</title></path>",
                     px(x(0)), px(top - 4), px(h - 16));
  if (std::isfinite(min_effect))  // unknown in reports of earlier versions
    out += fmt::format(
        "<path class=\"min-effect\" d=\"M{0} {1}V{2}\"><title>min_effect {3}: a keep needs the "
        "interval above it</title></path><text class=\"tick min-effect\" x=\"{0}\" y=\"{4}\" "
        "text-anchor=\"middle\">min_effect</text>",
        px(x(clamp(min_effect))), px(top - 4), px(h - 16), percent(min_effect), px(top - 7));
  if (power_effect > 0)
    out += fmt::format(
        "<path class=\"power\" d=\"M{0} {1}V{2}\"><title>power_effect {3}: an early no_gain "
        "rules a gain this large out</title></path>",
        px(x(clamp(power_effect))), px(top), px(h - 16), percent(power_effect));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const EffectRow& r = rows[i];
    double cy = top + row_h * (static_cast<double>(i) + 0.5);
    std::string label = html_text(r.label);
    out +=
        fmt::format("<g class=\"effect {}\" data-row=\"{}\" data-effect=\"{}\" data-ci-low=\"{}\" "
                    "data-ci-high=\"{}\"><title>{}: {} [{}, {}]</title>"
                    "<text class=\"label\" x=\"4\" y=\"{}\">{}</text>",
                    html_text(r.kind), i, num(r.effect), num(r.low), num(r.high), label,
                    percent(r.effect), percent(r.low), percent(r.high), px(cy + 4),
                    entities(shortened(escape_controls(bounded_text(r.label)), 24)));
    if (!std::isnan(r.low) && !std::isnan(r.high)) {
      double a = x(clamp(r.low)), b = x(clamp(r.high));
      out += fmt::format("<path class=\"ci\" d=\"M{} {}H{}\"/>", px(a), px(cy), px(b));
      if (r.low < x.lo)
        out += fmt::format("<path class=\"arrow\" d=\"M{0} {1}l6 -4v8z\"/>", px(a), px(cy));
      if (r.high > x.hi)
        out += fmt::format("<path class=\"arrow\" d=\"M{0} {1}l-6 -4v8z\"/>", px(b), px(cy));
    }
    if (std::isfinite(r.effect))
      out += fmt::format("<circle class=\"point\" cx=\"{}\" cy=\"{}\" r=\"4\"/>",
                         px(x(clamp(r.effect))), px(cy));
    else
      out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\">no look yet</text>",
                         px(label_w + 10), px(cy + 4));
    out += "</g>";
  }
  return out + "</svg>";
}

}  // namespace tuner
