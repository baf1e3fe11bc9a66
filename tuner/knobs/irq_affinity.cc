// irq:N:affinity reads and writes /proc/irq/N/smp_affinity_list as a canonical
// cpulist. The kernel may refuse to move an IRQ it manages itself (EIO), or one whose
// CPUs it cannot serve (EINVAL, ENOSPC): those are Error::refused, so apply skips the
// change instead of failing the run.
#include <fcntl.h>

#include <fmt/core.h>

#include "base/cpuset.h"
#include "tuner/knobs/knob.h"
#include "tuner/knobs/knob_files.h"

namespace tuner {

namespace {

const char* refusal_reason(int err) {
  switch (err) {
    case EIO: return "the kernel refused to move it (managed IRQ)";
    case EINVAL: return "the kernel refused the CPU list (no usable CPU in it for this IRQ)";
    case ENOSPC: return "the kernel refused to move it (no free interrupt vectors there)";
    default: return nullptr;
  }
}

class IrqAffinityKnob : public MachineKnob {
 public:
  IrqAffinityKnob(KnobId id, KnobContext& ctx)
      : MachineKnob(std::move(id), ctx), dir_(fmt::format("proc/irq/{}", id_.number)) {}

  Result<std::string> read() override {
    auto text = read_proc_file(ctx_.root, dir_ + "/smp_affinity_list");
    if (!text.ok())
      return Error{text.error().what, label() + " (" + text.error().where + ")", text.error().err,
                   text.error().kind};
    auto set = CpuSet::parse(*text);
    if (!set.ok()) return Error::invalid(set.error().what, label());
    return set->to_string();
  }

  Result<std::string> canonical(const std::string& desired) override {
    auto set = CpuSet::parse(desired);
    if (!set.ok()) return Error::invalid("not a CPU list: " + set.error().message(), id_str_);
    if (set->empty()) return Error::invalid("an empty CPU list cannot take interrupts", id_str_);
    if (auto online = ctx_.root.read("sys/devices/system/cpu/online"); online.ok()) {
      auto on = CpuSet::parse(*online);
      if (on.ok() && !set->is_subset_of(*on))
        return Error::invalid(fmt::format("CPUs {} are not online (online: {})",
                                          set->minus(*on).to_string(), on->to_string()),
                              id_str_);
    }
    return set->to_string();
  }

 protected:
  // effective_affinity_list is not read back: many interrupt chips move an IRQ only
  // when it next fires, so it can lag behind for as long as the device is idle.
  Status set(const std::string& value) override {
    Status s = write_proc_file(ctx_.root, dir_ + "/smp_affinity_list", value);
    if (s.ok()) return s;
    if (const char* why = refusal_reason(s.error().err))
      return Error::refused(why, label(), s.error().err);
    return s.error().context(label());
  }

  std::string mismatch(const std::string& now, const std::string& want) override {
    return "wrote '" + want + "' but the kernel reads back '" + now + "'";
  }

  // "irq 57 (nvme0q3)": the handler names are the subdirectories of /proc/irq/N.
  std::string label() const override {
    std::string names;
    if (auto list = ctx_.root.list(dir_); list.ok())
      for (const auto& n : *list) {
        if (!ctx_.root.open_fd(dir_ + "/" + n, O_DIRECTORY).ok()) continue;
        names += (names.empty() ? "" : ",") + n;
      }
    return names.empty() ? fmt::format("irq {}", id_.number)
                         : fmt::format("irq {} ({})", id_.number, names);
  }

 private:
  std::string dir_;
};

}  // namespace

Result<std::unique_ptr<Knob>> make_irq_knob(const KnobId& id, KnobContext& ctx) {
  return std::unique_ptr<Knob>(new IrqAffinityKnob(id, ctx));
}

}  // namespace tuner
