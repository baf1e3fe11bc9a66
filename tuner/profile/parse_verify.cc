#include "tuner/profile/parse_verify.h"

#include <cmath>

#include "probes/bench/guards.h"
#include "tuner/profile/parse_bench.h"
#include "tuner/profile/toml_reader.h"

namespace tuner {

using namespace profile_toml;

namespace {

class VerifyParser : public TomlReader {
 public:
  explicit VerifyParser(const std::string& file) : TomlReader(file) {}

  VerifySettings parse(const toml::table& t) const {
    check_keys(t, "[verify]",
               {"bench", "min_effect", "false_keep_rate", "max_trials", "guards", "bisect", "soak",
                "watch_margin", "budget"});
    VerifySettings vs;
    for (auto&& [k, v] : t) {
      std::string what = fmt::format("'{}' in [verify]", k.str());
      vs.set_fields.emplace_back(k.str());
      if (k.str() == "bench") {
        vs.bench = bench_names(v, what);
        vs.bench_loc = loc(v.source());
      } else if (k.str() == "min_effect") {
        vs.min_effect = number(v, what);
        if (!(vs.min_effect >= 0 && vs.min_effect < 1))
          fail(v.source(), fmt::format("{} = {} is a fraction: it must be at least 0 and below 1 "
                                       "(0.02 = 2%)",
                                       what, vs.min_effect));
      } else if (k.str() == "watch_margin") {
        double m = number(v, what);
        if (!(m >= 0 && m < 1))
          fail(v.source(), fmt::format("{} = {} is a fraction: it must be at least 0 and below 1 "
                                       "(0.02: a watch may lose less than 2%)",
                                       what, m));
        vs.watch_margin = m;
      } else if (k.str() == "false_keep_rate") {
        vs.false_keep_rate = number(v, what);
        if (!(vs.false_keep_rate > 0 && vs.false_keep_rate < 0.5))
          fail(v.source(),
               fmt::format("{} = {} must be above 0 and below 0.5", what, vs.false_keep_rate));
      } else if (k.str() == "max_trials") {
        vs.max_trials = static_cast<unsigned>(integer(v, what, 5, 1000));
      } else if (k.str() == "guards") {
        if (!v.is_array())
          fail(v.source(), fmt::format("{} must be an array of {{metric=, max_increase=}}, not {}",
                                       what, type_name(v)));
        for (const toml::node& e : *v.as_array()) vs.guards.push_back(guard(e));
      } else if (k.str() == "bisect") {
        vs.bisect = boolean(v, what);
      } else if (k.str() == "soak") {
        vs.soak = soak(v, what);
      } else if (k.str() == "budget") {
        std::string text = string(v, what);
        auto d = parse_duration(text);
        if (!d || *d < std::chrono::minutes(1) || *d > std::chrono::hours(24))
          fail(v.source(), fmt::format("{} = \"{}\": expected a duration from \"1m\" to "
                                       "\"24h\", such as \"30m\"",
                                       what, text));
        vs.budget = *d;
      }
    }
    return vs;
  }

  std::chrono::milliseconds soak(const toml::node& v, const std::string& what) const {
    std::string text = string(v, what);
    auto d = parse_duration(text);
    if (!d || *d > std::chrono::minutes(10))
      fail(v.source(), fmt::format("{} = \"{}\": expected a duration from \"0s\" (no soak) to "
                                   "\"10m\", such as \"30s\"",
                                   what, text));
    return *d;
  }

  Guard guard(const toml::node& n) const {
    const toml::table& t = table(n, "each of 'guards' in [verify]");
    std::string ctx = "a guard in [verify]";
    check_keys(t, ctx, {"metric", "max_increase"});
    Guard g;
    bool has_max = false;
    for (auto&& [k, v] : t) {
      if (k.str() == "metric") {
        g.metric = string(v, "'metric' in " + ctx);
        if (!bench::parse_guard_metric(g.metric))
          fail(v.source(), fmt::format("'metric' in {} = \"{}\": expected one of {}", ctx, g.metric,
                                       bench::guard_metric_names()));
      } else {
        g.max_increase = number(v, "'max_increase' in " + ctx);
        if (!(g.max_increase >= 0) || std::isinf(g.max_increase))
          fail(v.source(), fmt::format("'max_increase' in {} = {} must be a finite number >= 0",
                                       ctx, g.max_increase));
        has_max = true;
      }
    }
    if (g.metric.empty() || !has_max)
      fail(t.source(), ctx + " needs both 'metric' and 'max_increase'");
    return g;
  }
};

}  // namespace

VerifySettings parse_verify_table(const std::string& file, const toml::table& t) {
  return VerifyParser(file).parse(t);
}

std::chrono::milliseconds parse_soak(const std::string& file, const toml::node& v,
                                     const std::string& what) {
  return VerifyParser(file).soak(v, what);
}

}  // namespace tuner
