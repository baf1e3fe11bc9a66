// outcome_from_json: the one reader of what to_json writes (outcome.cc), and of what
// earlier versions of tuner wrote. A report file is anyone's: every field is read only
// when it has its type, and the first one that does not is the Error.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>

#include "tuner/verify/outcome.h"

namespace tuner::verify {

using nlohmann::json;

namespace {

/// Reads typed values out of a JSON document; the first wrong one is kept as the error
/// and every read after it does nothing.
class Reader {
 public:
  std::optional<Error> error;

  /// The member `key` of `o` when it is there and not null.
  const json* find(const json& o, const char* key) const {
    if (error || !o.is_object()) return nullptr;
    auto it = o.find(key);
    return it == o.end() || it->is_null() ? nullptr : &*it;
  }
  void fail(const std::string& path, const std::string& what) {
    if (!error) error = Error::invalid(what, path);
  }
  bool object(const json& v, const std::string& path) {
    if (!v.is_object()) fail(path, "not an object");
    return !error;
  }
  void text(const json& o, const char* key, const std::string& path, std::string& out) {
    if (const json* v = find(o, key)) {
      if (v->is_string()) out = v->get<std::string>();
      else fail(path + "." + key, "not a string");
    }
  }
  /// null is NaN: the writers write NaN and infinities as null.
  void number(const json& o, const char* key, const std::string& path, double& out) {
    if (error || !o.is_object() || !o.contains(key)) return;
    const json& v = o.at(key);
    if (v.is_null()) out = std::numeric_limits<double>::quiet_NaN();
    else if (v.is_number()) out = v.get<double>();
    else fail(path + "." + key, "not a number");
  }
  void count(const json& o, const char* key, const std::string& path, unsigned& out) {
    if (const json* v = find(o, key)) {
      if (v->is_number_unsigned() && v->get<std::uint64_t>() <= UINT32_MAX)
        out = v->get<unsigned>();
      else fail(path + "." + key, "not a count");
    }
  }
  void seed(const json& o, const char* key, const std::string& path, std::uint64_t& out) {
    if (const json* v = find(o, key)) {
      if (v->is_number_integer() && v->get<std::int64_t>() >= 0) out = v->get<std::uint64_t>();
      else fail(path + "." + key, "not a seed");
    }
  }
  void flag(const json& o, const char* key, const std::string& path, bool& out) {
    if (const json* v = find(o, key)) {
      if (v->is_boolean()) out = v->get<bool>();
      else fail(path + "." + key, "not true or false");
    }
  }
  void strings(const json& v, const std::string& path, std::vector<std::string>& out) {
    if (!v.is_array()) return fail(path, "not an array");
    for (const json& s : v) {
      if (!s.is_string()) return fail(path, "holds a non-string");
      out.push_back(s.get<std::string>());
    }
  }
  /// An array of numbers, null as NaN.
  void numbers(const json& o, const char* key, const std::string& path, std::vector<double>& out) {
    const json* v = find(o, key);
    if (!v) return;
    if (!v->is_array()) return fail(path + "." + key, "not an array");
    for (const json& x : *v) {
      if (!x.is_null() && !x.is_number()) return fail(path + "." + key, "holds a non-number");
      out.push_back(x.is_null() ? std::numeric_limits<double>::quiet_NaN() : x.get<double>());
    }
  }
  /// A closed set's name, e.g. a verdict, read by its parse function.
  template <typename E>
  void name(const json& o, const char* key, const std::string& path, E& out,
            std::optional<E> (*parse)(std::string_view)) {
    std::string s;
    text(o, key, path, s);
    if (error || !find(o, key)) return;
    if (auto e = parse(s)) out = *e;
    else fail(path + "." + key, "unknown value \"" + s + "\"");
  }
  /// Calls read(element, its path) for each element of the array `key`.
  template <typename F>
  void each(const json& o, const char* key, const std::string& path, F read) {
    const json* v = find(o, key);
    if (!v) return;
    if (!v->is_array()) return fail(path + "." + key, "not an array");
    for (std::size_t i = 0; i < v->size() && !error; ++i)
      read((*v)[i], path + "." + key + "[" + std::to_string(i) + "]");
  }

  void bench_stats(const json& o, const std::string& path, BenchStats& b) {
    Stats& s = b.stats;
    text(o, "bench", path, b.bench);
    text(o, "unit", path, b.unit);
    name(o, "verdict", path, b.verdict, parse_verdict);
    number(o, "baseline", path, s.baseline_median);
    number(o, "candidate", path, s.candidate_median);
    number(o, "effect", path, s.effect);
    if (const json* ci = find(o, "ci")) {
      if (!ci->is_array() || ci->size() != 2) return fail(path + ".ci", "not [low, high]");
      json pair = {{"low", (*ci)[0]}, {"high", (*ci)[1]}};
      number(pair, "low", path + ".ci", s.ci_low);
      number(pair, "high", path + ".ci", s.ci_high);
    }
    number(o, "ci_level", path, s.ci_level);
    number(o, "p", path, s.p);
    if (const json* t = find(o, "trials"); t && object(*t, path + ".trials")) {
      count(*t, "baseline", path + ".trials", b.trials_baseline);
      count(*t, "candidate", path + ".trials", b.trials_candidate);
    }
    count(o, "look", path, s.look);
    count(o, "looks", path, s.looks);
    number(o, "alpha_spent", path, s.alpha_spent);
    name(o, "scale", path, s.scale, parse_scale);
  }

  void comparison(const json& o, const std::string& path, Comparison& c) {
    if (!object(o, path)) return;
    bench_stats(o, path, c);
    name(o, "design", path, c.design, parse_design);
    seed(o, "seed", path, c.seed);
    text(o, "order", path, c.order);
    count(o, "washes", path, c.washes);
    numbers(o, "values", path, c.values);
    if (!error && !c.values.empty() && c.values.size() != c.order.size())
      fail(path + ".values", std::to_string(c.values.size()) + " values for an order of " +
                                 std::to_string(c.order.size()) + " trials");
    if (find(o, "direction"))
      name(o, "direction", path, c.direction.emplace(), bench::parse_direction);
    if (find(o, "min_effect")) number(o, "min_effect", path, c.min_effect.emplace());
    if (find(o, "power_effect")) number(o, "power_effect", path, c.power_effect.emplace());
    count(o, "units", path, c.stats.units);
    count(o, "outlier_units", path, c.stats.outliers);
    number(o, "mean_effect", path, c.stats.mean_effect);
    number(o, "p_mean", path, c.stats.p_mean);
    number(o, "power_at_max", path, c.stats.power_at_max);
    count(o, "trials_needed", path, c.stats.trials_needed);
    each(o, "guards", path, [&](const json& g, const std::string& at) {
      GuardResult r;
      if (!object(g, at)) return;
      name(g, "metric", at, r.metric, bench::parse_guard_metric);
      text(g, "interface", at, r.interface);
      number(g, "baseline", at, r.baseline);
      number(g, "candidate", at, r.candidate);
      flag(g, "tripped", at, r.tripped);
      number(g, "limit", at, r.limit);
      if (find(g, "bound")) number(g, "bound", at, r.bound.emplace());
      text(g, "text", at, r.text);
      text(g, "source", at, r.source);
      if (find(g, "dispersion")) number(g, "dispersion", at, r.dispersion.emplace());
      text(g, "note", at, r.note);
      if (find(g, "p")) number(g, "p", at, r.p.emplace());
      if (const json* c = find(g, "counts"); c && object(*c, at + ".counts")) {
        Counts& n = r.counts.emplace();
        for (auto [arm, x, t] :
             {std::tuple{"baseline", &n.x_b, &n.t_b}, std::tuple{"candidate", &n.x_c, &n.t_c}}) {
          std::string where = at + ".counts." + arm;
          const json* side = find(*c, arm);
          if (!side || !object(*side, where)) continue;
          seed(*side, "events", where, *x);
          number(*side, "exposure", where, *t);
        }
      }
      if (const json* e = find(g, "expected"); e && object(*e, at + ".expected")) {
        ExpectedFlaps& x = r.expected.emplace();
        seed(*e, "baseline", at + ".expected", x.baseline);
        seed(*e, "candidate", at + ".expected", x.candidate);
      }
      c.guards.push_back(std::move(r));
    });
    each(o, "watches", path, [&](const json& w, const std::string& at) {
      WatchResult r;
      if (!object(w, at)) return;
      bench_stats(w, at, r);
      flag(w, "tripped", at, r.tripped);
      if (find(w, "margin")) number(w, "margin", at, r.margin.emplace());
      flag(w, "non_inferior", at, r.non_inferior);
      c.watches.push_back(std::move(r));
    });
    if (const json* in = find(o, "interference"); in && object(*in, path + ".interference"))
      interference(*in, path + ".interference", c.interference.emplace());
    text(o, "error", path, c.error);
  }

  void load_test(const json& o, const std::string& path, LoadTest& t) {
    if (!object(o, path)) return;
    flag(o, "judged", path, t.judged);
    number(o, "floor", path, t.floor);
    number(o, "baseline", path, t.baseline);
    number(o, "candidate", path, t.candidate);
    number(o, "p", path, t.p);
    if (const json* n = find(o, "trials"); n && object(*n, path + ".trials")) {
      count(*n, "baseline", path + ".trials", t.trials_baseline);
      count(*n, "candidate", path + ".trials", t.trials_candidate);
    }
    flag(o, "proven", path, t.proven);
    text(o, "note", path, t.note);
  }

  void interference(const json& o, const std::string& path, Interference& in) {
    flag(o, "flagged", path, in.flagged);
    number(o, "level", path, in.level);
    if (const json* t = find(o, "cpu")) load_test(*t, path + ".cpu", in.cpu);
    if (const json* t = find(o, "demand")) load_test(*t, path + ".demand", in.demand);
    if (const json* t = find(o, "traffic")) load_test(*t, path + ".traffic", in.traffic);
    each(o, "consumers", path, [&](const json& c, const std::string& at) {
      LoadConsumer r;
      if (!object(c, at)) return;
      std::uint64_t pid = 0, uid = 0;
      seed(c, "pid", at, pid);
      r.pid = static_cast<int>(std::min<std::uint64_t>(pid, INT32_MAX));
      text(c, "comm", at, r.comm);
      if (find(c, "uid")) {
        seed(c, "uid", at, uid);
        r.uid = static_cast<uint32_t>(std::min<std::uint64_t>(uid, UINT32_MAX));
      }
      flag(c, "kernel_thread", at, r.kernel_thread);
      number(c, "baseline", at, r.baseline);
      number(c, "candidate", at, r.candidate);
      in.consumers.push_back(std::move(r));
    });
    text(o, "text", path, in.text);
  }

  void bisect(const json& o, const std::string& path, Bisect& b) {
    if (!object(o, path)) return;
    each(o, "steps", path, [&](const json& s, const std::string& at) {
      BisectStep step;
      if (auto it = s.find("soak"); it != s.end()) step.soak = *it;
      else comparison(s, at, step);
      if (const json* k = find(s, "knobs")) strings(*k, at + ".knobs", step.knobs);
      name(s, "outcome", at, step.outcome, parse_step_outcome);
      b.steps.push_back(std::move(step));
    });
    flag(o, "complete", path, b.complete);
    if (const json* c = find(o, "culprit")) strings(*c, path + ".culprit", b.culprit.emplace());
    if (const json* r = find(o, "rest")) {
      BisectRest& rest = b.rest.emplace();
      if (auto it = r->find("soak"); it != r->end()) rest.soak = *it;
      else comparison(*r, path + ".rest", rest);
      if (const json* k = find(*r, "knobs")) strings(*k, path + ".rest.knobs", rest.knobs);
      name(*r, "outcome", path + ".rest", rest.outcome, parse_reason);
    }
    text(o, "note", path, b.note);
  }
};

}  // namespace

Result<GroupOutcome> outcome_from_json(const json& stats) {
  const std::string path = "stats";
  Reader in;
  GroupOutcome o;
  if (!in.object(stats, path)) return *in.error;
  const json* outcome = in.find(stats, "outcome");
  if (!outcome) return Error::invalid("no outcome", path);
  in.name(stats, "outcome", path, o.reason, parse_reason);
  o.decision = decision_of(o.reason);
  // Numbers are there when a benchmark measured the group (tuner has always written
  // "bench" with them); a group no benchmark can measure has a "reason" instead.
  if (stats.contains("bench")) in.comparison(stats, path, o.measured.emplace());
  in.text(stats, "reason", path, o.unmeasured);
  if (!o.measured) in.text(stats, "error", path, o.error);
  if (const json* b = in.find(stats, "bisect")) in.bisect(*b, path + ".bisect", o.bisect.emplace());
  if (const json* v = in.find(stats, "overhead_ms"); v && in.object(*v, path + ".overhead_ms")) {
    Overhead& oh = o.overhead_ms.emplace();
    in.number(*v, "median", path + ".overhead_ms", oh.median);
    in.number(*v, "max", path + ".overhead_ms", oh.max);
  }
  if (const json* v = in.find(stats, "time_cap"); v && in.object(*v, path + ".time_cap")) {
    TimeCap& cap = o.time_cap.emplace();
    in.number(*v, "seconds", path + ".time_cap", cap.seconds);
    in.flag(*v, "reached", path + ".time_cap", cap.reached);
  }
  if (auto it = stats.find("soak"); it != stats.end()) o.soak = *it;
  if (auto it = stats.find("search"); it != stats.end()) o.search = *it;
  if (auto it = stats.find("class_decision"); it != stats.end()) o.class_decision = *it;
  if (in.find(stats, "run_seed")) in.seed(stats, "run_seed", path, o.run_seed.emplace());
  if (in.find(stats, "alpha_share")) in.number(stats, "alpha_share", path, o.alpha_share.emplace());
  if (in.error) return *in.error;
  return o;
}

}  // namespace tuner::verify
