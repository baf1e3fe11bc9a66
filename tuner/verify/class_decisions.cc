#include "tuner/verify/class_decisions.h"

#include <fcntl.h>

#include <array>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/enum_names.h"
#include "base/fd_io.h"
#include "base/file_trust.h"
#include "base/json_nesting.h"
#include "base/strings.h"

namespace tuner::verify {

namespace {

using nlohmann::json;

constexpr std::array<EnumName<ClassVerdict>, 6> kVerdicts = {{
    {ClassVerdict::kept, "kept"},
    {ClassVerdict::rolled_back, "rolled_back"},
    {ClassVerdict::disagree, "disagree"},
    {ClassVerdict::insufficient, "insufficient"},
    {ClassVerdict::needs_canary, "needs_canary"},
    {ClassVerdict::unmeasured, "unmeasured"},
}};
static_assert(in_enum_order(kVerdicts));

/// Reads fields of one document, keeping the first error with its path.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  const json* field(const json& obj, const std::string& key, const std::string& path,
                    json::value_t type) {
    if (error_) return nullptr;
    auto it = obj.find(key);
    if (it == obj.end()) return fail(path + "." + key, "missing");
    bool ok = it->type() == type ||
              (type == json::value_t::number_unsigned && it->is_number_integer());
    if (!ok) return fail(path + "." + key, fmt::format("expected {}", name_of(type)));
    return &*it;
  }

  std::string text(const json& obj, const std::string& key, const std::string& path) {
    const json* v = field(obj, key, path, json::value_t::string);
    if (!v) return "";
    const auto& s = v->get_ref<const std::string&>();
    if (s.size() > 4096) fail(path + "." + key, "longer than 4096 bytes");
    return s;
  }

  std::vector<std::string> texts(const json& obj, const std::string& key, const std::string& path,
                                 std::size_t max) {
    std::vector<std::string> out;
    const json* v = field(obj, key, path, json::value_t::array);
    if (!v) return out;
    if (v->size() > max) fail(path + "." + key, fmt::format("more than {} entries", max));
    for (std::size_t i = 0; i < v->size() && !error_; ++i) {
      const json& e = (*v)[i];
      if (!e.is_string() || e.get_ref<const std::string&>().size() > 4096)
        fail(fmt::format("{}.{}[{}]", path, key, i), "expected a string of at most 4096 bytes");
      else out.push_back(e.get<std::string>());
    }
    return out;
  }

  std::nullptr_t fail(const std::string& path, const std::string& why) {
    if (!error_) error_ = Error::invalid(fmt::format("{}: {}", path, escape_controls(why)), file_);
    return nullptr;
  }

  const std::optional<Error>& error() const { return error_; }

 private:
  static const char* name_of(json::value_t t) {
    switch (t) {
      case json::value_t::string: return "a string";
      case json::value_t::array: return "an array";
      case json::value_t::object: return "an object";
      default: return "a number";
    }
  }

  std::string file_;
  std::optional<Error> error_;
};

ClassGroupDecision read_group(Reader& in, const json& g, const std::string& path,
                              std::string& name) {
  ClassGroupDecision d;
  name = in.text(g, "name", path);
  std::string verdict = in.text(g, "decision", path);
  if (in.error()) return d;
  auto v = parse_class_verdict(verdict);
  if (!v)
    in.fail(path + ".decision",
            fmt::format("'{}' is not kept, rolled_back, disagree, insufficient, needs_canary or "
                        "unmeasured",
                        verdict));
  else d.verdict = *v;
  if (auto it = g.find("chosen"); it != g.end() && !it->is_null()) {
    if (!it->is_string()) in.fail(path + ".chosen", "expected a string or null");
    else d.chosen = it->get<std::string>();
  }
  if (auto it = g.find("knobs"); it != g.end() && !it->is_null()) {
    if (!it->is_object() || it->size() > kMaxDecisionKnobs)
      in.fail(path + ".knobs",
              fmt::format("expected an object of at most {} knobs", kMaxDecisionKnobs));
    else
      for (const auto& [k, v] : it->items()) {
        if (!v.is_string()) {
          in.fail(path + ".knobs." + k, "expected a string");
          break;
        }
        d.knobs[k] = v.get<std::string>();
      }
  }
  if (auto it = g.find("before"); it != g.end() && !it->is_null()) {
    if (!it->is_object() || it->size() > kMaxDecisionKnobs) {
      in.fail(path + ".before",
              fmt::format("expected an object of at most {} knobs or null", kMaxDecisionKnobs));
    } else {
      auto& before = d.before.emplace();
      for (const auto& [k, v] : it->items()) {
        if (!v.is_string() && !v.is_null()) {
          in.fail(path + ".before." + k, "expected a string or null");
          break;
        }
        before[k] = v.is_null() ? std::nullopt : std::optional<std::string>(v.get<std::string>());
      }
    }
  }
  if (auto it = g.find("canaries"); it != g.end()) {
    if (!it->is_array() || it->size() > 1024) {
      in.fail(path + ".canaries", "expected an array of at most 1024 entries");
    } else {
      for (std::size_t i = 0; i < it->size(); ++i) {
        const json& c = (*it)[i];
        std::string node = c.is_string() ? c.get<std::string>()
                           : c.is_object() && c.contains("node") && c["node"].is_string()
                               ? c["node"].get<std::string>()
                               : std::string();
        if (node.empty() || node.size() > 256) {
          in.fail(fmt::format("{}.canaries[{}]", path, i),
                  "expected a node name of 1 to 256 bytes");
          break;
        }
        d.canaries.push_back(std::move(node));
      }
    }
  }
  // Distinct nodes: a canary named twice (a hand-edited ["x", "x"]) is one canary.
  std::set<std::string> distinct(d.canaries.begin(), d.canaries.end());
  if (!in.error() && d.verdict == ClassVerdict::kept && distinct.size() < 2)
    in.fail(path, distinct.size() < d.canaries.size()
                      ? fmt::format("kept on {} distinct canar{} (a node named twice counts "
                                    "once): a class decision needs at least 2",
                                    distinct.size(), distinct.size() == 1 ? "y" : "ies")
                      : "kept on fewer than 2 canaries: a class decision needs at least 2");
  return d;
}

}  // namespace

const char* class_verdict_name(ClassVerdict v) { return enum_name(kVerdicts, v); }

std::optional<ClassVerdict> parse_class_verdict(std::string_view name) {
  return enum_from_name(kVerdicts, name);
}

const ClassDecision* ClassDecisions::find(const std::string& key, const std::string& digest) const {
  for (const ClassDecision& c : classes)
    if (c.key == key && c.profile_digest == digest) return &c;
  return nullptr;
}

std::string ClassDecisions::why_not_found(const std::string& key, const std::string& digest) const {
  std::vector<std::string> digests, keys;
  for (const ClassDecision& c : classes) {
    if (c.key == key) digests.push_back(c.profile_digest);
    else if (keys.size() < 8) keys.push_back(c.key);
  }
  if (!digests.empty())
    return fmt::format("{} has class {} decided with other profiles ({}; these are {})", file, key,
                       fmt::join(digests, ", "), digest);
  return fmt::format("{} has no decision for class {} ({} class{}{}{})", file, key, classes.size(),
                     classes.size() == 1 ? "" : "es", keys.empty() ? "" : ": ",
                     fmt::join(keys, ", "));
}

Result<ClassDecisions> parse_class_decisions(const json& doc, const std::string& file) {
  Reader in(file);
  ClassDecisions out;
  out.file = file;
  if (!doc.is_object()) return Error::invalid("not a tuner.decisions/1 document", file);
  std::string schema = in.text(doc, "schema", "");
  if (!in.error() && schema != "tuner.decisions/1")
    return Error::invalid(
        fmt::format("schema '{}': expected tuner.decisions/1 (merge the canaries' "
                    "tuner.decision/1 records with 'tuner report --decisions-out')",
                    escape_controls(schema.substr(0, 64))),
        file);
  const json* classes = in.field(doc, "classes", "", json::value_t::array);
  if (classes && classes->size() > kMaxDecisionClasses)
    in.fail(".classes", fmt::format("more than {} classes", kMaxDecisionClasses));
  for (std::size_t i = 0; classes && i < classes->size() && !in.error(); ++i) {
    std::string path = fmt::format("classes[{}]", i);
    const json& c = (*classes)[i];
    if (!c.is_object()) {
      in.fail(path, "expected an object");
      break;
    }
    ClassDecision d;
    d.key = in.text(c, "key", path);
    d.profile_digest = in.text(c, "profile_digest", path);
    d.profiles = in.texts(c, "profiles", path, 64);
    d.canaries = in.texts(c, "canaries", path, 1024);
    const json* groups = in.field(c, "groups", path, json::value_t::array);
    if (groups && groups->size() > kMaxDecisionGroups)
      in.fail(path + ".groups", fmt::format("more than {} groups", kMaxDecisionGroups));
    for (std::size_t k = 0; groups && k < groups->size() && !in.error(); ++k) {
      std::string gpath = fmt::format("{}.groups[{}]", path, k);
      if (!(*groups)[k].is_object()) {
        in.fail(gpath, "expected an object");
        break;
      }
      std::string name;
      ClassGroupDecision g = read_group(in, (*groups)[k], gpath, name);
      if (!in.error() && !d.groups.emplace(name, std::move(g)).second)
        in.fail(gpath + ".name", "'" + name + "' is listed twice");
    }
    if (!in.error() && out.find(d.key, d.profile_digest))
      in.fail(path, "class " + d.key + " with these profiles is listed twice");
    if (!in.error()) out.classes.push_back(std::move(d));
  }
  if (in.error()) return *in.error();
  return out;
}

Result<ClassDecisions> read_class_decisions(const std::string& file) {
  const ReadLimits limits{.max_bytes = kMaxDecisionFileBytes, .regular_only = true};
  auto fd = open_for_read(AT_FDCWD, file, file, limits);
  if (!fd.ok()) return fd.error();
  if (Status trusted = check_trusted_fd(fd->get(), file, "decision file"); !trusted.ok())
    return trusted.error();
  auto text = read_fd(fd->get(), file, limits);
  if (!text.ok()) return text.error();
  if (Status depth = check_json_nesting(*text, file); !depth.ok()) return depth.error();
  json doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded()) return Error::invalid("not JSON", file);
  return parse_class_decisions(doc, file);
}

std::string class_start_mismatch(const ClassGroupDecision& decision,
                                 const std::map<std::string, std::optional<std::string>>& planned) {
  auto text = [](const std::optional<std::string>& v) { return v ? *v : std::string("unread"); };
  if (!decision.before)
    return "the class decision has no before-values (merged from records of an older tuner), "
           "so nothing shows this node starts where the canaries did";
  const auto& before = *decision.before;
  for (const auto& [knob, current] : planned) {
    auto it = before.find(knob);
    if (it == before.end())
      return fmt::format("this node plans {}, which the canaries did not change", knob);
    if (it->second != current)
      return fmt::format("{} is {} here, the canaries started from {}", knob, text(current),
                         text(it->second));
  }
  for (const auto& [knob, value] : before)
    if (!planned.contains(knob))
      return fmt::format("the canaries changed {} (from {}), which this node does not plan", knob,
                         text(value));
  return "";
}

}  // namespace tuner::verify
