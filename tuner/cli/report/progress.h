// The verify loop's live progress line on a terminal (stderr): group, trial k of at
// most N, and the current estimate with its interval. Nothing when stderr is not a
// terminal or JSON goes to stdout; a Progress with a note is a warning line on stderr
// either way (the run's report carries it too).
#pragma once

#include <string>

#include "tuner/cli/report/term.h"
#include "tuner/verify/loop.h"

namespace tuner {

class ProgressLine {
 public:
  ProgressLine(ColorMode mode, bool quiet);
  /// The callback for VerifyLoop; a no-op when the line is off.
  verify::ProgressFn callback();
  /// Ends the line (a newline) if anything was drawn.
  void done();

 private:
  Term term_;
  bool on_ = false;
  bool drawn_ = false;
};

/// The noise pre-check in words ("; noisy: about 120 trials per arm needed (max 40)")
/// when a gain of power_effect is unlikely to be found by max_trials; "" otherwise.
std::string noise_note(const verify::Stats& s, unsigned max_trials);

/// "+4.1% [+1.2%, +7.0%]" from effect and interval (NaN: "-").
std::string format_effect(double effect, double low, double high);

}  // namespace tuner
