// apply with verification: the verify loop's driver of ApplyRun (rollback/apply.h), as
// apply_plan is the unverified one. Benchmarks are built and checked before anything is
// changed; then each group is written, measured against its baseline and kept or put
// back, in plan order.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "probes/inventory.h"
#include "probes/root.h"
#include "rollback/apply.h"
#include "tuner/profile/profile.h"
#include "tuner/verify/class_decisions.h"
#include "tuner/verify/loop.h"
#include "tuner/verify/schedule.h"

namespace tuner::verify {

struct VerifiedApplyOptions {
  ApplyOptions apply;
  LoopOptions loop;                         // the profile's [verify] is laid over it
  std::vector<std::string> bench_override;  // apply --bench NAME...
  /// apply --decisions: this node's class decision (nullptr: none found), the class key
  /// and the file it came from; --require-decision: groups the class did not decide are
  /// not written instead of verified here (docs/fleet-decisions.md).
  const ClassDecision* class_decision = nullptr;
  std::string class_key, decisions_file;
  bool require_decision = false;
  /// apply --peer ADDR: the peer that `peer = true` groups' tcp benchmarks run against
  /// (it runs `tuner bench --serve`); empty: those groups fall back to the guard soak.
  std::string peer;
  /// The rollout's key the peer must prove (apply --peer-key, TUNER_PEER_KEY): given to
  /// every peer benchmark this run builds, and to the profile's own peer placements.
  bench::tcp::PeerKey peer_key;
  /// How a peer benchmark's server is asked for its facts (its tcp_wmem maximum:
  /// peer_window.h); empty: live_server_facts() (tests put a fake here).
  std::function<Result<bench::tcp::ServerFacts>(const bench::TcpConfig&)> server_facts = {};
};

/// The profile as this run verifies it: each `peer = true` group among `groups` gets
/// its tcp benchmarks as copies named "NAME@peer" that run against `peer`, or, with no
/// peer, no benchmark and keep_if_neutral (the guard soak decides). `notes` gets one
/// line per group that fell back, for the report. Every peer placement of the result
/// (the copies, and the profile's own [bench.NAME] peer = ADDR) gets `key`.
Profile with_peer(const Profile& profile, const std::vector<std::string>& groups,
                  const std::string& peer, const bench::tcp::PeerKey& key,
                  std::vector<std::string>& notes);

/// What a reused class decision does to one group: nullopt when the node verifies it
/// itself (no decision and no --require-decision, or too few canaries).
/// `start_mismatch`: class_start_mismatch() of the group on this node; a kept or
/// rolled-back decision that does not fit the node's start is no decision for it.
std::optional<GroupPlan::Reuse> reuse_of(const VerifiedApplyOptions& options,
                                         const std::string& group,
                                         const std::string& start_mismatch = "");

/// Why `group` of `plan` does not fit the class decision's start (class_start_mismatch),
/// for a kept or rolled-back decision; "" when it fits or there is none to fit.
std::string class_start_mismatch_of(const ClassDecision* decision, const Plan& plan,
                                    const std::string& group);

/// What a run with --decisions will do with one group, as `plan --decisions` says it
/// (check mode predicts the run with it): write it (the class kept it), skip it (rolled
/// back, disagree, or undecided under --require-decision) or verify it here.
struct ClassAction {
  enum class Action { write, skip, verify } action = Action::verify;
  std::string decision;  // the class's verdict for the group, or "none"
  std::string why;       // a start that does not fit, else ""
};
const char* class_action_name(ClassAction::Action a);
ClassAction class_action(const VerifiedApplyOptions& options, const Plan& plan,
                         const std::string& group);

/// The group's planned knobs on this node and their current values: what a class
/// decision's before-values are compared with.
std::map<std::string, std::optional<std::string>> planned_start(const Plan& plan,
                                                                const std::string& group);

/// The plan with each value search the class kept fixed at its chosen value (the
/// search's knobs get that candidate's values, and the search is dropped). A chosen
/// value this node's plan does not offer is named in `unknown` (group: value), and
/// that search is left as it was.
Plan with_class_choices(const Plan& plan, const ClassDecision& decision,
                        std::vector<std::string>& unknown);

/// How a group spends the run's budget: it needs trials to keep anything (kept only on
/// a proven gain), its trials only rule out harm (kept unless a benchmark proves it), or
/// it runs no trials (the guard soak, a reused class decision, left out).
enum class BudgetUse { gain_only, neutral, no_trials };

/// The order a verifying apply decides groups in: gain_only groups first, then neutral,
/// then no_trials, each in plan order. A neutral group can then only spend what the
/// gain-only groups left, and none of those is rolled back for the budget untried while
/// the budget went to a neutral keep; the neutral groups share the rest (time_share).
std::vector<std::string> decision_order(
    const std::vector<std::pair<std::string, BudgetUse>>& groups);

/// The loop's options from a profile's [verify]: min_effect, false_keep_rate,
/// max_trials, guards (over the defaults in o); guards watch the inventory's physical NICs and
/// every NIC the plan changes.
LoopOptions loop_options(const Profile& profile, const Inventory& inventory, const Plan& plan,
                         LoopOptions o);

/// Applies plan with verification. Errors before any change (a knob that cannot be built
/// or read, a benchmark that cannot run here) are returned as an Error; failures after
/// (a knob write) roll the whole run back, as apply_plan does: outcome rolled_back.
Result<ApplyResult> apply_verified(const Plan& plan, const Profile& profile,
                                   const Inventory& inventory, const StateDir& dir,
                                   const KnobFactory& make, const Root& root, Clock& clock,
                                   const VerifiedApplyOptions& options, ProgressFn progress = {});

/// The trial design of a group writing `knobs`: blocked where a flip resets a link or
/// a device (nic link, MTU, channels, rings), interleaved otherwise.
Design design_for_knobs(const std::vector<std::string>& knobs);

}  // namespace tuner::verify
