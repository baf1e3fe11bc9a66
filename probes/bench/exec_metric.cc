#include "probes/bench/exec_metric.h"

#include <charconv>
#include <cmath>
// GCC 12's <regex> trips its own -Wmaybe-uninitialized under -fsanitize at -O1 and up
// (a false positive inside libstdc++'s _State move); -Werror builds must not fail on it.
// Clang has no such warning, and -Werror makes an unknown group an error there.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <regex>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/strings.h"

namespace tuner::bench {

namespace {

using nlohmann::json;

std::string clip(std::string_view s, std::size_t n = 60) {
  if (s.size() <= n) return std::string(s);
  return std::string(s.substr(0, n)) + "...";
}

Result<std::regex> compile(const std::string& pattern) {
  try {
    std::regex re(pattern, std::regex::ECMAScript);
    if (re.mark_count() < 1)
      return Error{fmt::format("regex '{}' has no capture group: put the number in ( )", pattern),
                   "", 0};
    return re;
  } catch (const std::regex_error& e) {
    return Error{fmt::format("regex '{}' is not valid: {}", pattern, e.what()), "", 0};
  }
}

Result<json::json_pointer> parse_pointer(const std::string& text) {
  try {
    return json::json_pointer(text);
  } catch (const json::exception& e) {
    return Error{
        fmt::format("json pointer '{}' is not valid (it looks like /a/0/b): {}", text, e.what()),
        "", 0};
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
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    return Error{fmt::format("'{}' is not a number", clip(text)), "", 0};
  return v;
}

Result<double> extract_regex(std::string_view text, const std::string& pattern) {
  auto re = compile(pattern);
  if (!re.ok()) return re.error();
  std::string last;
  bool found = false;
  for (std::string_view line : split(text, '\n')) {
    using It = std::regex_iterator<std::string_view::const_iterator>;
    for (It it(line.begin(), line.end(), *re), end; it != end; ++it) {
      if (!(*it)[1].matched) continue;
      last = (*it)[1].str();
      found = true;
    }
  }
  if (!found)
    return Error{
        fmt::format("regex '{}' matched nothing in {} bytes of output", pattern, text.size()), "",
        0};
  auto v = parse_number(last);
  if (!v.ok())
    return Error{
        fmt::format("regex '{}' captured '{}', which is not a number", pattern, clip(last)), "", 0};
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
    return Error{
        fmt::format("output is not JSON: no line starts with '{{' or '[' in {} bytes", text.size()),
        "", 0};
  json doc;
  try {
    doc = json::parse(text.substr(begin, end + 1 - begin));
  } catch (const json::exception& e) {
    return Error{fmt::format("output is not JSON: {}", e.what()), "", 0};
  }
  if (!doc.contains(*ptr))
    return Error{fmt::format("no value at json pointer {}{}", pointer, nearest_parent(doc, *ptr)),
                 "", 0};
  const json& v = doc.at(*ptr);
  if (v.is_number()) {
    double d = v.get<double>();
    if (std::isfinite(d)) return d;
  }
  if (v.is_string()) {
    auto d = parse_number(v.get<std::string>());
    if (d.ok()) return d;
  }
  return Error{fmt::format("json pointer {} holds {} {}, not a number", pointer, v.type_name(),
                           clip(v.dump())),
               "", 0};
}

Result<double> extract_metric(std::string_view text, const MetricExpr& m) {
  return m.kind == MetricExpr::Kind::regex ? extract_regex(text, m.expr)
                                           : extract_json(text, m.expr);
}

}  // namespace tuner::bench
