// Taking one number out of a benchmark program's output: a regular expression's first
// capture group, or a JSON pointer. Pure functions on text, so each supported tool is
// tested on its real captured output (tests/fixtures/bench/).
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace tuner::bench {

/// How the exec benchmark finds its metric: { regex = '...' } or { json = "/a/b" }.
struct MetricExpr {
  enum class Kind { regex, json };
  Kind kind = Kind::regex;
  /// An ECMAScript regex with at least one capture group, or an RFC 6901 JSON pointer.
  std::string expr;
};

/// "regex '([0-9.]+) ops/s'" / "json pointer /end/sum_received/bits_per_second", for
/// messages.
std::string describe(const MetricExpr& m);

/// Checks the expression without any output: the regex compiles and has a capture
/// group, the pointer is well formed. Errors say what is wrong with it.
Status validate(const MetricExpr& m);

/// A whole-string decimal or scientific number ("12.3456", "1.2e9", "-3"); surrounding
/// blanks are allowed, thousands separators, units and non-finite values are not.
Result<double> parse_number(std::string_view text);

/// The first capture group of the LAST match, searched line by line (a pattern cannot
/// span lines). Last, because tools print progress first and their summary at the end
/// (iperf3's text mode, nccl-tests' "# Avg bus bandwidth" line); anchor the pattern on
/// the summary's wording when a tool prints the figure more than once.
Result<double> extract_regex(std::string_view text, const std::string& pattern);

/// The number at `pointer` in the JSON document of `text`. Text before the first line
/// starting with '{' or '[' is skipped (fio prints notes there). A string that holds a
/// whole number ("123.4") is accepted, as some tools quote their numbers.
Result<double> extract_json(std::string_view text, const std::string& pointer);

/// Dispatches on m.kind.
Result<double> extract_metric(std::string_view text, const MetricExpr& m);

}  // namespace tuner::bench
