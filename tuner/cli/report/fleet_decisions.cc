// Merging the canaries' tuner.decision/1 records per class and profile digest
// (docs/fleet-decisions.md "Merging"); reading one is fleet_decisions_read.cc.
#include "tuner/cli/report/fleet_decisions.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include <fmt/core.h>

#include "tuner/cli/report/fleet.h"
#include "tuner/profile/values.h"

namespace tuner {

namespace {

using nlohmann::json;

/// Newest first: by time, then run id, then file name.
bool newer(const DecisionRecord* a, const DecisionRecord* b) {
  return std::tie(a->time, a->run_id, a->source) > std::tie(b->time, b->run_id, b->source);
}

/// "a, b and 3 more": a few names, for a sentence.
std::string few(const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 4;
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kShown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > kShown) out += fmt::format(" and {} more", names.size() - kShown);
  return out;
}

json optional_text(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

json finite(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

/// check of tuner.decisions/1: null, or the class check's verdict, numbers and settings.
json check_json(const std::optional<MergedGroup::Check>& ch) {
  if (!ch) return nullptr;
  const verify::ClassCheckResult& r = ch->result;
  return {{"verdict", std::string(verify::class_check_name(r.verdict))},
          {"effect", finite(r.effect)},
          {"low", finite(r.low)},
          {"se", finite(r.se)},
          {"se_canaries", finite(r.se_canaries)},
          {"se_spread", finite(r.se_spread)},
          {"q", finite(r.q)},
          {"df", r.df},
          {"differ", r.differ},
          {"q_p", finite(r.q_p)},
          {"min_effect", ch->config.min_effect},
          {"false_keep_rate", ch->config.false_keep_rate},
          {"node_spread", ch->config.node_spread},
          {"canary_bias", ch->config.canary_bias},
          {"heterogeneity_level", ch->config.heterogeneity_level}};
}

/// "+6.0% pooled, bound +3.1% (node spread 1.5%, shared bias 1%, 99%)".
std::string bound_text(const MergedGroup::Check& ch) {
  const verify::ClassCheckResult& r = ch.result;
  return fmt::format("{:+.1f}% pooled, lower bound {:+.1f}% at {:g}% (canaries' own se {:.1f}%, "
                     "node spread {:g}%, shared bias {:g}%) against min_effect {:g}%",
                     100 * r.effect, 100 * r.low, 100 * (1 - ch.config.false_keep_rate),
                     100 * r.se_canaries, 100 * ch.config.node_spread, 100 * ch.config.canary_bias,
                     100 * ch.config.min_effect);
}

/// The class check of a group every canary kept, when all kept it for a measured gain:
/// true when the class may keep it (also when the check does not apply: neutral and
/// unmeasured keeps are not gain claims); false with g.decision and g.why set.
bool class_check(MergedGroup& g, const std::vector<const CanaryGroup*>& verdicts,
                 verify::ClassCheckConfig config, std::optional<double> min_effect) {
  bool gains = std::all_of(verdicts.begin(), verdicts.end(),
                           [](const CanaryGroup* v) { return v->reason == "gain"; });
  if (!gains) return true;
  std::vector<verify::CanaryEffect> effects;
  std::string missing;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    const CanaryGroup& v = *verdicts[i];
    if (!v.effect || !v.ci_low || !v.ci_level) {
      if (missing.empty()) missing = g.canaries[i].node;
      continue;
    }
    effects.push_back({*v.effect, *v.ci_low, *v.ci_level, v.scale, v.lower_is_better});
  }
  if (!min_effect || !missing.empty()) {
    g.decision = "insufficient";
    g.why = !missing.empty()
                ? fmt::format("{}'s record has no effect interval (stats.effect, ci, "
                              "ci_level): the class check cannot pool it; each node verifies",
                              missing)
                : "a record has no min_effect (written before the class check): the class "
                  "check cannot judge the pooled effect; each node verifies";
    return false;
  }
  config.min_effect = *min_effect;
  MergedGroup::Check& ch = g.check.emplace();
  ch.config = config;
  ch.result = verify::check_class(effects, config);
  switch (ch.result.verdict) {
    case verify::ClassCheck::keep: return true;
    case verify::ClassCheck::heterogeneous: {
      std::string sizes;
      for (const MergedGroup::Canary& c : g.canaries)
        sizes += fmt::format("{}{} {:+.1f}%", sizes.empty() ? "" : ", ", c.node,
                             100 * c.effect.value_or(0));
      bool two = g.canaries.size() <= kMinCanaries;
      g.decision = two ? "needs_canary" : "disagree";
      g.why = fmt::format("the canaries kept it by sizes that differ more than node spread "
                          "({:g}%) explains: {} (Q {:.2f}, p {:.3f}){}",
                          100 * config.node_spread, sizes, ch.result.q, ch.result.q_p,
                          two ? "; a third canary decides" : "");
      return false;
    }
    case verify::ClassCheck::no_margin:
      g.decision = "insufficient";
      g.why = fmt::format("{} canaries kept it, but the class check finds no margin: {}; "
                          "each node verifies",
                          g.canaries.size(), bound_text(ch));
      return false;
    case verify::ClassCheck::no_interval:
      g.decision = "insufficient";
      g.why = "a canary's effect interval is not usable (not finite, or its lower end not "
              "below the effect): each node verifies";
      return false;
  }
  return false;
}

/// g.before from the canaries' records: set when every record has before-values and
/// they agree; "" then (or when a record has none: g.before stays absent). Otherwise
/// what differs, for the decision's why: "sysctl:x 60 on a, 10 on b".
std::string merge_before(MergedGroup& g, const std::vector<const CanaryGroup*>& verdicts) {
  auto text = [](const std::optional<std::string>& v) { return v ? *v : std::string("unread"); };
  std::map<std::string, std::optional<std::string>> before;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    if (!verdicts[i]->before) return "";
    for (const auto& [knob, value] : *verdicts[i]->before) {
      auto [it, fresh] = before.try_emplace(knob, value);
      if (!fresh && it->second != value) {
        std::size_t first = 0;
        while (first < i && !verdicts[first]->before->contains(knob)) ++first;
        return fmt::format("{} {} on {}, {} on {}", knob, text(it->second), g.canaries[first].node,
                           text(value), g.canaries[i].node);
      }
    }
  }
  // A knob one canary changed and another did not (it was already there): two starts.
  for (std::size_t i = 0; i < verdicts.size(); ++i)
    for (const auto& [knob, value] : before)
      if (!verdicts[i]->before->contains(knob))
        return fmt::format("{} {} on one, already as planned on {}", knob, text(value),
                           g.canaries[i].node);
  g.before = std::move(before);
  return "";
}

/// The group's decision from its canaries (sorted by node), with why.
void decide(MergedGroup& g, const std::vector<const CanaryGroup*>& verdicts,
            const verify::ClassCheckConfig& check, std::optional<double> min_effect) {
  std::vector<std::string> kept, back, unmeasured;
  for (const MergedGroup::Canary& c : g.canaries) {
    (c.decision == "kept" ? kept : back).push_back(c.node);
    // A soak that saw no workload traffic (soak_undecided) measured nothing either.
    if (c.decision == "kept" && (c.reason == "not_measurable_kept" || c.reason == "soak_undecided"))
      unmeasured.push_back(c.node);
  }
  // The knobs: every canary's; one written with two values is a disagreement.
  std::string conflict;
  for (std::size_t i = 0; i < verdicts.size(); ++i)
    for (const auto& [knob, value] : verdicts[i]->knobs) {
      auto [it, fresh] = g.knobs.try_emplace(knob, value);
      if (!fresh && it->second != value && conflict.empty())
        conflict = fmt::format("the canaries wrote {} differently ({} on {})", knob, value,
                               g.canaries[i].node);
    }
  // Where they started: every canary's before-values, which must agree.
  std::string started_apart = merge_before(g, verdicts);
  const std::size_t n = g.canaries.size();
  if (n < kMinCanaries) {
    g.decision = "insufficient";
    g.why = fmt::format("only {} decided it; at least {} canaries must",
                        few(kept.empty() ? back : kept), kMinCanaries);
  } else if (!kept.empty() && !back.empty()) {
    g.decision = "disagree";
    g.why = fmt::format("{} kept it, {} rolled it back", few(kept), few(back));
  } else if (!started_apart.empty()) {
    // Two experiments from two starting points: neither is the class's (issue 41).
    g.decision = "insufficient";
    g.why = fmt::format("the canaries started from different values ({}): no class evidence "
                        "for either start; each node verifies",
                        started_apart);
  } else if (back.empty() && !unmeasured.empty()) {
    // Kept with no measurement (no benchmark, no peer: the soak alone, or nothing) is
    // no evidence for the class (issue 41): each node decides for itself.
    g.decision = "unmeasured";
    g.why = fmt::format("{} kept it with no measurement (not_measurable_kept, or a soak "
                        "without traffic): no class evidence; each node decides it for itself",
                        few(unmeasured));
  } else if (back.empty()) {
    std::set<std::optional<std::string>> chosen;
    for (const MergedGroup::Canary& c : g.canaries) chosen.insert(c.chosen);
    if (chosen.size() > 1) {
      g.decision = "disagree";
      std::string values;
      for (const MergedGroup::Canary& c : g.canaries)
        values += fmt::format("{}{} {}", values.empty() ? "" : ", ", c.node,
                              c.chosen.value_or("(no search)"));
      g.why = "the canaries chose different values: " + values;
    } else if (!conflict.empty()) {
      g.decision = "disagree";
      g.why = conflict;
    } else if (!class_check(g, verdicts, check, min_effect)) {
      // class_check said why.
    } else {
      g.decision = "kept";
      g.chosen = g.canaries.front().chosen;
      g.why = fmt::format("{} canaries kept it", n);
      if (g.chosen) g.why += ", all chose " + *g.chosen;
      if (g.check) g.why += "; " + class_check_text(*g.check);
    }
  } else {
    g.decision = "rolled_back";
    g.why = fmt::format("{} canaries rolled it back", n);
  }
}

}  // namespace

verify::ClassCheckConfig default_class_check() { return {}; }

std::string class_check_text(const MergedGroup::Check& ch) {
  if (ch.result.differ)
    return fmt::format("effects differ (Q {:.2f}, p {:.3f}), but the smallest alone clears "
                       "min_effect with the margin; {}",
                       ch.result.q, ch.result.q_p, bound_text(ch));
  return fmt::format("effects compatible (Q {:.2f}, p {:.2f}); {}", ch.result.q, ch.result.q_p,
                     bound_text(ch));
}

std::vector<ClassDecision> merge_decisions(const std::vector<DecisionRecord>& records,
                                           std::vector<OlderRecords>* older,
                                           const verify::ClassCheckConfig& check) {
  // (class key, digest) -> identity -> its records. A node is who the record says it
  // is, not the file name or inventory alias it came under (issue 41): the same record
  // twice is one canary.
  std::map<std::pair<std::string, std::string>,
           std::map<std::tuple<std::string, std::string, std::string>,
                    std::vector<const DecisionRecord*>>>
      by_class;
  for (const DecisionRecord& r : records) {
    bool stated = !r.machine_id.empty() || !r.hostname.empty();
    by_class[{r.class_key, r.profile_digest}]
            [{r.machine_id, r.hostname, stated ? std::string() : r.node}]
                .push_back(&r);
  }
  std::vector<ClassDecision> out;
  for (auto& [key, nodes] : by_class) {
    ClassDecision c;
    std::tie(c.key, c.profile_digest) = key;
    // group name -> the canaries' verdicts, by node (the map's order).
    std::map<std::string, std::pair<MergedGroup, std::vector<const CanaryGroup*>>> groups;
    // The class's min_effect: the canaries' (one profile digest: one value), the
    // largest when records say otherwise; none when any record lacks it.
    std::optional<double> min_effect;
    bool every_min_effect = true;
    // By the name each identity's newest record came under (the order canaries are
    // listed and merged in).
    std::vector<std::vector<const DecisionRecord*>> by_node;
    for (auto& [identity, docs] : nodes) {
      std::sort(docs.begin(), docs.end(), newer);
      by_node.push_back(docs);
    }
    std::sort(by_node.begin(), by_node.end(), [](const auto& a, const auto& b) {
      return std::tie(a.front()->node, a.front()->source) <
             std::tie(b.front()->node, b.front()->source);
    });
    for (const auto& docs : by_node) {
      const DecisionRecord& r = *docs.front();
      const std::string& node = r.node;
      if (docs.size() > 1 && older) {
        OlderRecords o{node, r.source, {}, {}};
        std::set<std::string> names;
        for (const DecisionRecord* d : docs) names.insert(d->node);
        for (std::size_t i = 1; i < docs.size(); ++i) o.ignored.push_back(docs[i]->source);
        if (names.size() > 1) o.names.assign(names.begin(), names.end());
        older->push_back(std::move(o));
      }
      if (c.canaries.empty()) {
        c.facts = r.class_facts;
        c.profiles = r.profiles;
      }
      c.canaries.push_back(node);
      if (!r.min_effect || !std::isfinite(*r.min_effect)) every_min_effect = false;
      else min_effect = std::max(min_effect.value_or(*r.min_effect), *r.min_effect);
      for (const CanaryGroup& g : r.groups) {
        auto& [merged, verdicts] = groups[g.name];
        merged.name = g.name;
        merged.canaries.push_back({node, g.decision, g.reason, g.chosen, g.effect, g.p, g.ci_low});
        verdicts.push_back(&g);
      }
    }
    if (!every_min_effect) min_effect.reset();
    for (auto& [name, entry] : groups) {
      decide(entry.first, entry.second, check, min_effect);
      c.groups.push_back(std::move(entry.first));
    }
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

json before_json(const std::optional<std::map<std::string, std::optional<std::string>>>& before) {
  if (!before) return nullptr;
  json out = json::object();
  for (const auto& [knob, value] : *before) out[knob] = optional_text(value);
  return out;
}

}  // namespace

json class_decision_json(const ClassDecision& c) {
  auto number = [](const std::optional<double>& v) {
    return v && std::isfinite(*v) ? json(*v) : json(nullptr);
  };
  json groups = json::array();
  for (const MergedGroup& g : c.groups) {
    json canaries = json::array();
    for (const MergedGroup::Canary& k : g.canaries)
      canaries.push_back({{"node", k.node},
                          {"decision", k.decision},
                          {"reason", k.reason},
                          {"chosen", optional_text(k.chosen)},
                          {"effect", number(k.effect)},
                          {"p", number(k.p)},
                          {"ci_low", number(k.ci_low)}});
    groups.push_back({{"name", g.name},
                      {"decision", g.decision},
                      {"chosen", optional_text(g.chosen)},
                      {"knobs", json(g.knobs)},
                      {"before", before_json(g.before)},
                      {"canaries", canaries},
                      {"check", check_json(g.check)}});
  }
  return {{"key", c.key},           {"facts", json(c.facts)},
          {"profiles", c.profiles}, {"profile_digest", c.profile_digest},
          {"canaries", c.canaries}, {"groups", groups}};
}

json decisions_json(const std::vector<ClassDecision>& classes, const std::string& time) {
  json out = json::array();
  for (const ClassDecision& c : classes) out.push_back(class_decision_json(c));
  return {{"schema", "tuner.decisions/1"}, {"time", time}, {"classes", out}};
}

}  // namespace tuner
