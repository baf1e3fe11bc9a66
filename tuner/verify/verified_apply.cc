#include "tuner/verify/verified_apply.h"

#include <algorithm>

#include "base/strings.h"
#include "tuner/profile/group_policy.h"
#include "tuner/verify/benches.h"
#include "tuner/verify/guard_decision.h"

namespace tuner::verify {

namespace {

/// "nic:eth0:link" -> "eth0".
std::string nic_of(const std::string& knob) {
  if (!starts_with(knob, "nic:")) return "";
  auto end = knob.find(':', 4);
  return end == std::string::npos ? "" : knob.substr(4, end - 4);
}

Design design_of(const ApplyRun& run, const std::string& group) {
  for (const std::string& id : run.knobs_of(group))
    if (starts_with(id, "nic:") && id.size() > 5 && id.substr(id.size() - 5) == ":link")
      return Design::blocked;  // a link renegotiation takes seconds: flip rarely
  return Design::interleaved;
}

const PlanSearch* search_of(const Plan& plan, const std::string& group) {
  for (const PlanSearch& s : plan.searches)
    if (s.group == group) return &s;
  return nullptr;
}

}  // namespace

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

Result<ApplyResult> apply_verified(const Plan& plan, const Profile& profile,
                                   const Inventory& inventory, const StateDir& dir,
                                   const KnobFactory& make, const Root& root, Clock& clock,
                                   const VerifiedApplyOptions& options, ProgressFn progress) {
  auto run = ApplyRun::prepare(plan, dir, make, options.apply);
  if (!run.ok()) return run.error();
  ApplyResult result;
  if (run->empty()) {
    result.report = run->report();
    return result;
  }
  std::vector<std::string> groups = run->groups();
  auto benches = BenchSet::build(profile, inventory.topology, groups, options.bench_override);
  if (!benches.ok()) return benches.error();
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
  for (const std::string& group : groups)
    if (benches->for_group(group))
      keep_tests += 1 + (group_policy(profile, group).bisect && run->knobs_of(group).size() > 1);
  double share = loop_opts.decision.false_keep_rate / std::max(1u, keep_tests);
  VerifyLoop loop(*run, root, clock, loop_opts, std::move(progress));
  return run->drive([&](const std::string& group) -> Status {
    GroupPolicy policy = group_policy(profile, group);
    GroupPlan plan_of_group{group,
                            benches->for_group(group),
                            policy.keep_if_neutral,
                            design_of(*run, group),
                            policy.bisect,
                            benches->watches_for(group),
                            policy.soak};
    plan_of_group.false_keep_rate = share;
    if (const PlanSearch* ps = search_of(plan, group)) {
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
  });
}

}  // namespace tuner::verify
