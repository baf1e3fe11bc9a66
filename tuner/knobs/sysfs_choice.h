// Kernel files that take one word of a set the kernel offers: cpufreq's scaling_governor
// (the set in scaling_available_governors) and energy_performance_preference
// (energy_performance_available_preferences), and THP's enabled and defrag, which list
// the set themselves with the current word in brackets ("always [madvise] never").
// Parsing is apart from reading (STYLE.md 2): the parsers take text and are tested on
// real files' text; ChoiceKnob, the base of those knobs, reads through the root.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tuner/knobs/file_knob.h"

namespace tuner {

struct Choice {
  std::string current;
  std::vector<std::string> offered;  // empty: not known, any well-formed word is tried
};

/// "always [madvise] never\n" -> {"madvise", {"always", "madvise", "never"}}. Exactly
/// one word must be bracketed.
Result<Choice> parse_bracketed_choice(std::string_view text);
/// "conservative ondemand performance \n" -> {"conservative", "ondemand", "performance"}.
std::vector<std::string> parse_word_list(std::string_view text);
/// A word a profile may ask for: 1 to 64 characters of [A-Za-z0-9_+-] ("defer+madvise",
/// "balance_performance"). The Error carries only `what` (callers add where).
Status validate_choice_word(std::string_view word);

/// The base of the knobs above: read() is the current word, canonical() refuses a word
/// the kernel does not offer, set() writes the word to path.
class ChoiceKnob : public FileKnob {
 public:
  /// what names the setting in messages ("governor", "THP defrag mode").
  ChoiceKnob(KnobId id, KnobContext& ctx, std::string path, std::string what)
      : FileKnob(std::move(id), ctx, std::move(path)), what_(std::move(what)) {}

  Result<std::string> read() override;
  Result<std::string> canonical(const std::string& desired) override;

 protected:
  /// The current word and the words offered, read now.
  virtual Result<Choice> choice() = 0;
  /// A value outside the offered words that the kernel takes and reads back (EPP's raw
  /// 0..255 under intel_pstate), so that rollback can restore it.
  virtual bool also_accepted(const std::string& /*value*/) const { return false; }

  std::string what_;
};

}  // namespace tuner
