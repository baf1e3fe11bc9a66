#include "tuner/knobs/knob.h"

#include <algorithm>
#include <utility>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {

MachineKnob::MachineKnob(KnobId id, KnobContext& ctx)
    : id_(std::move(id)), id_str_(id_.str()), ctx_(ctx) {}

std::string MachineKnob::mismatch(const std::string& now, const std::string& want) {
  return "wrote '" + want + "' but reads back '" + now + "'";
}

Status MachineKnob::write(const std::string& value) {
  if (!ctx_.may_write())
    return Error::denied(
        "refusing to write outside the live machine (--root " + ctx_.root.dir() + ")", id_str_);
  auto want = canonical(value);
  if (!want.ok()) return want.error();
  // Best effort: without a before value a failed write cannot be reverted, but a write
  // that puts a broken setting right (rollback of a mangled drop-in) must still go on.
  auto before = read();
  prepare();

  if (Status st = set(*want); !st.ok()) {
    Error e = st.error();
    // A refusal should change nothing; make sure of it.
    if (before.ok())
      if (auto now = read(); now.ok() && *now != *before) e.what += revert(*before);
    return e;
  }
  if (Status st = settle(*want); !st.ok()) {
    Error e = st.error();
    if (before.ok()) e.what += revert(*before);
    return e;
  }
  auto now = read();
  if (!now.ok())
    return Error::io(
        "cannot read back: " + now.error().message() + (before.ok() ? revert(*before) : ""),
        label());
  if (!matches(*now, *want))
    return Error::io(mismatch(*now, *want) + (before.ok() ? revert(*before) : ""), label());
  return finish(*want);
}

Status MachineKnob::write_file(const std::string& rel, const std::string& text) {
  bool fake = ctx_.fake_machine && ctx_.fake_kernel;
  return write_proc_file(ctx_.root, rel, text, fake ? &ctx_.fake_kernel : nullptr);
}

std::string MachineKnob::revert(const std::string& before) {
  if (Status st = set(before); !st.ok())
    return "; reverting to '" + before + "' failed: " + st.error().message();
  if (Status st = settle(before); !st.ok())
    return "; reverted to '" + before + "' but " + st.error().what;
  auto now = read();
  if (!now.ok()) return "; reverted, but reading back failed: " + now.error().message();
  if (!matches(*now, before)) return "; reverting to '" + before + "' left '" + *now + "'";
  return "; reverted";
}

Result<std::unique_ptr<Knob>> make_knob(const std::string& id, KnobContext& ctx) {
  auto parsed = parse_knob_id(id);
  if (!parsed.ok()) return parsed.error();
  return make_knob(*parsed, ctx);
}

Result<std::unique_ptr<Knob>> make_knob(const KnobId& id, KnobContext& ctx) {
  switch (id.kind) {
    case KnobKind::sysctl: return make_sysctl_knob(id, ctx);
    case KnobKind::irq_affinity: return make_irq_knob(id, ctx);
    case KnobKind::nic_link:
    case KnobKind::nic_mtu:
    case KnobKind::nic_channels:
    case KnobKind::nic_rings:
    case KnobKind::nic_coalesce: return make_nic_knob(id, ctx);
    case KnobKind::nic_rps:
    case KnobKind::nic_xps:
    case KnobKind::nic_rfs: return make_nic_queue_knob(id, ctx);
    case KnobKind::numa_unit: return make_numa_unit_knob(id, ctx);
    case KnobKind::numa_cgroup: return make_numa_cgroup_knob(id, ctx);
    case KnobKind::numa_pid: return make_numa_process_knob(id, ctx);
    case KnobKind::irqbalance_service:
    case KnobKind::irqbalance_banned: return make_irqbalance_knob(id, ctx);
    case KnobKind::cpu_governor:
    case KnobKind::cpu_epp: return make_cpu_policy_knob(id, ctx);
    case KnobKind::cpu_resume_latency: return make_cpu_latency_knob(id, ctx);
    case KnobKind::mm_thp:
    case KnobKind::mm_thp_defrag: return make_thp_knob(id, ctx);
    case KnobKind::count_: break;
  }
  return Error::invalid("unknown knob kind", id.str());
}

void MachineKnob::note(const std::string& text) const {
  if (ctx_.notes) ctx_.notes->add({id_str_, text});
  else fmt::print(stderr, "tuner: note: {}\n", escape_controls(id_str_ + ": " + text));
}

void KnobNotes::add(KnobNote note) {
  if (std::find(notes_.begin(), notes_.end(), note) == notes_.end())
    notes_.push_back(std::move(note));
}

}  // namespace tuner
