#include "tuner/verify/verified_apply.h"

#include <algorithm>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/profile/group_policy.h"
#include "tuner/verify/benches.h"
#include "tuner/verify/guard_decision.h"
#include "tuner/verify/peer_window.h"

namespace tuner::verify {

namespace {

/// "nic:eth0:link" -> "eth0".
std::string nic_of(const std::string& knob) {
  if (!starts_with(knob, "nic:")) return "";
  auto end = knob.find(':', 4);
  return end == std::string::npos ? "" : knob.substr(4, end - 4);
}

}  // namespace

Design design_for_knobs(const std::vector<std::string>& knobs) {
  return std::any_of(knobs.begin(), knobs.end(), may_renegotiate) ? Design::blocked
                                                                  : Design::interleaved;
}

namespace {

Design design_of(const ApplyRun& run, const std::string& group) {
  return design_for_knobs(run.knobs_of(group));
}

const PlanSearch* search_of(const Plan& plan, const std::string& group) {
  for (const PlanSearch& s : plan.searches)
    if (s.group == group) return &s;
  return nullptr;
}

}  // namespace

std::map<std::string, std::optional<std::string>> planned_start(const Plan& plan,
                                                                const std::string& group) {
  std::map<std::string, std::optional<std::string>> out;
  for (const Change& c : plan.changes)
    if (c.group == group) out[c.knob] = c.current;
  return out;
}

std::string class_start_mismatch_of(const ClassDecision* decision, const Plan& plan,
                                    const std::string& group) {
  if (!decision) return "";
  auto it = decision->groups.find(group);
  if (it == decision->groups.end()) return "";
  const ClassGroupDecision& g = it->second;
  if (g.verdict != ClassVerdict::kept && g.verdict != ClassVerdict::rolled_back) return "";
  return class_start_mismatch(g, planned_start(plan, group));
}

const char* class_action_name(ClassAction::Action a) {
  switch (a) {
    case ClassAction::Action::write: return "write";
    case ClassAction::Action::skip: return "skip";
    case ClassAction::Action::verify: return "verify";
  }
  return "verify";
}

ClassAction class_action(const VerifiedApplyOptions& options, const Plan& plan,
                         const std::string& group) {
  ClassAction a;
  a.why = class_start_mismatch_of(options.class_decision, plan, group);
  auto r = reuse_of(options, group, a.why);
  a.decision = "none";
  if (options.class_decision)
    if (auto it = options.class_decision->groups.find(group);
        it != options.class_decision->groups.end())
      a.decision = class_verdict_name(it->second.verdict);
  if (!r) a.action = ClassAction::Action::verify;
  else a.action = r->write ? ClassAction::Action::write : ClassAction::Action::skip;
  return a;
}

std::optional<GroupPlan::Reuse> reuse_of(const VerifiedApplyOptions& options,
                                         const std::string& group,
                                         const std::string& start_mismatch) {
  if (options.decisions_file.empty()) return std::nullopt;
  const ClassDecision* d = options.class_decision;
  const ClassGroupDecision* g = nullptr;
  if (d)
    if (auto it = d->groups.find(group); it != d->groups.end()) g = &it->second;
  GroupPlan::Reuse r;
  r.info = {{"class", options.class_key},
            {"decision", g ? class_verdict_name(g->verdict) : "none"},
            {"chosen", g && g->chosen ? nlohmann::json(*g->chosen) : nlohmann::json()},
            {"canaries", g ? g->canaries : std::vector<std::string>{}},
            {"file", options.decisions_file}};
  ClassVerdict verdict = g ? g->verdict : ClassVerdict::insufficient;
  // Decided from another start (issue 41): the canaries' evidence is not about this node.
  bool decided = verdict == ClassVerdict::kept || verdict == ClassVerdict::rolled_back;
  if (decided && !start_mismatch.empty()) {
    r.info["start_mismatch"] = start_mismatch;
    verdict = ClassVerdict::insufficient;
  }
  switch (verdict) {
    case ClassVerdict::kept: r.write = true; return r;
    case ClassVerdict::rolled_back: r.reason = Reason::class_rolled_back; return r;
    case ClassVerdict::disagree: r.reason = Reason::class_disagree; return r;
    case ClassVerdict::insufficient:
    case ClassVerdict::needs_canary:
    case ClassVerdict::unmeasured:
      if (!options.require_decision) return std::nullopt;
      r.reason = Reason::class_undecided;
      return r;
  }
  return std::nullopt;
}

Plan with_class_choices(const Plan& plan, const ClassDecision& decision,
                        std::vector<std::string>& unknown) {
  Plan out = plan;
  out.searches.clear();
  for (const PlanSearch& s : plan.searches) {
    auto it = decision.groups.find(s.group);
    if (it == decision.groups.end() || it->second.verdict != ClassVerdict::kept ||
        !it->second.chosen) {
      out.searches.push_back(s);
      continue;
    }
    const std::string& chosen = *it->second.chosen;
    auto c = std::find_if(s.candidates.begin(), s.candidates.end(),
                          [&](const PlanSearch::Candidate& k) { return k.value == chosen; });
    if (c == s.candidates.end()) {
      unknown.push_back(s.group + ": " + chosen);
      out.searches.push_back(s);
      continue;
    }
    for (Change& ch : out.changes) {
      if (ch.group != s.group) continue;
      auto k = std::find(s.knobs.begin(), s.knobs.end(), ch.knob);
      if (k != s.knobs.end() && static_cast<std::size_t>(k - s.knobs.begin()) < c->desired.size())
        ch.desired = c->desired[static_cast<std::size_t>(k - s.knobs.begin())];
    }
  }
  return out;
}

Profile with_peer(const Profile& profile, const std::vector<std::string>& groups,
                  const std::string& peer, const bench::tcp::PeerKey& key,
                  std::vector<std::string>& notes) {
  Profile out = profile;
  for (const std::string& group : groups) {
    auto g = out.groups.find(group);
    if (g == out.groups.end() || !g->second.peer) continue;
    if (peer.empty()) {
      soak_instead(out, group);
      notes.push_back(fmt::format(
          "group {} needs a peer (peer = true) and apply has no --peer: loopback cannot see "
          "it, so the guard soak alone decides it",
          group));
      continue;
    }
    std::vector<std::string> names;
    for (const std::string& name : bench_names_for(profile, group)) {
      auto spec = profile.benches.find(name);
      const BenchKindInfo* row = find_bench_kind(name);
      bool tcp = spec != profile.benches.end()
                     ? spec->second.kind == BenchSpec::Kind::tcp
                     : row && row->builtin && row->kind == BenchSpec::Kind::tcp;
      if (!tcp) {
        names.push_back(name);
        continue;
      }
      BenchSpec copy;
      if (spec != profile.benches.end()) copy = spec->second;
      copy.kind = BenchSpec::Kind::tcp;
      copy.name = name + "@peer";
      copy.tcp.name = copy.name;
      copy.tcp.placement = bench::TcpConfig::Placement::peer;
      copy.tcp.netns.clear();
      copy.tcp.address = peer;
      out.benches[copy.name] = copy;
      names.push_back(copy.name);
    }
    g->second.bench = names;
  }
  for (auto& [name, spec] : out.benches)
    if (spec.kind == BenchSpec::Kind::tcp &&
        spec.tcp.placement == bench::TcpConfig::Placement::peer)
      spec.tcp.key = key;
  return out;
}

std::vector<std::string> decision_order(
    const std::vector<std::pair<std::string, BudgetUse>>& groups) {
  std::vector<std::string> out;
  for (BudgetUse use : {BudgetUse::gain_only, BudgetUse::neutral, BudgetUse::no_trials})
    for (const auto& [name, u] : groups)
      if (u == use) out.push_back(name);
  return out;
}

LoopOptions loop_options(const Profile& profile, const Inventory& inventory, const Plan& plan,
                         LoopOptions o) {
  o.decision.min_effect = profile.verify.min_effect;
  o.decision.false_keep_rate = profile.verify.false_keep_rate;
  o.decision.max_trials = std::max(profile.verify.max_trials, o.decision.min_trials);
  o.soak = profile.verify.soak;
  o.watch_margin = profile.verify.watch_margin.value_or(-1);
  for (const Guard& g : profile.verify.guards)
    if (auto m = bench::parse_guard_metric(g.metric)) o.guards.set({*m, g.max_increase});
  for (const Nic& n : inventory.nics)
    if (!n.is_virtual) o.guard_interfaces.push_back(n.name);
  for (const Change& c : plan.changes) {
    std::string nic = nic_of(c.knob);
    if (!nic.empty() && inventory.find_nic(nic) &&
        std::find(o.guard_interfaces.begin(), o.guard_interfaces.end(), nic) ==
            o.guard_interfaces.end())
      o.guard_interfaces.push_back(nic);
  }
  return o;
}

Result<ApplyResult> apply_verified(const Plan& plan, const Profile& profile_as_written,
                                   const Inventory& inventory, const StateDir& dir,
                                   const KnobFactory& make, const Root& root, Clock& clock,
                                   const VerifiedApplyOptions& options, ProgressFn progress) {
  // A class decision fixes what the class's canaries chose; the rest is as planned.
  Plan fixed;
  std::vector<std::string> unknown_choices;
  if (options.class_decision)
    fixed = with_class_choices(plan, *options.class_decision, unknown_choices);
  const Plan& to_apply = options.class_decision ? fixed : plan;
  auto run = ApplyRun::prepare(to_apply, dir, make, options.apply);
  if (!run.ok()) return run.error();
  ApplyResult result;
  if (run->empty()) {
    result.report = run->report();
    return result;
  }
  std::vector<std::string> groups = run->groups();
  // A class decision made from another start is no decision here (issue 41).
  std::map<std::string, std::string> start_mismatch;
  for (const std::string& group : groups) {
    std::string why = class_start_mismatch_of(options.class_decision, to_apply, group);
    if (why.empty()) continue;
    start_mismatch[group] = why;
    run->report().warnings.push_back(
        {fmt::format(
             "class decision for group {} ({}) not reused: {}; {}", group,
             class_verdict_name(options.class_decision->groups.at(group).verdict), why,
             options.require_decision ? "--require-decision: not written" : "verified here"),
         "", ""});
  }
  auto reuse = [&](const std::string& group) {
    auto it = start_mismatch.find(group);
    return reuse_of(options, group, it == start_mismatch.end() ? "" : it->second);
  };
  // Only the groups this node decides itself need a benchmark that runs here.
  std::vector<std::string> measured;
  for (const std::string& group : groups)
    if (!reuse(group)) measured.push_back(group);
  std::vector<std::string> peer_notes;
  Profile profile =
      with_peer(profile_as_written, measured, options.peer, options.peer_key, peer_notes);
  for (const std::string& n : peer_notes) run->report().warnings.push_back({n, "", ""});
  // A peer that sends cannot fill a window wider than its own send buffer: a group
  // raising tcp_rmem past it is soaked instead of measured (peer_window.h). apply
  // --bench replaces every group's benchmarks: then no peer decides a group.
  std::vector<std::string> peer_decided;
  if (options.bench_override.empty()) peer_decided = measured;
  auto windows =
      check_peer_windows(profile, to_apply, peer_decided,
                         options.server_facts ? options.server_facts : live_server_facts());
  if (!windows.ok()) {
    Error e = windows.error();
    e.kind = ErrorKind::invalid;  // as a benchmark's failed check(): nothing changed
    return e;
  }
  for (const PeerWindowCheck& w : *windows) {
    if (w.note.empty()) continue;
    run->report().warnings.push_back({w.note, "", ""});
    Progress said;
    said.group = w.need.group;
    said.note = w.note;
    if (progress) progress(said);
  }
  auto benches = BenchSet::build(profile, inventory.topology, measured, options.bench_override);
  if (!benches.ok()) return benches.error();
  for (const std::string& u : unknown_choices)
    run->report().warnings.push_back(
        {"class decision " + u + ": not a value this node's profile searches; verified here", "",
         ""});
  for (const std::string& why : benches->skipped()) run->report().warnings.push_back({why, "", ""});

  // Guards watch the NICs this network namespace has: sysfs may show another
  // namespace's devices (a netns entered without remounting /sys), /proc/net/dev not.
  LoopOptions loop_opts = options.loop;
  if (auto dev = root.read("proc/net/dev"); dev.ok()) {
    if (auto seen = bench::parse_net_dev(*dev); seen.ok())
      std::erase_if(loop_opts.guard_interfaces,
                    [&](const std::string& n) { return !seen->count(n); });
  }
  // The links' carrier changes over the uptime, before anything is written: the
  // link-flap guard's prior (guard_decision.h). Unreadable: the trials alone.
  if (auto prior = read_flap_prior(root, loop_opts.guard_interfaces); prior.ok())
    loop_opts.guard_test.flap_prior = std::move(prior).value();
  // One error budget for the run: the profile's false_keep_rate is shared equally by
  // every test that can keep something: each measured group, and the rest of a group
  // after a bisect (tuner/verify/README.md, "One error budget per run").
  unsigned keep_tests = 0;
  for (const std::string& group : measured)
    if (benches->for_group(group))
      keep_tests += 1 + (group_policy(profile, group).bisect && run->knobs_of(group).size() > 1);
  double share = loop_opts.decision.false_keep_rate / std::max(1u, keep_tests);
  // Gain-only groups first; the neutral-keep ones share what they leave (time_share).
  auto use_of = [&](const std::string& group) {
    if (reuse(group) || !benches->for_group(group)) return BudgetUse::no_trials;
    // A searched group is applied only on a proven gain of its choice.
    if (search_of(to_apply, group)) return BudgetUse::gain_only;
    return group_policy(profile, group).keep_if_neutral ? BudgetUse::neutral : BudgetUse::gain_only;
  };
  std::vector<std::pair<std::string, BudgetUse>> uses;
  unsigned neutral_left = 0;
  for (const std::string& group : groups) {
    uses.emplace_back(group, use_of(group));
    neutral_left += uses.back().second == BudgetUse::neutral;
  }
  VerifyLoop loop(*run, root, clock, loop_opts, std::move(progress));
  auto step = [&](const std::string& group) -> Status {
    GroupPolicy policy = group_policy(profile, group);
    GroupPlan plan_of_group{group,
                            benches->for_group(group),
                            policy.keep_if_neutral,
                            design_of(*run, group),
                            policy.bisect,
                            benches->watches_for(group),
                            policy.soak};
    plan_of_group.false_keep_rate = share;
    if (use_of(group) == BudgetUse::neutral) plan_of_group.time_share = neutral_left--;
    if (auto reused = reuse(group)) {
      plan_of_group.bench = nullptr;
      plan_of_group.reuse = std::move(reused);
      auto outcome = loop.verify_group(plan_of_group);
      if (!outcome.ok()) return outcome.error();
      return Ok{};
    }
    if (const PlanSearch* ps = search_of(to_apply, group)) {
      SearchPlan sp{ps->setting, ps->knobs, {}, {}};
      for (const PlanSearch::Candidate& c : ps->candidates)
        if (!c.current) {
          sp.values.push_back(c.value);
          sp.desired.push_back(c.desired);
        }
      plan_of_group.search = std::move(sp);
      if (ps->design == "blocked") plan_of_group.design = Design::blocked;
      // Without a benchmark nothing can choose: the group is not applied.
      if (!plan_of_group.bench) plan_of_group.keep_if_neutral = false;
    }
    auto outcome = loop.verify_group(plan_of_group);
    if (!outcome.ok()) return outcome.error();
    return Ok{};
  };
  return run->drive(step, decision_order(uses));
}

}  // namespace tuner::verify
