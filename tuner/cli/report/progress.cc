#include "tuner/cli/report/progress.h"

#include <unistd.h>

#include <cmath>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {

namespace {

std::string pct(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  return fmt::format("{:+.1f}%", 100 * v);
}

}  // namespace

std::string noise_note(const verify::Stats& s, unsigned max_trials) {
  if (!(s.power_at_max < 0.8) || s.trials_needed <= max_trials) return "";
  return fmt::format("; noisy: about {} trials per arm needed (max {})", s.trials_needed,
                     max_trials);
}

std::string format_effect(double effect, double low, double high) {
  if (std::isnan(effect)) return "-";
  return fmt::format("{} [{}, {}]", pct(effect), pct(low), pct(high));
}

ProgressLine::ProgressLine(ColorMode mode, bool quiet)
    : term_(mode, STDERR_FILENO), on_(!quiet && capable_terminal(STDERR_FILENO)) {}

verify::ProgressFn ProgressLine::callback() {
  return [this](const verify::Progress& p) {
    if (!p.note.empty()) {
      // Said once, on its own line, terminal or not (stderr: stdout stays the report).
      fmt::print(stderr, "{}tuner: warning: {}\n", drawn_ ? "\r\033[K" : "",
                 escape_controls(p.note));
      std::fflush(stderr);
      drawn_ = false;
      return;
    }
    if (!on_) return;
    std::string est = p.stats.look == 0 ? std::string("measuring")
                                        : "effect " + format_effect(p.stats.effect, p.stats.ci_low,
                                                                    p.stats.ci_high);
    std::string step = p.step.size() > 48 ? p.step.substr(0, 45) + "..." : p.step;
    std::string line = fmt::format("verify {}{}: trial {}/{} ({}) {}", term_.bold(p.group),
                                   step.empty() ? "" : " [" + step + "]", p.trial, p.max_trials,
                                   p.arm == verify::Arm::baseline ? "baseline" : "candidate", est);
    line += noise_note(p.stats, p.max_trials / 2);
    fmt::print(stderr, "\r\033[K{}", term_.printable(line));
    std::fflush(stderr);
    drawn_ = true;
  };
}

void ProgressLine::done() {
  if (drawn_) fmt::print(stderr, "\r\033[K");
  drawn_ = false;
}

}  // namespace tuner
