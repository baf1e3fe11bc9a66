#include "tuner/profile/parse_bench.h"

#include "base/strings.h"
#include "tuner/profile/toml_reader.h"

namespace tuner {

using namespace profile_toml;

namespace {

class BenchParser : public TomlReader {
 public:
  BenchParser(const std::string& file, const std::string& name)
      : TomlReader(file), name_(name), ctx_(fmt::format("[bench.{}]", header_key(name))) {}

  BenchSpec parse(const toml::table& t) {
    BenchSpec b;
    b.name = name_;
    b.loc = loc(t.source());
    const toml::node* kind = t.get("kind");
    if (!kind) fail(t.source(), fmt::format("{} needs kind = {}", ctx_, bench_kind_choices()));
    std::string k = string(*kind, "'kind' in " + ctx_);
    const BenchKindInfo* row = find_bench_kind(k);
    if (!row)
      fail(kind->source(),
           fmt::format("'kind' in {} = \"{}\": expected {}", ctx_, k, bench_kind_choices()));
    b.kind = row->kind;
    switch (b.kind) {
      case BenchSpec::Kind::exec: parse_exec(t, b.exec); break;
      case BenchSpec::Kind::tcp: parse_tcp(t, b.tcp); break;
      case BenchSpec::Kind::membw: parse_membw(t, b.membw); break;
      case BenchSpec::Kind::latency: parse_latency(t, b.latency); break;
      case BenchSpec::Kind::count_: break;
    }
    return b;
  }

 private:
  std::string what(std::string_view key) const { return fmt::format("'{}' in {}", key, ctx_); }

  /// `zero_ok`: "0s" is a value (tcp's rr_duration: no request/response phase).
  std::chrono::milliseconds duration(const toml::node& v, std::string_view key,
                                     bool zero_ok = false) const {
    auto d = parse_duration(string(v, what(key)));
    if (!d || d->count() < 0 || (d->count() == 0 && !zero_ok))
      fail(v.source(), fmt::format("{} = \"{}\": expected a duration such as \"500ms\", "
                                   "\"30s\" or \"2m\"",
                                   what(key), string(v, what(key))));
    return *d;
  }

  CpuSet cpus(const toml::node& v, std::string_view key) const {
    auto set = CpuSet::parse(string(v, what(key)));
    if (!set.ok()) fail(v.source(), fmt::format("{}: {}", what(key), set.error().what));
    return *set;
  }

  void parse_exec(const toml::table& t, bench::ExecConfig& c) {
    check_keys(t, ctx_,
               {"kind", "command", "metric", "direction", "unit", "timeout", "if_missing"});
    c.name = name_;
    for (auto&& [k, v] : t) {
      std::string_view key = k.str();
      if (key == "command") {
        c.command = strings(v, what(key));
      } else if (key == "metric") {
        const toml::table& m = table(v, what(key));
        check_keys(m, what(key), {"regex", "json"});
        if (m.size() != 1)
          fail(v.source(),
               what(key) + " needs exactly one of { regex = '...' } or { json = \"/a/b\" }");
        bool regex = m.contains("regex");
        const toml::node& mv = *m.get(regex ? "regex" : "json");
        c.metric.kind = regex ? bench::MetricExpr::Kind::regex : bench::MetricExpr::Kind::json;
        c.metric.expr = string(mv, what(key));
        check(bench::validate(c.metric), mv, what(key));
      } else if (key == "direction") {
        auto d = bench::parse_direction(string(v, what(key)));
        if (!d) fail(v.source(), what(key) + " must be \"higher\" or \"lower\"");
        c.direction = *d;
      } else if (key == "unit") {
        c.unit = string(v, what(key));
      } else if (key == "timeout") {
        c.timeout = duration(v, key);
      } else if (key == "if_missing") {
        std::string m = string(v, what(key));
        if (m != "skip" && m != "fail")
          fail(v.source(), fmt::format("{} is '{}': expected \"skip\" or \"fail\"", what(key), m));
        c.skip_if_missing = m == "skip";
      }
    }
    check(bench::validate(c), t, ctx_);
  }

  void parse_tcp(const toml::table& t, bench::TcpConfig& c) {
    check_keys(t, ctx_,
               {"kind", "netns", "peer", "address", "port", "streams", "direction", "duration",
                "rr_duration", "cpus"});
    c.name = name_;
    for (auto&& [k, v] : t) {
      std::string_view key = k.str();
      if (key == "netns") {
        c.placement = bench::TcpConfig::Placement::netns;
        c.netns = string(v, what(key));
      } else if (key == "peer") {
        c.placement = bench::TcpConfig::Placement::peer;
        c.address = string(v, what(key));
      } else if (key == "address") {
        c.address = string(v, what(key));
      } else if (key == "port") {
        c.port = static_cast<uint16_t>(integer(v, what(key), 1, 65535));
      } else if (key == "streams") {
        c.streams = static_cast<unsigned>(integer(v, what(key), 1, 32));
      } else if (key == "direction") {
        std::string d = string(v, what(key));
        auto parsed = bench::parse_stream_direction(d);
        if (!parsed)
          fail(v.source(), fmt::format("{} = \"{}\": expected \"out\" (this node sends) or "
                                       "\"in\" (this node receives)",
                                       what(key), d));
        c.direction = *parsed;
      } else if (key == "duration") {
        c.duration = duration(v, key);
      } else if (key == "rr_duration") {
        c.rr_duration = duration(v, key, true);
      } else if (key == "cpus") {
        c.cpus = cpus(v, key);
      }
    }
    if (t.contains("netns") && t.contains("peer"))
      fail(t.source(), ctx_ + ": 'netns' and 'peer' cannot be used together");
    check(bench::validate(c), t, ctx_);
  }

  void parse_membw(const toml::table& t, bench::MembwOptions& c) {
    check_keys(t, ctx_, {"kind", "nodes", "matrix", "duration"});
    for (auto&& [k, v] : t) {
      std::string_view key = k.str();
      if (key == "nodes") {
        c.nodes.clear();
        // Named: a range-for over cpus(...).cpus() would read the temporary's vector
        // after it died (before C++23; GCC 13's -Wdangling-reference).
        CpuSet nodes = cpus(v, key);
        for (unsigned n : nodes.cpus()) c.nodes.push_back(n);
      } else if (key == "matrix") {
        c.matrix = boolean(v, what(key));
      } else if (key == "duration") {
        c.duration = duration(v, key);
        if (c.duration > std::chrono::minutes(1))
          fail(v.source(), what(key) + " must be at most 1m");
      }
    }
  }

  void parse_latency(const toml::table& t, bench::LatencyOptions& c) {
    check_keys(t, ctx_, {"kind", "cpus", "interval", "duration", "priority", "metric"});
    for (auto&& [k, v] : t) {
      std::string_view key = k.str();
      if (key == "cpus") {
        c.cpus = cpus(v, key);
      } else if (key == "interval") {
        auto d = duration(v, key);
        c.interval = std::chrono::duration_cast<std::chrono::microseconds>(d);
      } else if (key == "duration") {
        c.duration = duration(v, key);
        if (c.duration > std::chrono::minutes(1))
          fail(v.source(), what(key) + " must be at most 1m");
      } else if (key == "priority") {
        c.priority = static_cast<int>(integer(v, what(key), 0, 99));
      } else if (key == "metric") {
        std::string m = string(v, what(key));
        if (m == "p99") c.main = bench::LatencyOptions::Main::p99;
        else if (m == "p99.99") c.main = bench::LatencyOptions::Main::p9999;
        else if (m == "max") c.main = bench::LatencyOptions::Main::max;
        else
          fail(v.source(),
               fmt::format("{} is '{}': expected \"p99\", \"p99.99\" or \"max\"", what(key), m));
      }
    }
  }

  std::string name_, ctx_;
};

}  // namespace

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  static const std::pair<std::string_view, int64_t> units[] = {
      {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}};
  for (const auto& [suffix, ms] : units) {
    if (text.size() <= suffix.size() || text.substr(text.size() - suffix.size()) != suffix)
      continue;
    std::string_view digits = text.substr(0, text.size() - suffix.size());
    if (suffix == "s" && !digits.empty() && digits.back() == 'm') continue;  // "ms"
    auto n = parse_u64(digits);
    if (!n || *n > 100'000'000) return std::nullopt;
    return std::chrono::milliseconds(static_cast<int64_t>(*n) * ms);
  }
  return std::nullopt;
}

BenchSpec parse_bench_table(const std::string& file, const std::string& name,
                            const toml::table& t) {
  return BenchParser(file, name).parse(t);
}

}  // namespace tuner

namespace tuner {

// One row per kind, in enum order: a kind added without its row stops the build.
static_assert([] {
  for (std::size_t i = 0; i < kAllBenchKinds.size(); ++i)
    if (kAllBenchKinds[i].kind != static_cast<BenchSpec::Kind>(i) || kAllBenchKinds[i].name.empty())
      return false;
  return true;
}());

const BenchKindInfo* find_bench_kind(std::string_view name) {
  for (const BenchKindInfo& k : kAllBenchKinds)
    if (k.name == name) return &k;
  return nullptr;
}

const std::vector<std::string>& builtin_bench_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const BenchKindInfo& k : kAllBenchKinds)
      if (k.builtin) out.emplace_back(k.name);
    return out;
  }();
  return names;
}

std::string builtin_bench_list(std::string_view sep) {
  return fmt::format("{}", fmt::join(builtin_bench_names(), sep));
}

std::string bench_kind_choices() {
  std::string out;
  for (std::size_t i = 0; i < kAllBenchKinds.size(); ++i)
    out += fmt::format("{}\"{}\"",
                       i == 0                           ? ""
                       : i + 1 == kAllBenchKinds.size() ? " or "
                                                        : ", ",
                       kAllBenchKinds[i].name);
  return out;
}

Status check_bench_names(const Profile& p) {
  auto known = [&](const std::string& n) {
    return p.benches.contains(n) ||
           std::find(builtin_bench_names().begin(), builtin_bench_names().end(), n) !=
               builtin_bench_names().end();
  };
  auto check = [&](const std::vector<std::string>& names, const std::string& where) -> Status {
    for (const std::string& n : names)
      if (!known(n))
        return Error::invalid(fmt::format("benchmark '{}' is neither built in ({}) nor defined "
                                          "by a [bench.{}] table",
                                          n, fmt::join(builtin_bench_names(), ", "), n),
                              where);
    return Ok{};
  };
  if (Status s = check(p.verify.bench, p.verify.bench_loc.str()); !s.ok()) return s;
  for (const auto& [name, g] : p.groups)
    if (g.bench)
      if (Status s = check(*g.bench, g.loc.str()); !s.ok()) return s;
  return Ok{};
}

}  // namespace tuner
