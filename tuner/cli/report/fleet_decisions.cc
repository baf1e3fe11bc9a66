// Reading the canaries' tuner.decision/1 records and merging them per class and profile
// digest (docs/fleet-decisions.md "Merging").
#include "tuner/cli/report/fleet_decisions.h"

#include <algorithm>
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
  if (auto stats = g.find("stats"); stats != g.end() && stats->is_object()) {
    out.effect = number_member(*stats, "effect");
    out.p = number_member(*stats, "p");
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

/// The group's decision from its canaries (sorted by node), with why.
void decide(MergedGroup& g, const std::vector<const CanaryGroup*>& verdicts) {
  std::vector<std::string> kept, back;
  for (const MergedGroup::Canary& c : g.canaries)
    (c.decision == "kept" ? kept : back).push_back(c.node);
  // The knobs: every canary's; one written with two values is a disagreement.
  std::string conflict;
  for (std::size_t i = 0; i < verdicts.size(); ++i)
    for (const auto& [knob, value] : verdicts[i]->knobs) {
      auto [it, fresh] = g.knobs.try_emplace(knob, value);
      if (!fresh && it->second != value && conflict.empty())
        conflict = fmt::format("the canaries wrote {} differently ({} on {})", knob, value,
                               g.canaries[i].node);
    }
  const std::size_t n = g.canaries.size();
  if (n < kMinCanaries) {
    g.decision = "insufficient";
    g.why = fmt::format("only {} decided it; at least {} canaries must",
                        few(kept.empty() ? back : kept), kMinCanaries);
  } else if (!kept.empty() && !back.empty()) {
    g.decision = "disagree";
    g.why = fmt::format("{} kept it, {} rolled it back", few(kept), few(back));
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
    } else {
      g.decision = "kept";
      g.chosen = g.canaries.front().chosen;
      g.why = fmt::format("{} canaries kept it", n);
      if (g.chosen) g.why += ", all chose " + *g.chosen;
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

std::vector<ClassDecision> merge_decisions(const std::vector<DecisionRecord>& records,
                                           std::vector<OlderRecords>* older) {
  // (class key, digest) -> node -> its records.
  std::map<std::pair<std::string, std::string>,
           std::map<std::string, std::vector<const DecisionRecord*>>>
      by_class;
  for (const DecisionRecord& r : records)
    by_class[{r.class_key, r.profile_digest}][r.node].push_back(&r);
  std::vector<ClassDecision> out;
  for (auto& [key, nodes] : by_class) {
    ClassDecision c;
    std::tie(c.key, c.profile_digest) = key;
    // group name -> the canaries' verdicts, by node (the map's order).
    std::map<std::string, std::pair<MergedGroup, std::vector<const CanaryGroup*>>> groups;
    for (auto& [node, docs] : nodes) {
      std::sort(docs.begin(), docs.end(), newer);
      const DecisionRecord& r = *docs.front();
      if (docs.size() > 1 && older) {
        OlderRecords o{node, r.source, {}};
        for (std::size_t i = 1; i < docs.size(); ++i) o.ignored.push_back(docs[i]->source);
        older->push_back(std::move(o));
      }
      if (c.canaries.empty()) {
        c.facts = r.class_facts;
        c.profiles = r.profiles;
      }
      c.canaries.push_back(node);
      for (const CanaryGroup& g : r.groups) {
        auto& [merged, verdicts] = groups[g.name];
        merged.name = g.name;
        merged.canaries.push_back({node, g.decision, g.reason, g.chosen, g.effect, g.p});
        verdicts.push_back(&g);
      }
    }
    for (auto& [name, entry] : groups) {
      decide(entry.first, entry.second);
      c.groups.push_back(std::move(entry.first));
    }
    out.push_back(std::move(c));
  }
  return out;
}

json class_decision_json(const ClassDecision& c) {
  auto number = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json groups = json::array();
  for (const MergedGroup& g : c.groups) {
    json canaries = json::array();
    for (const MergedGroup::Canary& k : g.canaries)
      canaries.push_back({{"node", k.node},
                          {"decision", k.decision},
                          {"reason", k.reason},
                          {"chosen", optional_text(k.chosen)},
                          {"effect", number(k.effect)},
                          {"p", number(k.p)}});
    groups.push_back({{"name", g.name},
                      {"decision", g.decision},
                      {"chosen", optional_text(g.chosen)},
                      {"knobs", json(g.knobs)},
                      {"canaries", canaries}});
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
