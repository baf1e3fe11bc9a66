// cpu:policyN:governor and cpu:policyN:epp: a cpufreq policy's scaling_governor and
// energy_performance_preference, under sys/devices/system/cpu/cpufreq/policyN (a real
// directory; cpuN/cpufreq is the symlink to it). One knob per policy: a policy is what
// the kernel governs as one, and what rollback must put back as one. A value must be
// among those the policy lists (scaling_available_governors,
// energy_performance_available_preferences). EPP exists only where the driver has it
// (intel_pstate, amd-pstate-epp); under acpi-cpufreq or cppc_cpufreq the knob is
// missing, which the planner reports as "not available on this machine".
#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/knobs/knob.h"
#include "tuner/knobs/sysfs_choice.h"

namespace tuner {

namespace {

std::string policy_dir(unsigned policy) {
  return fmt::format("sys/devices/system/cpu/cpufreq/policy{}", policy);
}

class CpuPolicyKnob : public ChoiceKnob {
 public:
  CpuPolicyKnob(const KnobId& id, KnobContext& ctx, const std::string& file,
                const std::string& offered_file, std::string what)
      : ChoiceKnob(id, ctx, policy_dir(id.number) + "/" + file, std::move(what)),
        offered_path_(policy_dir(id.number) + "/" + offered_file) {}

 protected:
  Result<Choice> choice() override {
    auto text = read_text(path_);
    if (!text.ok()) return text.error();
    Choice c;
    c.current = std::string(trim(*text));
    if (c.current.empty()) return Error::invalid("the kernel gives an empty " + what_, id_str_);
    // Without the list the kernel itself judges the word when it is written.
    if (auto offered = read_text(offered_path_); offered.ok())
      c.offered = parse_word_list(*offered);
    return c;
  }

  /// intel_pstate reads back a raw EPP (0..255) that matches no named preference as the
  /// number, and takes one; rollback must be able to put such a value back.
  bool also_accepted(const std::string& value) const override {
    if (id_.kind != KnobKind::cpu_epp) return false;
    auto n = parse_u64(value);
    return n && *n <= 255 && value == std::to_string(*n);
  }

  Status set(const std::string& value) override {
    Status s = FileKnob::set(value);
    // intel_pstate and amd-pstate refuse any preference but "performance" while the
    // policy's governor is performance: a refusal, so apply skips the change.
    if (!s.ok() && id_.kind == KnobKind::cpu_epp && s.error().err == EBUSY)
      return Error::refused(
          "the driver refuses to change the energy preference while the governor is "
          "performance",
          s.error().where, EBUSY);
    return s;
  }

 private:
  std::string offered_path_;
};

}  // namespace

Result<std::unique_ptr<Knob>> make_cpu_policy_knob(const KnobId& id, KnobContext& ctx) {
  std::string dir = policy_dir(id.number);
  if (!ctx.root.exists(dir))
    return Error::missing(fmt::format("cpufreq policy{} does not exist on this machine", id.number),
                          id.str());
  if (id.kind == KnobKind::cpu_governor) {
    if (!ctx.root.exists(dir + "/scaling_governor"))
      return Error::missing(fmt::format("cpufreq policy{} has no scaling_governor", id.number),
                            id.str());
    return std::unique_ptr<Knob>(
        new CpuPolicyKnob(id, ctx, "scaling_governor", "scaling_available_governors", "governor"));
  }
  if (!ctx.root.exists(dir + "/energy_performance_preference")) {
    auto driver = ctx.root.read(dir + "/scaling_driver");
    std::string by = driver.ok() ? " (cpufreq driver " + std::string(trim(*driver)) + ")" : "";
    return Error::missing("no energy_performance_preference" + by, id.str());
  }
  return std::unique_ptr<Knob>(new CpuPolicyKnob(id, ctx, "energy_performance_preference",
                                                 "energy_performance_available_preferences",
                                                 "energy preference"));
}

}  // namespace tuner
