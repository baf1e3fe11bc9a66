// Reading a canary's tuner.decision/1 record, bounded and checked field by field
// (docs/fleet-decisions.md "The decision record"): a hostile record is refused with why.
#include <set>

#include <fmt/core.h>

#include "tuner/cli/report/fleet.h"
#include "tuner/cli/report/fleet_decisions.h"
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

}  // namespace tuner
