// Typed, located access to a toml++ tree for the profile parser: every wrong type or
// value becomes a ParseFailure naming file:line:col. Included by the parser's files
// only (parse.cc and parse_{tables,nic,verify,bench}.cc, through their headers): toml++
// is slow to compile, so only they pay for it.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include "base/result.h"
#include "tuner/knobs/knob_id.h"
#include "tuner/profile/profile.h"
#include "tuner/profile/values.h"

namespace tuner::profile_toml {

using Keys = std::vector<std::string_view>;

/// Unwinds the parser to parse_profile_file at the first error.
struct ParseFailure {
  Error error;
};

inline const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time: return "a date/time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

/// A table key as the user would write it in a header: bare when it can be.
inline std::string header_key(std::string_view k) {
  bool bare = !k.empty() && std::all_of(k.begin(), k.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  return bare ? std::string(k) : fmt::format("\"{}\"", k);
}

inline std::string file_stem(const std::string& file) {
  std::string base = file.substr(file.find_last_of('/') + 1);
  if (base.size() > 5 && base.ends_with(".toml")) base.resize(base.size() - 5);
  return base;
}

/// The accessors; the profile parser derives from it.
class TomlReader {
 public:
  explicit TomlReader(std::string file) : file_(std::move(file)) {}

 protected:
  SourceLoc loc(const toml::source_region& r) const {
    return SourceLoc{file_, static_cast<int>(r.begin.line), static_cast<int>(r.begin.column)};
  }
  [[noreturn]] void fail(const toml::source_region& r, std::string what) const {
    throw ParseFailure{Error::invalid(std::move(what), loc(r).str())};
  }
  void check(const Status& s, const toml::node& n, std::string_view ctx) const {
    if (!s.ok()) fail(n.source(), fmt::format("{}: {}", ctx, s.error().what));
  }

  void check_keys(const toml::table& t, std::string_view ctx, const Keys& allowed) const {
    for (auto&& [k, v] : t) {
      if (std::find(allowed.begin(), allowed.end(), k.str()) != allowed.end()) continue;
      std::string hint;
      if (ctx == "the top level" &&
          (k.str() == "name" || k.str() == "description" || k.str() == "include"))
        hint = "; it belongs in [profile]";
      else hint = did_you_mean(k.str(), allowed);
      if (hint.empty()) hint = fmt::format(" (allowed: {})", fmt::join(allowed, ", "));
      fail(k.source(), fmt::format("unknown key '{}' in {}{}", k.str(), ctx, hint));
    }
  }

  const toml::table& table(const toml::node& n, std::string_view ctx) const {
    if (!n.is_table())
      fail(n.source(), fmt::format("{} must be a table, not {}", ctx, type_name(n)));
    return *n.as_table();
  }
  std::string string(const toml::node& n, std::string_view what) const {
    if (!n.is_string())
      fail(n.source(), fmt::format("{} must be a string, not {}", what, type_name(n)));
    return n.as_string()->get();
  }
  bool boolean(const toml::node& n, std::string_view what) const {
    if (!n.is_boolean())
      fail(n.source(), fmt::format("{} must be true or false, not {}", what, type_name(n)));
    return n.as_boolean()->get();
  }
  int64_t integer(const toml::node& n, std::string_view what, int64_t lo, int64_t hi) const {
    if (!n.is_integer())
      fail(n.source(), fmt::format("{} must be an integer, not {}", what, type_name(n)));
    int64_t v = n.as_integer()->get();
    if (v < lo || v > hi)
      fail(n.source(),
           fmt::format("{} = {} is out of range: it must be {} to {}", what, v, lo, hi));
    return v;
  }
  double number(const toml::node& n, std::string_view what) const {
    if (n.is_integer()) return static_cast<double>(n.as_integer()->get());
    if (!n.is_floating_point())
      fail(n.source(), fmt::format("{} must be a number, not {}", what, type_name(n)));
    return n.as_floating_point()->get();
  }
  std::vector<std::string> strings(const toml::node& n, std::string_view what) const {
    if (!n.is_array())
      fail(n.source(), fmt::format("{} must be an array of strings, not {}", what, type_name(n)));
    std::vector<std::string> out;
    for (const toml::node& e : *n.as_array())
      out.push_back(string(e, fmt::format("each of {}", what)));
    return out;
  }
  /// An array of interface names ([irq]/[nic] ports): each a valid name, none twice,
  /// at least one.
  std::vector<std::string> port_names(const toml::node& n, const std::string& what) const {
    std::vector<std::string> names = strings(n, what);
    if (names.empty()) fail(n.source(), what + " is empty: name at least one interface");
    for (std::size_t i = 0; i < names.size(); ++i) {
      const toml::node& e = *n.as_array()->get(i);
      check(validate_ifname(names[i]), e, what);
      if (names[i].find_first_of("*?[") != std::string::npos)
        fail(e.source(), what + " names '" + names[i] +
                             "', a glob: ports are exact interface names (the rule's key is "
                             "the glob)");
      for (std::size_t j = 0; j < i; ++j)
        if (names[j] == names[i]) fail(e.source(), what + " names '" + names[i] + "' twice");
    }
    return names;
  }
  /// The keys that choose which ports an [irq] or [nic] rule covers (min_speed, rdma,
  /// default_route, ports, link_type), read into the rule; false for any other key.
  template <typename Rule>
  bool port_scope_key(std::string_view key, const toml::node& v, const std::string& what,
                      Rule& r) const {
    if (key == "min_speed")
      r.min_speed_mbps =
          static_cast<uint32_t>(integer(v, what + " (Mb/s, such as 10000)", 1, 10000000));
    else if (key == "rdma") r.rdma = boolean(v, what);
    else if (key == "default_route") r.default_route = boolean(v, what);
    else if (key == "ports") r.ports = port_names(v, what);
    else if (key == "link_type") r.link_type = link_kind(v, what);
    else return false;
    return true;
  }
  LinkKind link_kind(const toml::node& v, const std::string& what) const {
    std::string word = string(v, what);
    auto kind = parse_link_kind(word);
    if (!kind)
      fail(v.source(),
           fmt::format("{} is '{}': expected \"ethernet\" or \"infiniband\" (IPoIB)", what, word));
    return *kind;
  }
  /// An array of benchmark names ([verify] bench, [group.NAME] bench), each checked.
  std::vector<std::string> bench_names(const toml::node& n, const std::string& what) const {
    std::vector<std::string> names = strings(n, what);
    std::size_t i = 0;
    for (const std::string& b : names)
      check(check_plain_name(b, "benchmark name"), *n.as_array()->get(i++), what);
    return names;
  }
  /// True when `v` is a value search: a table with a 'search' key.
  static bool is_search(const toml::node& v) {
    const toml::table* t = v.as_table();
    return t && t->contains("search");
  }

  /// The candidates of a value search, each checked by `parse_one` as the setting's
  /// value would be and returned in its normalised text, in the profile's order:
  /// `{ search = [a, b, ...] }`, or a range of integers `{ search = { from = A, to = B,
  /// scale = "log2" } }` (A, 2A, 4A, ... up to B) or `scale = "linear", step = S`.
  /// 2 to kMaxSearchCandidates distinct values.
  template <typename F>
  std::vector<std::string> candidates(const toml::node& v, const std::string& what,
                                      F parse_one) const {
    const toml::table& t = *v.as_table();
    std::string ctx = fmt::format("the search of {}", what);
    check_keys(t, ctx, {"search"});
    const toml::node& search = *t.get("search");
    toml::array made;  // a range's values; a list's stay in the file, with their places
    const toml::array* list = search.as_array();
    if (search.is_table()) {
      made = range(*search.as_table(), ctx);
      list = &made;
    } else if (!list) {
      fail(search.source(), fmt::format("{} must be an array of values or a range table, not {}",
                                        ctx, type_name(search)));
    }
    const toml::array& values = *list;
    if (values.size() > kMaxSearchCandidates && search.is_table())
      fail(search.source(), fmt::format("{}: the range gives more than {} candidates (narrow it, "
                                        "or use scale = \"log2\" or a larger step)",
                                        ctx, kMaxSearchCandidates));
    if (values.size() < 2 || values.size() > kMaxSearchCandidates)
      fail(search.source(), fmt::format("{} has {} candidates: a search needs 2 to {}", ctx,
                                        values.size(), kMaxSearchCandidates));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const toml::node& n = *values.get(i);
      std::string text;
      try {
        text = parse_one(n);
      } catch (const ParseFailure& f) {
        // A range's values were made here and have no place in the file.
        std::string where = search.is_table() ? loc(search.source()).str() : f.error.where;
        throw ParseFailure{
            Error::invalid(fmt::format("candidate {} of {}: {}", i + 1, ctx, f.error.what), where)};
      }
      if (std::find(out.begin(), out.end(), text) != out.end())
        fail(search.source(), fmt::format("{} lists '{}' twice", ctx, text));
      out.push_back(std::move(text));
    }
    return out;
  }

  std::string file_;

 private:
  toml::array range(const toml::table& r, const std::string& ctx) const {
    check_keys(r, ctx, {"from", "to", "scale", "step"});
    const toml::node* from = r.get("from");
    const toml::node* to = r.get("to");
    if (!from || !to) fail(r.source(), ctx + ": a range needs 'from' and 'to'");
    int64_t lo = integer(*from, "'from' in " + ctx, 0, int64_t{1} << 40);
    int64_t hi = integer(*to, "'to' in " + ctx, lo + 1, int64_t{1} << 40);
    std::string scale = "log2";
    if (const toml::node* sc = r.get("scale")) scale = string(*sc, "'scale' in " + ctx);
    toml::array out;
    if (scale == "log2") {
      if (r.contains("step")) fail(r.source(), ctx + ": 'step' goes with scale = \"linear\"");
      if (lo == 0) fail(from->source(), ctx + ": a log2 range cannot start at 0");
      for (int64_t x = lo; x <= hi && out.size() <= kMaxSearchCandidates; x *= 2) out.push_back(x);
    } else if (scale == "linear") {
      const toml::node* st = r.get("step");
      if (!st) fail(r.source(), ctx + ": a linear range needs 'step'");
      int64_t step = integer(*st, "'step' in " + ctx, 1, hi - lo);
      for (int64_t x = lo; x <= hi && out.size() <= kMaxSearchCandidates; x += step)
        out.push_back(x);
    } else {
      fail(r.get("scale")->source(),
           fmt::format("'scale' in {} is '{}': expected \"log2\" or \"linear\"", ctx, scale));
    }
    return out;
  }
};

}  // namespace tuner::profile_toml
