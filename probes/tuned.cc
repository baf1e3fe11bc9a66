#include "probes/tuned.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {
namespace {

// Far beyond the shipped profiles (the deepest chain, cpu-partitioning-powersave ->
// cpu-partitioning -> network-latency -> latency-performance, reads 4 files): a
// hostile tree cannot make the loader read without end.
constexpr std::size_t kMaxTunedFiles = 64;
constexpr std::size_t kMaxIncludeDepth = 16;

// tuned 2.20 searches /etc/tuned before /usr/lib/tuned (locator.py walks
// LOAD_DIRECTORIES backwards); tuned 2.23 moved profiles into profiles/ folders.
const char* const kProfileDirs[] = {"etc/tuned/profiles", "etc/tuned", "usr/lib/tuned/profiles",
                                    "usr/lib/tuned"};

// loader.py's safe_name, applied to includes too: no '/' and no "." or "..", so a
// name never leaves the profile folders.
bool safe_profile_name(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::ranges::all_of(name, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

// ConfigParser's inline comments: '#' preceded by whitespace ends the line.
std::string_view strip_inline_comment(std::string_view line) {
  for (std::size_t i = 1; i < line.size(); ++i)
    if (line[i] == '#' && (line[i - 1] == ' ' || line[i - 1] == '\t')) return line.substr(0, i);
  return line;
}

std::size_t indent_of(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return i;
}

std::vector<std::string_view> split_list(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != ',' && text[i] != ';') continue;
    if (auto part = trim(text.substr(start, i - start)); !part.empty()) out.push_back(part);
    start = i + 1;
  }
  return out;
}

bool truthy(std::string_view v) { return v == "True" || v == "true" || v == "1"; }

/// One loaded tuned.conf as profile.py and unit.py split it.
struct LoadedUnit {
  TunedUnit unit;
  bool replace = false;
  std::vector<std::string> drop;
};
struct LoadedProfile {
  std::map<std::string, std::string> main;
  std::vector<LoadedUnit> units;
};

LoadedProfile to_profile(const TunedConf& conf, const std::string& file) {
  LoadedProfile p;
  std::string dir = file.substr(0, file.rfind('/'));
  for (const TunedConf::Section& s : conf.sections) {
    if (s.name == "main") {
      for (const auto& o : s.options) p.main[o.key] = o.value;
      continue;
    }
    LoadedUnit u;
    u.unit.name = u.unit.type = s.name;
    for (const auto& o : s.options) {
      // The loader replaces ${i:PROFILE_DIR} with the profile's folder.
      std::string value = o.value;
      for (std::size_t at; (at = value.find("${i:PROFILE_DIR}")) != std::string::npos;)
        value.replace(at, 16, "/" + dir);
      if (o.key == "type") u.unit.type = value;
      else if (o.key == "enabled") u.unit.enabled = truthy(value);
      else if (o.key == "replace") u.replace = truthy(value);
      else if (o.key == "devices") u.unit.devices = value;
      else if (o.key == "uname_regex" || o.key == "cpuinfo_regex" || o.key == "devices_udev_regex")
        u.unit.condition += (u.unit.condition.empty() ? "" : "; ") + o.key + "=" + value;
      else if (o.key == "script_pre" || o.key == "script_post") continue;
      else if (o.key == "drop")
        for (std::string_view d : split_list(value)) u.drop.emplace_back(d);
      else u.unit.options.push_back({o.key, value, fmt::format("{}:{}", file, o.line)});
    }
    p.units.push_back(std::move(u));
  }
  return p;
}

void set_option(TunedUnit& unit, const TunedOption& o) {
  auto it = std::ranges::find(unit.options, o.key, &TunedOption::key);
  if (it != unit.options.end()) *it = o;
  else unit.options.push_back(o);
}

// merger.py's _merge_two: a unit of the newer profile replaces the older one when it
// says replace= or is new; otherwise its type, enabled and devices win (as unit.py
// defaults them when unset: type = name, enabled, devices = "*"), drop= removes
// options, and its options override.
void merge(std::vector<TunedUnit>& into, const LoadedUnit& u) {
  auto it = std::ranges::find(into, u.unit.name, &TunedUnit::name);
  if (it == into.end()) {
    into.push_back(u.unit);
    return;
  }
  if (u.replace) {
    *it = u.unit;
    return;
  }
  it->type = u.unit.type;
  it->enabled = u.unit.enabled;
  it->devices = u.unit.devices;
  if (!u.unit.condition.empty()) it->condition = u.unit.condition;
  for (const std::string& d : u.drop)
    std::erase_if(it->options, [&](auto& o) { return o.key == d; });
  for (const TunedOption& o : u.unit.options) set_option(*it, o);
}

struct Loader {
  const Root& root;
  std::vector<std::string> processed;
  std::vector<LoadedProfile> profiles;
  TunedProfile out;

  // locator.py's get_config: the first folder holding NAME/tuned.conf that was not
  // read yet (so /etc/tuned/X may include X to extend /usr/lib/tuned/X); "" to skip.
  Result<std::string> locate(std::string_view name) {
    bool conditional = starts_with(name, "-");
    if (conditional) name.remove_prefix(1);
    if (!safe_profile_name(name))
      return Error::invalid(
          fmt::format("tuned profile name '{}' is not one tuned loads", escape_controls(name)));
    bool skipped = false;
    for (const char* dir : kProfileDirs) {
      std::string file = fmt::format("{}/{}/tuned.conf", dir, name);
      if (std::ranges::find(processed, file) != processed.end()) {
        skipped = true;
        continue;
      }
      if (root.exists(file)) return file;
    }
    if (conditional || skipped) return std::string();
    return Error::missing(fmt::format("tuned profile '{}' not found in etc/tuned or usr/lib/tuned",
                                      escape_controls(name)));
  }

  // loader.py's _load_profile, without recursion: a profile's includes are loaded (and
  // merged) before it, depth first. Each frame is one include list and the profile
  // that named it, appended once the list is done.
  Status load(const std::vector<std::string>& names) {
    struct Frame {
      std::vector<std::string> names;
      std::size_t next = 0;
      std::optional<std::pair<std::string, LoadedProfile>> owner;
    };
    std::vector<Frame> stack;
    stack.push_back({names, 0, std::nullopt});
    while (!stack.empty()) {
      if (stack.size() > kMaxIncludeDepth + 1)
        return Error::invalid("tuned profile includes nest deeper than " +
                              std::to_string(kMaxIncludeDepth));
      Frame& frame = stack.back();
      if (frame.next == frame.names.size()) {
        if (frame.owner) append(std::move(frame.owner->first), std::move(frame.owner->second));
        stack.pop_back();
        continue;
      }
      auto file = locate(frame.names[frame.next++]);
      if (!file.ok()) return file.error();
      if (file->empty()) continue;
      if (processed.size() >= kMaxTunedFiles)
        return Error::invalid(fmt::format("more than {} tuned.conf files", kMaxTunedFiles));
      processed.push_back(*file);
      auto text = root.read(*file);
      if (!text.ok()) return text.error();
      auto conf = parse_tuned_conf(*text, *file);
      if (!conf.ok()) return conf.error();
      LoadedProfile p = to_profile(*conf, *file);
      auto inc = p.main.find("include");
      if (inc == p.main.end() || tuned_computed(inc->second)) {
        if (inc != p.main.end()) out.computed_includes.push_back(inc->second);
        append(std::move(*file), std::move(p));
        continue;
      }
      std::vector<std::string> included;
      for (std::string_view n : split_list(inc->second)) included.emplace_back(n);
      stack.push_back({std::move(included), 0, std::make_pair(std::move(*file), std::move(p))});
    }
    return Ok{};
  }

  void append(std::string file, LoadedProfile p) {
    out.files.push_back(std::move(file));
    profiles.push_back(std::move(p));
  }
};

}  // namespace

Result<TunedConf> parse_tuned_conf(std::string_view text, const std::string& file) {
  TunedConf conf;
  TunedConf::Section* section = nullptr;
  TunedConf::Option* option = nullptr;
  std::size_t option_indent = 0;
  int line_no = 0;
  for (std::string_view raw : split(text, '\n')) {
    ++line_no;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    std::string_view line = trim(raw);
    if (starts_with(line, "#") || starts_with(line, ";")) continue;
    line = trim(strip_inline_comment(line));
    if (line.empty()) continue;
    std::size_t indent = indent_of(raw);
    if (option && indent > option_indent) {  // a continuation line
      option->value += "\n";
      option->value += line;
      continue;
    }
    option = nullptr;
    std::string where = fmt::format("{}:{}", file, line_no);
    if (line.front() == '[' && line.find(']') != std::string_view::npos) {
      std::string name(line.substr(1, line.rfind(']') - 1));
      if (name.empty()) return Error::invalid("empty section name", where);
      auto it = std::ranges::find(conf.sections, name, &TunedConf::Section::name);
      section = it != conf.sections.end() ? &*it : &conf.sections.emplace_back();
      section->name = name;
      continue;
    }
    if (!section) return Error::invalid("an option before any [section]", where);
    auto eq = line.find('=');
    if (eq == std::string_view::npos)
      return Error::invalid("expected KEY = VALUE or [section]", where);
    std::string key(trim(line.substr(0, eq)));
    if (key.empty()) return Error::invalid("an option without a name", where);
    std::string value(trim(line.substr(eq + 1)));
    auto it = std::ranges::find(section->options, key, &TunedConf::Option::key);
    if (it != section->options.end()) section->options.erase(it);  // later wins
    option = &section->options.emplace_back(TunedConf::Option{key, value, line_no});
    option_indent = indent;
  }
  // DEFAULT is ConfigParser's own section, not a unit.
  std::erase_if(conf.sections, [](auto& s) { return s.name == "DEFAULT"; });
  return conf;
}

bool tuned_computed(std::string_view value) {
  for (std::size_t at = value.find("${"); at != std::string_view::npos;
       at = value.find("${", at + 2))
    if (!starts_with(value.substr(at), "${i:PROFILE_DIR}")) return true;
  return false;
}

bool tuned_devices_match(std::string_view devices, std::string_view device) {
  bool any_positive = false, positive_match = false;
  for (std::string_view pattern : split_list(devices)) {
    if (starts_with(pattern, "!")) {
      if (glob_match(trim(pattern.substr(1)), device)) return false;
      continue;
    }
    any_positive = true;
    if (glob_match(pattern, device)) positive_match = true;
  }
  return positive_match || !any_positive;
}

Result<TunedProfile> load_tuned_profile(const Root& root, const std::vector<std::string>& names) {
  Loader loader{root, {}, {}, {}};
  loader.out.names = names;
  if (auto st = loader.load(names); !st.ok()) return st.error();
  for (const LoadedProfile& p : loader.profiles)
    for (const LoadedUnit& u : p.units) merge(loader.out.units, u);
  std::erase_if(loader.out.units, [](const TunedUnit& u) { return u.name == "variables"; });
  return std::move(loader.out);
}

Result<TunedActive> read_tuned_active(const Root& root) {
  TunedActive a;
  for (const char* file : {"etc/tuned/active_profile", "etc/tuned/post_loaded_profile"}) {
    auto text = root.read(file);
    if (!text.ok()) {
      if (text.error().is(ErrorKind::missing)) continue;
      return text.error();
    }
    for (std::string_view name : split_ws(*text)) a.names.emplace_back(name);
  }
  if (auto mode = root.read("etc/tuned/profile_mode"); mode.ok()) {
    if (auto m = trim(*mode); !m.empty()) a.mode = std::string(m);
  } else if (!mode.error().is(ErrorKind::missing)) {
    return mode.error();
  }
  return a;
}

}  // namespace tuner
