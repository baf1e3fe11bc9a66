// Reading the canaries' tuner.decision/1 records and merging them per class and profile
// digest (docs/fleet-decisions.md "Merging").
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

/// A string member within kMaxDecisionText: "" when absent or null (unless required).
Result<std::string> text_member(const json& obj, const char* key, const std::string& where,
                                const std::string& file, bool required = false) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) return Error::invalid(fmt::format("{} has no \"{}\"", where, key), file);
    return std::string();
  }
  if (!it->is_string())
    return Error::invalid(fmt::format("{}.{} is not a string", where, key), file);
  const auto& s = it->get_ref<const std::string&>();
  if (s.size() > kMaxDecisionText)
    return Error::invalid(fmt::format("{}.{} is {} bytes, past {}: a decision record is never cut",
                                      where, key, s.size(), kMaxDecisionText),
                          file);
  if (required && s.empty()) return Error::invalid(fmt::format("{}.{} is empty", where, key), file);
  return s;
}

/// An object of strings, each within kMaxDecisionText, at most `max` of them.
Status string_map(const json& obj, const std::string& where, const std::string& file,
                  std::size_t max, std::map<std::string, std::string>& out) {
  if (!obj.is_object()) return Error::invalid(where + " is not an object", file);
  if (obj.size() > max)
    return Error::invalid(fmt::format("{} has {} entries, past {}", where, obj.size(), max), file);
  for (const auto& [k, v] : obj.items()) {
    if (!v.is_string())
      return Error::invalid(fmt::format("{}[\"{}\"] is not a string", where, bounded_text(k)),
                            file);
    const auto& s = v.get_ref<const std::string&>();
    if (k.size() > kMaxDecisionText || s.size() > kMaxDecisionText)
      return Error::invalid(
          fmt::format("{} has a name or value past {} bytes", where, kMaxDecisionText), file);
    out[k] = s;
  }
  return Ok{};
}

std::optional<double> number_member(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

Result<CanaryGroup> read_group(const json& g, std::size_t i, const std::string& file,
                               std::size_t& knobs) {
  const std::string where = fmt::format("groups[{}]", i);
  if (!g.is_object()) return Error::invalid(where + " is not an object", file);
  CanaryGroup out;
  auto name = text_member(g, "name", where, file, true);
  if (!name.ok()) return name.error();
  // A profile's group name: what apply --decisions looks up.
  if (Status st = check_plain_name(*name, "group name"); !st.ok())
    return Error::invalid(where + ": " + bounded_text(st.error().message()), file);
  out.name = std::move(name).value();
  auto decision = text_member(g, "decision", where, file, true);
  if (!decision.ok()) return decision.error();
  if (*decision != "kept" && *decision != "rolled_back")
    return Error::invalid(fmt::format("{}.decision is \"{}\": a canary's group is kept or "
                                      "rolled_back",
                                      where, bounded_text(*decision)),
                          file);
  out.decision = std::move(decision).value();
  auto reason = text_member(g, "reason", where, file);
  if (!reason.ok()) return reason.error();
  out.reason = std::move(reason).value();
  if (auto chosen = g.find("chosen"); chosen != g.end() && !chosen->is_null()) {
    // As the profile spells it, which is what apply --decisions compares.
    if (!chosen->is_string() || chosen->get_ref<const std::string&>().size() > kMaxDecisionText)
      return Error::invalid(where + ".chosen is not a value as the profile spells it (a string)",
                            file);
    out.chosen = chosen->get<std::string>();
  }
  if (auto k = g.find("knobs"); k != g.end() && !k->is_null()) {
    if (Status st = string_map(*k, where + ".knobs", file, kMaxKnobsPerDecision, out.knobs);
        !st.ok())
      return st.error();
    knobs += out.knobs.size();
    if (knobs > kMaxKnobsPerDecision)
      return Error::invalid(fmt::format("more than {} knobs", kMaxKnobsPerDecision), file);
  }
  if (auto b = g.find("before"); b != g.end() && !b->is_null()) {
    if (!b->is_object() || b->size() > kMaxKnobsPerDecision)
      return Error::invalid(fmt::format("{}.before is not an object of at most {} knobs", where,
                                        kMaxKnobsPerDecision),
                            file);
    auto& before = out.before.emplace();
    for (const auto& [k, v] : b->items()) {
      if (!(v.is_string() || v.is_null()) || k.size() > kMaxDecisionText ||
          (v.is_string() && v.get_ref<const std::string&>().size() > kMaxDecisionText))
        return Error::invalid(fmt::format("{}.before[\"{}\"] is not a value (a string or null) "
                                          "within {} bytes",
                                          where, bounded_text(k), kMaxDecisionText),
                              file);
      before[k] = v.is_null() ? std::nullopt : std::optional<std::string>(v.get<std::string>());
    }
    knobs += before.size();
    if (knobs > kMaxKnobsPerDecision)
      return Error::invalid(fmt::format("more than {} knobs", kMaxKnobsPerDecision), file);
  }
  if (auto stats = g.find("stats"); stats != g.end() && stats->is_object()) {
    out.effect = number_member(*stats, "effect");
    out.p = number_member(*stats, "p");
    // The interval the class check pools (null ends, as infinities are written: none).
    if (auto ci = stats->find("ci");
        ci != stats->end() && ci->is_array() && !ci->empty() && (*ci)[0].is_number())
      out.ci_low = (*ci)[0].get<double>();
    out.ci_level = number_member(*stats, "ci_level");
    auto scale = text_member(*stats, "scale", where + ".stats", file);
    if (!scale.ok()) return scale.error();
    if (!scale->empty()) {
      auto parsed = verify::parse_scale(*scale);
      if (!parsed)
        return Error::invalid(fmt::format("{}.stats.scale is \"{}\", not ratio or difference",
                                          where, bounded_text(*scale)),
                              file);
      out.scale = *parsed;
    }
    auto direction = text_member(*stats, "direction", where + ".stats", file);
    if (!direction.ok()) return direction.error();
    out.lower_is_better = *direction == "lower";
    // The reason is also the stats' outcome; a record that lost one still has the other.
    if (out.reason.empty()) {
      auto outcome = text_member(*stats, "outcome", where + ".stats", file);
      if (!outcome.ok()) return outcome.error();
      out.reason = std::move(outcome).value();
    }
  }
  return out;
}

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

Result<DecisionRecord> read_decision_record(const json& doc, const std::string& file) {
  DecisionRecord r;
  r.source = file;
  for (auto [key, field] : {std::pair{"node", &r.node}, {"time", &r.time}, {"run_id", &r.run_id}}) {
    auto v = text_member(doc, key, "the record", file);
    if (!v.ok()) return v.error();
    *field = std::move(v).value();
  }
  // The hostname apply saw (the reader names the canary by its file later).
  r.hostname = r.node;
  if (auto id = doc.find("identity"); id != doc.end() && !id->is_null()) {
    if (!id->is_object()) return Error::invalid("identity is not an object", file);
    auto machine = text_member(*id, "machine_id", "identity", file);
    if (!machine.ok()) return machine.error();
    r.machine_id = std::move(machine).value();
    auto host = text_member(*id, "hostname", "identity", file);
    if (!host.ok()) return host.error();
    if (!host->empty()) r.hostname = std::move(host).value();
  }
  auto cls = doc.find("class");
  if (cls == doc.end() || !cls->is_object())
    return Error::invalid("a tuner.decision/1 without \"class\" (the canary's hardware class)",
                          file);
  auto key = text_member(*cls, "key", "class", file, true);
  if (!key.ok()) return key.error();
  r.class_key = std::move(key).value();
  // tuner probe's spelling ("hw-" and 16 hex digits): apply --decisions looks it up.
  if (r.class_key.size() != 19 || !r.class_key.starts_with("hw-") ||
      r.class_key.find_first_not_of("0123456789abcdef", 3) != std::string::npos)
    return Error::invalid("class.key \"" + bounded_text(r.class_key) +
                              "\" is not a class key (\"hw-\" and 16 hex digits)",
                          file);
  if (auto facts = cls->find("facts"); facts != cls->end() && !facts->is_null())
    if (Status st = string_map(*facts, "class.facts", file, kMaxFactsPerNode, r.class_facts);
        !st.ok())
      return st.error();
  auto profile = doc.find("profile");
  if (profile == doc.end() || !profile->is_object())
    return Error::invalid("a tuner.decision/1 without \"profile\"", file);
  auto digest = text_member(*profile, "digest", "profile", file, true);
  if (!digest.ok()) return digest.error();
  r.profile_digest = std::move(digest).value();
  if (auto names = profile->find("names"); names != profile->end() && !names->is_null()) {
    if (!names->is_array() || names->size() > kMaxProfilesPerDecision)
      return Error::invalid(
          fmt::format("profile.names is not a list of at most {} names", kMaxProfilesPerDecision),
          file);
    for (const json& n : *names) {
      if (!n.is_string() || n.get_ref<const std::string&>().size() > kMaxDecisionText)
        return Error::invalid("profile.names holds something other than a name", file);
      r.profiles.push_back(n.get<std::string>());
    }
  }
  r.min_effect = number_member(doc, "min_effect");
  auto groups = doc.find("groups");
  if (groups == doc.end() || !groups->is_array())
    return Error::invalid("a tuner.decision/1 without \"groups\"", file);
  if (groups->size() > kMaxGroupsPerNode)
    return Error::invalid(fmt::format("{} groups, past {}: a decision record is never cut",
                                      groups->size(), kMaxGroupsPerNode),
                          file);
  std::set<std::string> seen;
  std::size_t knobs = 0;
  for (std::size_t i = 0; i < groups->size(); ++i) {
    auto g = read_group((*groups)[i], i, file, knobs);
    if (!g.ok()) return g.error();
    if (!seen.insert(g->name).second)
      return Error::invalid("group " + bounded_text(g->name) + " is decided twice", file);
    r.groups.push_back(std::move(g).value());
  }
  return r;
}

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
