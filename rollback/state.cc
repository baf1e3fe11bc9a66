#include "rollback/state.h"

#include "base/fd_io.h"
#include "base/json_nesting.h"
#include "tuner/knobs/knob_id.h"

#include <algorithm>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace tuner {

namespace {
constexpr const char* kSchema = "tuner.state/1";
constexpr const char* kFile = "state.json";
/// One entry; a field of the wrong type is an error, never coerced.
Result<KeptKnob> kept_from_json(const nlohmann::json& v, const std::string& id) {
  if (!v.is_object()) return Error::invalid("knob \"" + id + "\" is not an object");
  KeptKnob k;
  for (auto [key, field] : {std::pair{"value", &k.value},
                            {"before", &k.before},
                            {"run_id", &k.run_id},
                            {"group", &k.group}}) {
    auto it = v.find(key);
    if (it == v.end() && std::string_view(key) == "value")
      return Error::invalid("knob \"" + id + "\" has no \"value\"");
    if (it == v.end()) continue;
    if (!it->is_string())
      return Error::invalid(fmt::format("knob \"{}\": \"{}\" is not a string", id, key));
    *field = it->get<std::string>();
  }
  return k;
}

nlohmann::json kept_to_json(const KeptKnob& k) {
  return {{"value", k.value}, {"before", k.before}, {"run_id", k.run_id}, {"group", k.group}};
}

}  // namespace

void keep_knob(State& s, const std::string& id, KeptKnob kept) {
  auto it = s.knobs.find(id);
  if (it != s.knobs.end() && it->second.run_id != kept.run_id) {
    kept.earlier = std::move(it->second.earlier);
    it->second.earlier.clear();
    kept.earlier.push_back(std::move(it->second));
  } else if (it != s.knobs.end()) {
    kept.earlier = std::move(it->second.earlier);  // the same run set it twice
    kept.before = it->second.before;
  }
  s.knobs[id] = std::move(kept);
}

bool forget_knob(State& s, const std::string& id, const std::string& run_id) {
  auto it = s.knobs.find(id);
  if (it == s.knobs.end()) return false;
  KeptKnob& k = it->second;
  if (k.run_id != run_id) {
    // A later run keeps it; run_id's entry may still sit among the earlier ones.
    auto e = std::find_if(k.earlier.begin(), k.earlier.end(),
                          [&](const KeptKnob& old) { return old.run_id == run_id; });
    if (e == k.earlier.end()) return false;
    k.earlier.erase(e);
    return true;
  }
  if (k.earlier.empty()) {
    s.knobs.erase(it);
    return true;
  }
  KeptKnob back = std::move(k.earlier.back());
  k.earlier.pop_back();
  back.earlier = std::move(k.earlier);
  k = std::move(back);
  return true;
}

Result<State> parse_state(std::string_view text, const std::string& where) {
  if (Status depth = check_json_nesting(text, where); !depth.ok()) return depth.error();
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error::invalid("not a JSON object", where);
  auto schema = j.find("schema");
  if (schema == j.end() || !schema->is_string() || *schema != kSchema)
    return Error::invalid(fmt::format("expected schema \"{}\"", kSchema), where);
  State s;
  auto knobs = j.find("knobs");
  if (knobs == j.end()) return s;
  if (!knobs->is_object()) return Error::invalid("\"knobs\" is not an object", where);
  for (const auto& [id, v] : knobs->items()) {
    if (auto parsed = parse_knob_id(id); !parsed.ok()) {
      auto group = v.is_object() ? v.find("group") : v.end();
      s.damaged[id] = {"not a knob id: " + parsed.error().what,
                       group != v.end() && group->is_string() ? group->get<std::string>() : "",
                       v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
      continue;
    }
    auto k = kept_from_json(v, id);
    if (!k.ok()) return k.error().context(where);
    if (auto e = v.find("earlier"); e != v.end()) {
      if (!e->is_array())
        return Error::invalid("knob \"" + id + "\": \"earlier\" is not an array", where);
      for (const auto& old : *e) {
        auto o = kept_from_json(old, id);
        if (!o.ok()) return o.error().context(where);
        k->earlier.push_back(std::move(o).value());
      }
    }
    s.knobs.emplace(id, std::move(k).value());
  }
  return s;
}

std::string encode_state(const State& s) {
  nlohmann::json j;
  j["schema"] = kSchema;
  j["knobs"] = nlohmann::json::object();
  for (const auto& [id, k] : s.knobs) {
    j["knobs"][id] = kept_to_json(k);
    if (!k.earlier.empty()) {
      nlohmann::json earlier = nlohmann::json::array();
      for (const KeptKnob& old : k.earlier) earlier.push_back(kept_to_json(old));
      j["knobs"][id]["earlier"] = earlier;
    }
  }
  for (const auto& [id, d] : s.damaged)
    j["knobs"][id] = nlohmann::json::parse(d.raw, nullptr, false);
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Result<State> load_state(const StateDir& dir) {
  std::string path = dir.path_of(kFile);
  auto text = read_file_at(dir.fd(), kFile, path, {.regular_only = true}, O_NOFOLLOW);
  if (!text.ok() && text.error().err == ENOENT) return State{};
  Result<State> state = text.ok() ? parse_state(*text, path) : Result<State>(text.error());
  if (state.ok() || (!text.ok() && text.error().is(ErrorKind::denied))) return state;
  // The journals hold everything state.json says: name the way out (rollback/README.md).
  Error e = state.error();
  e.what += "; rebuild it from the journals with 'tuner state rebuild'";
  return e;
}

Status save_state(const StateDir& dir, const State& s) {
  std::string tmp = fmt::format("{}.tmp.{}", kFile, ::getpid());
  std::string path = dir.path_of(tmp);
  ::unlinkat(dir.fd(), tmp.c_str(), 0);  // a leftover from a crashed writer
  UniqueFd fd(
      ::openat(dir.fd(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return errno_error("cannot create", path);
  std::string text = encode_state(s);
  std::size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd.get(), text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::unlinkat(dir.fd(), tmp.c_str(), 0);
      return errno_error("cannot write", path, e);
    }
    off += static_cast<size_t>(n);
  }
  if (::fsync(fd.get()) != 0) {
    int e = errno;
    ::unlinkat(dir.fd(), tmp.c_str(), 0);
    return errno_error("cannot fsync", path, e);
  }
  fd.reset();
  if (::renameat(dir.fd(), tmp.c_str(), dir.fd(), kFile) != 0) {
    int e = errno;
    ::unlinkat(dir.fd(), tmp.c_str(), 0);
    return errno_error("cannot rename into place", dir.path_of(kFile), e);
  }
  return sync_dir(dir.fd(), dir.path());
}

}  // namespace tuner
