// Taking one number out of a benchmark program's output: a regular expression's first
// capture group, or a JSON pointer. Pure functions on text, so each supported tool is
// tested on its real captured output (tests/fixtures/bench/).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tuner::bench {

/// How the exec benchmark finds its metric: { regex = '...' } or { json = "/a/b" }.
struct MetricExpr {
  enum class Kind { regex, json };
  Kind kind = Kind::regex;
  /// An RE2 regex (github.com/google/re2/wiki/Syntax) with at least one capture group, or
  /// an RFC 6901 JSON pointer.
  std::string expr;
};

/// "regex '([0-9.]+) ops/s'" / "json pointer /end/sum_received/bits_per_second", for
/// messages.
std::string describe(const MetricExpr& m);

/// When extracting must be done by: the benchmark's timeout covers finding the metric.
using Deadline = std::chrono::steady_clock::time_point;
inline constexpr Deadline kNoDeadline = Deadline::max();

/// Checks the expression without any output: the regex compiles under RE2 (the engine
/// extract_regex uses, so a profile is judged by the rules its runs meet) and has a
/// capture group, the pointer is well formed. Errors say what is wrong with it.
Status validate(const MetricExpr& m);

/// A whole-string decimal or scientific number ("12.3456", "1.2e9", "-3"); surrounding
/// blanks are allowed, thousands separators, units and non-finite values are not.
Result<double> parse_number(std::string_view text);

/// The first capture group of the LAST match, searched line by line (a pattern cannot
/// span lines; '\n', '\r' and "\r\n" end a line, so each redraw of a '\r' progress
/// meter is one). Last, because tools print progress first and their summary at the
/// end (iperf3's text mode, nccl-tests' "# Avg bus bandwidth" line); anchor the pattern
/// on the summary's wording when a tool prints the figure more than once. RE2 matches in
/// time linear in the line; past `deadline` it stops with an error.
Result<double> extract_regex(std::string_view text, const std::string& pattern,
                             Deadline deadline = kNoDeadline);

/// The number at `pointer` in the JSON document of `text`. Text before the first line
/// starting with '{' or '[' is skipped (fio prints notes there). A string that holds a
/// whole number ("123.4") is accepted, as some tools quote their numbers. Arrays and
/// objects nested deeper than kMaxJsonNesting (base/json_nesting.h) are an error.
Result<double> extract_json(std::string_view text, const std::string& pointer);

/// Dispatches on m.kind.
Result<double> extract_metric(std::string_view text, const MetricExpr& m,
                              Deadline deadline = kNoDeadline);

}  // namespace tuner::bench
