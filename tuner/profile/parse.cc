// TOML text -> ProfileFile. With toml_reader.h and parse_{tables,nic,verify,bench}, the
// only code that includes toml++ (it is slow to compile).
#include "tuner/profile/parse.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>

#include "tuner/knobs/knob_id.h"
#include "tuner/profile/group_member.h"
#include "tuner/profile/merge.h"
#include "tuner/profile/parse_bench.h"
#include "tuner/profile/parse_nic.h"
#include "tuner/profile/parse_tables.h"
#include "tuner/profile/parse_verify.h"
#include "tuner/profile/toml_nesting.h"
#include "tuner/profile/toml_reader.h"
#include "tuner/profile/values.h"

namespace tuner {

namespace {

using namespace profile_toml;

class Parser : public TomlReader {
 public:
  explicit Parser(const std::string& file) : TomlReader(file) {}

  ProfileFile parse(const toml::table& root) {
    check_keys(root, "the top level",
               {"profile", "match", "sysctl", "irq", "nic", "numa", "cpu", "mm", "verify", "group",
                "bench"});
    out_.profile.file = file_;
    out_.profile.name = file_stem(file_);
    for (auto&& [k, v] : root) {
      std::string_view key = k.str();
      if (key == "profile") parse_profile(table(v, "[profile]"));
      else if (key == "match") parse_match(table(v, "[match]"));
      else if (key == "sysctl") parse_sysctls(table(v, "[sysctl]"), "");
      else if (key == "irq")
        for_each_rule(v, "irq",
                      [&](const auto& g, const auto& t, const auto& ctx) { parse_irq(g, t, ctx); });
      else if (key == "nic")
        for_each_rule(v, "nic", [&](const auto& g, const auto& t, const auto& ctx) {
          out_.profile.nics.push_back(parse_nic_rule(file_, g, t, ctx));
        });
      else if (key == "numa") parse_numa(table(v, "[numa]"));
      else if (key == "cpu") out_.profile.cpu = parse_cpu_table(file_, table(v, "[cpu]"));
      else if (key == "mm") out_.profile.mm = parse_mm_table(file_, table(v, "[mm]"));
      else if (key == "verify")
        out_.profile.verify = parse_verify_table(file_, table(v, "[verify]"));
      else if (key == "group") parse_groups(table(v, "[group]"));
      else if (key == "bench") parse_benches(table(v, "[bench]"));
    }
    out_.profile.chain = {out_.profile.name};
    return std::move(out_);
  }

 private:
  std::string group_name(const toml::node& n, std::string_view ctx) const {
    std::string g = string(n, fmt::format("'group' in {}", ctx));
    check(check_plain_name(g, "group name"), n, ctx);
    return g;
  }

  void parse_profile(const toml::table& t) {
    check_keys(t, "[profile]", {"name", "description", "include"});
    Profile& p = out_.profile;
    for (auto&& [k, v] : t) {
      if (k.str() == "name") {
        p.name = string(v, "'name' in [profile]");
        check(check_plain_name(p.name, "profile name"), v, "[profile]");
        if (p.name != file_stem(file_))
          fail(v.source(), fmt::format("profile name '{}' differs from its file name '{}.toml': "
                                       "rename one so that lookups by name find it",
                                       p.name, file_stem(file_)));
        out_.name_set = true;
      } else if (k.str() == "description") {
        p.description = string(v, "'description' in [profile]");
      } else if (k.str() == "include") {
        if (!v.is_array())
          fail(v.source(), fmt::format("'include' in [profile] must be an array of profile names "
                                       "or paths, not {}",
                                       type_name(v)));
        for (const toml::node& e : *v.as_array()) {
          std::string target = string(e, "each include");
          if (target.empty()) fail(e.source(), "empty include");
          if (!is_profile_name(target) && target.find('/') == std::string::npos &&
              !target.ends_with(".toml"))
            fail(e.source(), fmt::format("include '{}' is neither a profile name "
                                         "([A-Za-z0-9_-]+) nor a path (with '/' or ending "
                                         "in .toml)",
                                         target));
          out_.includes.push_back(IncludeRef{target, loc(e.source())});
        }
      }
    }
  }

  void parse_match(const toml::table& t) {
    check_keys(t, "[match]", {"numa_nodes", "cpu_vendor", "nic_driver", "gpu", "virtualized"});
    Match& m = out_.profile.match;
    out_.profile.match_loc = loc(t.source());
    for (auto&& [k, v] : t) {
      std::string what = fmt::format("'{}' in [match]", k.str());
      if (k.str() == "numa_nodes") {
        if (v.is_integer()) {
          m.numa_nodes = std::to_string(integer(v, what, 1, 1'000'000));
        } else {
          std::string s = string(v, what + " (an integer or \">=N\")");
          auto c = parse_comparison(s);
          if (!c.ok()) fail(v.source(), fmt::format("{}: {}", what, c.error().what));
          m.numa_nodes = c->str();
        }
      } else if (k.str() == "cpu_vendor") {
        m.cpu_vendor = string(v, what);
        if (m.cpu_vendor->empty()) fail(v.source(), what + " is empty");
      } else if (k.str() == "nic_driver") {
        m.nic_driver = string(v, what);
        if (m.nic_driver->empty()) fail(v.source(), what + " is empty");
      } else if (k.str() == "gpu") {
        m.gpu = boolean(v, what);
      } else if (k.str() == "virtualized") {
        m.virtualized = boolean(v, what);
      }
    }
  }

  void add_sysctl(SysctlSetting s, const toml::node& at) {
    auto first = sysctl_at_.find(s.key);
    if (first != sysctl_at_.end())
      fail(at.source(),
           fmt::format("sysctl '{}' is set twice (also at {})", s.key, first->second.str()));
    sysctl_at_[s.key] = s.loc;
    out_.profile.sysctls.push_back(std::move(s));
  }

  /// One sysctl value: an integer, or a string ("4096 87380 6291456", ">=N", "<=N").
  SysctlSetting sysctl_value(const std::string& key, const toml::node& v) const {
    if (v.is_integer()) {
      SysctlSetting s;
      s.value = std::to_string(v.as_integer()->get());
      return s;
    }
    if (v.is_string()) {
      auto parsed = parse_sysctl_text(v.as_string()->get());
      if (!parsed.ok()) fail(v.source(), fmt::format("sysctl '{}': {}", key, parsed.error().what));
      return std::move(parsed).value();
    }
    if (v.is_boolean())
      fail(v.source(), fmt::format("sysctl '{}' must be an integer or a string, not a boolean "
                                   "(the kernel wants 0 or 1)",
                                   key));
    fail(v.source(),
         fmt::format("sysctl '{}' must be an integer or a string, not {}{}", key, type_name(v),
                     v.is_array() ? " (write several values as one string: "
                                    "\"4096 87380 6291456\")"
                                  : ""));
  }

  /// Nested tables are dotted keys: [sysctl.net.core] rmem_max = 1 is net.core.rmem_max.
  // Recursive over nested tables, as deep as the key has segments: check_toml_nesting
  // bounds that at kMaxTomlNesting.
  // NOLINTNEXTLINE(misc-no-recursion)
  void parse_sysctls(const toml::table& t, const std::string& prefix) {
    for (auto&& [k, v] : t) {
      std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
      bool leave = v.is_table() && v.as_table()->contains("leave");
      if (v.is_table() && !is_search(v) && !leave) {
        parse_sysctls(*v.as_table(), key);
        continue;
      }
      Status syntax = validate_sysctl_key(key);
      if (!syntax.ok())
        fail(k.source(), fmt::format("bad sysctl key '{}': {}", key, syntax.error().what));
      SysctlSetting s;
      if (leave) {
        // { leave = true }: the kernel's value; drops what an included profile sets.
        std::string what = fmt::format("sysctl '{}'", key);
        check_keys(*v.as_table(), what, {"leave"});
        const toml::node& flag = *v.as_table()->get("leave");
        if (!flag.is_boolean() || !flag.as_boolean()->get())
          fail(flag.source(), fmt::format("{}: leave = true is the only form (it drops what an "
                                          "included profile sets; to set a value, write it)",
                                          what));
        s.leave = true;
      } else if (is_search(v)) {
        s.search = candidates(v, fmt::format("sysctl '{}'", key), [&](const toml::node& c) {
          SysctlSetting one = sysctl_value(key, c);
          if (one.op != SysctlSetting::Op::set)
            fail(c.source(), "a search tries exact values, not a lower or upper bound");
          return one.value;
        });
        s.value = s.search.front();
      } else {
        s = sysctl_value(key, v);
      }
      s.key = key;
      s.group = "sysctl";
      s.loc = loc(k.source());
      add_sysctl(std::move(s), v);
    }
  }

  template <typename F>
  void for_each_rule(const toml::node& n, std::string_view kind, F parse_rule) {
    const toml::table& t = table(n, fmt::format("[{}]", kind));
    for (auto&& [k, v] : t) {
      std::string ctx = fmt::format("[{}.{}]", kind, header_key(k.str()));
      if (!v.is_table())
        fail(v.source(), fmt::format("{} must be a table of settings for the interfaces "
                                     "matching '{}', not {}",
                                     ctx, k.str(), type_name(v)));
      Status glob = check_name_glob(k.str());
      if (!glob.ok()) fail(k.source(), fmt::format("{}: {}", ctx, glob.error().what));
      parse_rule(std::string(k.str()), *v.as_table(), ctx);
    }
  }

  void parse_irq(const std::string& glob, const toml::table& t, const std::string& ctx) {
    check_keys(t, ctx,
               {"policy", "cpus", "irqbalance", "min_speed", "rdma", "default_route", "ports",
                "link_type", "group"});
    IrqRule r;
    r.glob = glob;
    r.group = "irq";
    r.loc = loc(t.source());
    const toml::node* cpus = nullptr;
    bool has_policy = false;
    for (auto&& [k, v] : t) {
      std::string what = fmt::format("'{}' in {}", k.str(), ctx);
      if (k.str() == "policy") {
        std::string word = string(v, what);
        auto policy = parse_irq_policy(word);
        if (!policy)
          fail(v.source(), fmt::format("{} is '{}': expected \"numa-local\", \"spread\" or "
                                       "\"pin\"",
                                       what, word));
        r.policy = *policy;
        has_policy = true;
      } else if (k.str() == "cpus") {
        cpus = &v;
        auto set = CpuSet::parse(string(v, what + " (a cpulist like \"0-3,8\")"));
        if (!set.ok()) fail(v.source(), fmt::format("{}: {}", what, set.error().what));
        if (set->empty()) fail(v.source(), what + " is an empty cpulist");
        r.cpus = std::move(set).value();
      } else if (k.str() == "irqbalance") {
        std::string word = string(v, what);
        auto action = parse_irqbalance_action(word);
        if (!action)
          fail(v.source(),
               fmt::format("{} is '{}': expected \"leave\", \"ban\" or \"stop\"", what, word));
        r.irqbalance = *action;
      } else if (port_scope_key(k.str(), v, what, r)) {  // the port-scope keys
      } else if (k.str() == "group") {
        r.group = group_name(v, ctx);
      }
    }
    if (!has_policy)
      fail(t.source(),
           fmt::format("{} has no 'policy': set \"numa-local\", \"spread\" or \"pin\"", ctx));
    if (r.policy == IrqPolicy::pin && !cpus)
      fail(t.source(), fmt::format("{} has policy \"pin\" but no 'cpus' to pin to", ctx));
    if (r.policy != IrqPolicy::pin && cpus)
      fail(cpus->source(), fmt::format("'cpus' in {} is only for policy \"pin\" (policy is \"{}\")",
                                       ctx, irq_policy_name(r.policy)));
    out_.profile.irqs.push_back(std::move(r));
  }

  void parse_numa(const toml::table& t) {
    check_keys(t, "[numa]", {"bind", "balancing", "zone_reclaim"});
    for (auto&& [k, v] : t) {
      if (k.str() == "bind") {
        if (!v.is_array())
          fail(v.source(), fmt::format("'bind' in [numa] must be written [[numa.bind]] (an array "
                                       "of tables), not {}",
                                       type_name(v)));
        for (const toml::node& e : *v.as_array()) parse_bind(e);
      } else {
        SysctlSetting s;
        s.group = "numa";
        s.loc = loc(k.source());
        if (k.str() == "balancing") {
          s.key = "kernel.numa_balancing";
          s.value = boolean(v, "'balancing' in [numa]") ? "1" : "0";
        } else {
          s.key = "vm.zone_reclaim_mode";
          // Bits 1 (reclaim), 2 (write dirty pages), 4 (swap): 0..7.
          s.value = std::to_string(integer(v, "'zone_reclaim' in [numa]", 0, 7));
        }
        add_sysctl(std::move(s), v);
      }
    }
  }

  void parse_bind(const toml::node& n) {
    std::string ctx = fmt::format("[[numa.bind]] #{}", out_.profile.binds.size() + 1);
    const toml::table& t = table(n, ctx);
    check_keys(t, ctx, {"unit", "cgroup", "near", "node", "group"});
    NumaBind b;
    b.group = "numa";
    b.loc = loc(t.source());
    for (auto&& [k, v] : t) {
      std::string what = fmt::format("'{}' in {}", k.str(), ctx);
      if (k.str() == "unit") {
        b.unit = string(v, what);
        check(validate_unit_name(*b.unit), v, ctx);
      } else if (k.str() == "cgroup") {
        b.cgroup = string(v, what);
        check(validate_cgroup_path(*b.cgroup), v, ctx);
      } else if (k.str() == "near") {
        b.near = string(v, what);
        check(check_device_name(*b.near), v, ctx);
      } else if (k.str() == "node") {
        b.node = static_cast<unsigned>(integer(v, what, 0, 1023));
      } else if (k.str() == "group") {
        b.group = group_name(v, ctx);
      }
    }
    if (b.unit.has_value() == b.cgroup.has_value())
      fail(t.source(), fmt::format("{} needs exactly one of 'unit' (a systemd unit) or 'cgroup' "
                                   "(a path under /sys/fs/cgroup)",
                                   ctx));
    if (b.near.has_value() == b.node.has_value())
      fail(t.source(), fmt::format("{} needs exactly one of 'near' (a device) or 'node' (a NUMA "
                                   "node number)",
                                   ctx));
    std::string target = b.unit ? "unit " + *b.unit : "cgroup " + *b.cgroup;
    for (const NumaBind& other : out_.profile.binds)
      if ((b.unit && other.unit == b.unit) || (b.cgroup && other.cgroup == b.cgroup))
        fail(t.source(),
             fmt::format("{} binds {} again (first bound at {})", ctx, target, other.loc.str()));
    out_.profile.binds.push_back(std::move(b));
  }

  void parse_benches(const toml::table& t) {
    for (auto&& [k, v] : t) {
      std::string ctx = fmt::format("[bench.{}]", header_key(k.str()));
      Status name = check_plain_name(k.str(), "benchmark name");
      if (!name.ok()) fail(k.source(), fmt::format("{}: {}", ctx, name.error().what));
      out_.profile.benches[std::string(k.str())] =
          parse_bench_table(file_, std::string(k.str()), table(v, ctx));
    }
  }

  void parse_groups(const toml::table& t) {
    for (auto&& [k, v] : t) {
      std::string ctx = fmt::format("[group.{}]", header_key(k.str()));
      const toml::table& g = table(v, ctx);
      Status name = check_plain_name(k.str(), "group name");
      if (!name.ok()) fail(k.source(), fmt::format("{}: {}", ctx, name.error().what));
      check_keys(g, ctx,
                 {"keep_if_neutral", "bisect", "bench", "members", "soak", "peer", "chosen"});
      GroupSettings gs;
      gs.name = std::string(k.str());
      gs.loc = loc(g.source());
      for (auto&& [gk, gv] : g) {
        std::string what = fmt::format("'{}' in {}", gk.str(), ctx);
        gs.set_fields.emplace_back(gk.str());
        if (gk.str() == "keep_if_neutral") gs.keep_if_neutral = boolean(gv, what);
        else if (gk.str() == "bisect") gs.bisect = boolean(gv, what);
        else if (gk.str() == "bench") gs.bench = bench_names(gv, what);
        else if (gk.str() == "soak") gs.soak = parse_soak(file_, gv, what);
        else if (gk.str() == "peer") gs.peer = boolean(gv, what);
        else if (gk.str() == "chosen") gs.chosen = boolean(gv, what);
        else members(gv, what, gs);
      }
      if (gs.chosen) check_chosen(g, ctx, gs);
      out_.profile.groups[gs.name] = std::move(gs);
    }
  }

  /// A chosen group is kept as chosen: a benchmark, `peer` or `keep_if_neutral = false`
  /// beside it would say it is measured.
  void check_chosen(const toml::table& g, const std::string& ctx, const GroupSettings& gs) const {
    const char* clash = gs.bench && !gs.bench->empty() ? "bench"
                        : gs.peer                      ? "peer"
                        : std::find(gs.set_fields.begin(), gs.set_fields.end(),
                                    "keep_if_neutral") != gs.set_fields.end() &&
                                !gs.keep_if_neutral
                            ? "keep_if_neutral"
                            : nullptr;
    if (!clash) return;
    fail(g.get(clash)->source(),
         fmt::format("'{}' in {} contradicts chosen = true (a chosen group has no benchmark "
                     "and is kept unless a guard trips)",
                     clash, ctx));
  }

  void members(const toml::node& v, const std::string& what, GroupSettings& gs) const {
    if (!v.is_array()) strings(v, what);  // fails with the type message
    for (const toml::node& e : *v.as_array()) {
      std::string id = string(e, "each of " + what);
      if (auto ref = parse_group_member(id); !ref.ok())
        fail(e.source(), fmt::format("member '{}' of {}: {}", id, what, ref.error().what));
      gs.members.push_back(GroupMember{id, loc(e.source())});
    }
  }

  ProfileFile out_;
  std::map<std::string, SourceLoc> sysctl_at_;
};

}  // namespace

Result<ProfileFile> parse_profile_file(std::string_view text, const std::string& file) {
  // First, flat: toml++ recurses once per nesting level with no limit of its own.
  if (Status s = check_toml_nesting(text, file); !s.ok()) return s.error();
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    SourceLoc where{file, static_cast<int>(e.source().begin.line),
                    static_cast<int>(e.source().begin.column)};
    return Error::invalid(fmt::format("TOML syntax error: {}", e.description()), where.str());
  }
  try {
    return Parser(file).parse(root);
  } catch (ParseFailure& f) {
    return std::move(f.error);
  }
}

}  // namespace tuner
