#include "probes/bench/exec_metric.h"

#include <charconv>
#include <cmath>
#include <memory>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include "base/from_chars.h"
#include "base/json_nesting.h"
#include "base/strings.h"

namespace tuner::bench {

namespace {

using nlohmann::json;

/// nlohmann's message without its "[json.exception.parse_error.101] " id.
std::string json_what(const json::exception& e) {
  std::string_view what = e.what();
  if (what.starts_with("[json.exception.")) {
    std::size_t close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  return std::string(what);
}

std::string clip(std::string_view s, std::size_t n = 60) {
  if (s.size() <= n) return std::string(s);
  return std::string(s.substr(0, n)) + "...";
}

/// RE2: linear in the text, no recursion per character (the standard library's engine
/// overflowed the stack on a 50,000-character line), and it never prints (log_errors off).
Result<std::unique_ptr<RE2>> compile(const std::string& pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_unique<RE2>(pattern, options);
  if (!re->ok())
    return Error::invalid(
        fmt::format("regex '{}' is not valid RE2 syntax: {}", pattern, re->error()));
  if (re->NumberOfCapturingGroups() < 1)
    return Error::invalid(
        fmt::format("regex '{}' has no capture group: put the number in ( )", pattern));
  return re;
}

/// The line of text that ends at `end` (exclusive), and moves `end` to the end of the
/// line before it: '\n', '\r' and "\r\n" end a line, so each redraw of a progress
/// meter ("\r 10%\r 20%") is a line of its own.
std::string_view previous_line(std::string_view text, std::size_t& end) {
  std::size_t nl = end == 0 ? std::string_view::npos : text.find_last_of("\r\n", end - 1);
  std::size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
  std::string_view line = text.substr(begin, end - begin);
  end = nl == std::string_view::npos ? 0 : nl;
  if (end > 0 && text[end] == '\n' && text[end - 1] == '\r') --end;
  return line;
}

Error out_of_time(const std::string& pattern, std::size_t bytes) {
  return Error::io(fmt::format("regex '{}' ran out of time in {} bytes of output (the benchmark's "
                               "timeout covers finding its metric)",
                               pattern, bytes));
}

Result<json::json_pointer> parse_pointer(const std::string& text) {
  try {
    return json::json_pointer(text);
  } catch (const json::exception& e) {
    return Error::invalid(fmt::format("json pointer '{}' is not valid (it looks like /a/0/b): {}",
                                      text, json_what(e)));
  }
}

/// The deepest existing parent of `p` and its keys, for "no value at" messages.
std::string nearest_parent(const json& doc, json::json_pointer p) {
  while (!p.empty()) {
    p = p.parent_pointer();
    if (!doc.contains(p)) continue;
    const json& v = doc.at(p);
    std::string keys;
    if (v.is_object()) {
      int n = 0;
      for (auto it = v.begin(); it != v.end() && n < 12; ++it, ++n)
        keys += (keys.empty() ? "" : ", ") + it.key();
      if (v.size() > 12) keys += ", ...";
      return fmt::format(" ({} has: {})", p.empty() ? "the document" : p.to_string(), keys);
    }
    if (v.is_array())
      return fmt::format(" ({} is an array of {})", p.empty() ? "the document" : p.to_string(),
                         v.size());
    return fmt::format(" ({} is a {})", p.to_string(), v.type_name());
  }
  return "";
}

}  // namespace

std::string describe(const MetricExpr& m) {
  return m.kind == MetricExpr::Kind::regex ? "regex '" + m.expr + "'" : "json pointer " + m.expr;
}

Status validate(const MetricExpr& m) {
  if (m.kind == MetricExpr::Kind::regex) {
    auto re = compile(m.expr);
    if (!re.ok()) return re.error();
  } else {
    auto p = parse_pointer(m.expr);
    if (!p.ok()) return p.error();
  }
  return Ok{};
}

Result<double> parse_number(std::string_view text) {
  std::string_view s = trim(text);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double v = 0;
  auto [end, ec] = from_chars_double(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    return Error::invalid(fmt::format("'{}' is not a number", clip(text)));
  return v;
}

Result<double> extract_regex(std::string_view text, const std::string& pattern, Deadline deadline) {
  auto re = compile(pattern);
  if (!re.ok()) return re.error();
  // The last line that matches holds the answer: search lines from the end, so the usual
  // case (a summary at the end) reads little, and a line that does not match costs one
  // linear search. The clock bounds the whole, read every 256 searches (~20 ns a read).
  std::string last;
  bool found = false;
  re2::StringPiece group[2];
  std::size_t searches = 0;
  for (std::size_t end = text.size(); !found && end > 0;) {
    // An empty line holds no number (a pattern that matches nothing would capture "").
    // From pointer and size: RE2 from 2023 on makes StringPiece Abseil's string_view,
    // which need not convert from std::string_view (Debian 13, Ubuntu 24.04, EPEL).
    std::string_view view = previous_line(text, end);
    re2::StringPiece line(view.data(), view.size());
    if (line.empty()) continue;
    for (std::size_t at = 0; at <= line.size();) {
      if (++searches % 256 == 0 && std::chrono::steady_clock::now() > deadline)
        return out_of_time(pattern, text.size());
      if (!(*re)->Match(line, at, line.size(), RE2::UNANCHORED, group, 2)) break;
      if (group[1].data() != nullptr) {
        last.assign(group[1].data(), group[1].size());
        found = true;
      }
      auto match_end = static_cast<std::size_t>(group[0].data() + group[0].size() - line.data());
      at = match_end > at ? match_end : at + 1;  // an empty match moves on by one
    }
  }
  if (!found && std::chrono::steady_clock::now() > deadline)
    return out_of_time(pattern, text.size());
  if (!found)
    return Error::missing(
        fmt::format("regex '{}' matched nothing in {} bytes of output", pattern, text.size()));
  auto v = parse_number(last);
  if (!v.ok())
    return Error::invalid(
        fmt::format("regex '{}' captured '{}', which is not a number", pattern, clip(last)));
  return v;
}

Result<double> extract_json(std::string_view text, const std::string& pointer) {
  auto ptr = parse_pointer(pointer);
  if (!ptr.ok()) return ptr.error();
  std::size_t begin = std::string_view::npos;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '{' || text[i] == '[') {
      begin = i;
      break;
    }
    std::size_t nl = text.find('\n', i);
    if (nl == std::string_view::npos) break;
    i = nl + 1;
  }
  std::size_t end = text.find_last_of("}]");
  if (begin == std::string_view::npos || end == std::string_view::npos || end < begin)
    return Error::invalid(fmt::format(
        "output is not JSON: no line starts with '{{' or '[' in {} bytes", text.size()));
  // nlohmann parses deep documents, but dump() and the error paths here recurse.
  if (Status depth = check_json_nesting(text, "stdout"); !depth.ok())
    return Error::invalid("output is not usable JSON: " + depth.error().message());
  json doc;
  try {
    doc = json::parse(text.substr(begin, end + 1 - begin));
  } catch (const json::exception& e) {
    return Error::invalid(fmt::format("output is not JSON: {}", json_what(e)));
  }
  if (!doc.contains(*ptr))
    return Error::missing(
        fmt::format("no value at json pointer {}{}", pointer, nearest_parent(doc, *ptr)));
  const json& v = doc.at(*ptr);
  if (v.is_number()) {
    double d = v.get<double>();
    if (std::isfinite(d)) return d;
  }
  if (v.is_string()) {
    auto d = parse_number(v.get<std::string>());
    if (d.ok()) return d;
  }
  return Error::invalid(fmt::format("json pointer {} holds {} {}, not a number", pointer,
                                    v.type_name(), clip(v.dump())));
}

Result<double> extract_metric(std::string_view text, const MetricExpr& m, Deadline deadline) {
  return m.kind == MetricExpr::Kind::regex ? extract_regex(text, m.expr, deadline)
                                           : extract_json(text, m.expr);
}

}  // namespace tuner::bench
