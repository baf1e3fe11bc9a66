#include "tuner/profile/parse_tables.h"

#include "tuner/knobs/cpu_latency.h"
#include "tuner/knobs/sysfs_choice.h"
#include "tuner/profile/toml_reader.h"

namespace tuner {

using namespace profile_toml;

namespace {

class TableParser : public TomlReader {
 public:
  TableParser(const std::string& file, std::string ctx, std::string group)
      : TomlReader(file), ctx_(std::move(ctx)), group_(std::move(group)) {}

  /// The table's 'group', for every setting written in it; checked before the settings.
  void read_group(const toml::table& t) {
    const toml::node* g = t.get("group");
    if (!g) return;
    group_ = string(*g, what("group"));
    check(check_plain_name(group_, "group name"), *g, ctx_);
  }

  /// A one-word setting: "performance", "defer+madvise"; or a search of such words.
  TableSetting word(const toml::key& k, const toml::node& v) const {
    return searchable(k, v, [&](const toml::node& n) { return one_word(k, n); });
  }

  /// Microseconds (an integer), or "n/a"; or a search of such values.
  TableSetting resume_latency(const toml::key& k, const toml::node& v) const {
    return searchable(k, v, [&](const toml::node& n) { return one_latency(k, n); });
  }

  CpuSet cpus(const toml::node& v) const {
    auto set = CpuSet::parse(string(v, what("cpus") + " (a cpulist like \"0-15\")"));
    if (!set.ok()) fail(v.source(), fmt::format("{}: {}", what("cpus"), set.error().what));
    if (set->empty()) fail(v.source(), what("cpus") + " is an empty cpulist");
    return std::move(set).value();
  }

  std::string what(std::string_view key) const { return fmt::format("'{}' in {}", key, ctx_); }
  const std::string& ctx() const { return ctx_; }
  using TomlReader::check_keys;
  using TomlReader::integer;
  using TomlReader::loc;

 private:
  template <typename F>
  TableSetting searchable(const toml::key& k, const toml::node& v, F one) const {
    if (!is_search(v)) return setting(k, one(v));
    TableSetting out = setting(k, "");
    out.search = candidates(v, what(k.str()), one);
    out.value = out.search.front();
    return out;
  }

  std::string one_word(const toml::key& k, const toml::node& v) const {
    std::string value = string(v, what(k.str()));
    if (Status st = validate_choice_word(value); !st.ok())
      fail(v.source(), fmt::format("{}: {}", what(k.str()), st.error().what));
    return value;
  }

  std::string one_latency(const toml::key& k, const toml::node& v) const {
    std::string text;
    if (v.is_integer()) {
      text =
          std::to_string(integer(v, what(k.str()), 0, static_cast<int64_t>(kMaxResumeLatencyUs)));
    } else if (v.is_string()) {
      text = v.as_string()->get();
    } else {
      fail(v.source(), fmt::format("{} must be microseconds (an integer, 0 = no constraint) or "
                                   "\"n/a\", not {}",
                                   what(k.str()), type_name(v)));
    }
    auto canonical = parse_resume_latency(text);
    if (!canonical.ok())
      fail(v.source(), fmt::format("{}: {}", what(k.str()), canonical.error().what));
    return std::move(canonical).value();
  }

  TableSetting setting(const toml::key& k, std::string value) const {
    return TableSetting{std::move(value), group_, loc(k.source()), {}};
  }

  std::string ctx_, group_;
};

}  // namespace

CpuTable parse_cpu_table(const std::string& file, const toml::table& t) {
  TableParser p(file, "[cpu]", "cpu");
  p.check_keys(t, p.ctx(), {"governor", "epp", "resume_latency_us", "cpus", "group"});
  p.read_group(t);
  CpuTable out;
  for (auto&& [k, v] : t) {
    if (k.str() == "governor") out.governor = p.word(k, v);
    else if (k.str() == "epp") out.epp = p.word(k, v);
    else if (k.str() == "resume_latency_us") out.resume_latency = p.resume_latency(k, v);
    else if (k.str() == "cpus") {
      out.cpus = p.cpus(v);
      out.cpus_loc = p.loc(k.source());
    }
  }
  return out;
}

MmTable parse_mm_table(const std::string& file, const toml::table& t) {
  TableParser p(file, "[mm]", "mm");
  p.check_keys(t, p.ctx(), {"thp", "thp_defrag", "dirty_max_bytes", "group"});
  p.read_group(t);
  MmTable out;
  for (auto&& [k, v] : t) {
    if (k.str() == "thp") out.thp = p.word(k, v);
    else if (k.str() == "thp_defrag") out.thp_defrag = p.word(k, v);
    else if (k.str() == "dirty_max_bytes") {
      // At least 1 MiB: below that writeback would throttle every writer (the kernel's
      // own floor is two pages); at most 2^62, a number the kernel's unsigned long holds.
      out.dirty_max_bytes = static_cast<uint64_t>(
          p.integer(v, p.what("dirty_max_bytes") + " (bytes)", 1 << 20, int64_t{1} << 62));
      out.dirty_max_loc = p.loc(k.source());
    }
  }
  return out;
}

}  // namespace tuner
