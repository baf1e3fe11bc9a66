// irq:N:affinity reads and writes /proc/irq/N/smp_affinity_list as a canonical
// cpulist. irq:PCI/msiV:affinity names the IRQ by its owner, vector V of PCI function
// PCI (probes/irq_vector.h), and finds its number at every read and write: after the
// numbers change it moves the same queue's IRQ, and when the function or the vector is
// no longer there it is Error::missing (`status` and `restore` report it gone).
// The kernel may refuse to move an IRQ it manages itself (EIO), or one whose CPUs it
// cannot serve (EINVAL, ENOSPC): those are Error::refused, so apply skips the change
// instead of failing the run.
#include <fcntl.h>

#include <fmt/core.h>

#include "base/cpuset.h"
#include "probes/irq_vector.h"
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
  using MachineKnob::MachineKnob;

  Result<std::string> read() override {
    auto dir = irq_dir();
    if (!dir.ok()) return dir.error();
    auto text = read_proc_file(ctx_.root, *dir + "/smp_affinity_list");
    if (!text.ok()) return text.error().labelled(label());
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
    auto dir = irq_dir();
    if (!dir.ok()) return dir.error();
    Status s = write_proc_file(ctx_.root, *dir + "/smp_affinity_list", value);
    if (s.ok()) return s;
    if (const char* why = refusal_reason(s.error().err))
      return Error::refused(why, label(), s.error().err);
    return s.error().context(label());
  }

  std::string mismatch(const std::string& now, const std::string& want) override {
    return "wrote '" + want + "' but the kernel reads back '" + now + "'";
  }

  // "irq 57 (nvme0q3)": the handler names are the subdirectories of /proc/irq/N. By
  // owner: "irq 57 = 0000:3b:00.0 vector 5 (ens1f0-TxRx-4)".
  std::string label() const override {
    std::string owner = id_.by_owner() ? fmt::format("{} vector {}", id_.name, id_.number) : "";
    auto irq = irq_number();
    if (!irq.ok()) return "irq of " + owner;
    std::string dir = fmt::format("proc/irq/{}", *irq);
    std::string names;
    if (auto list = ctx_.root.list(dir); list.ok())
      for (const auto& n : *list) {
        if (!ctx_.root.open_fd(dir + "/" + n, O_DIRECTORY).ok()) continue;
        names += (names.empty() ? "" : ",") + n;
      }
    return fmt::format("irq {}", *irq) + (owner.empty() ? "" : " = " + owner) +
           (names.empty() ? "" : " (" + names + ")");
  }

 private:
  /// The IRQ's number now: the id's own, or the one that serves its owner's vector.
  Result<unsigned> irq_number() const {
    if (!id_.by_owner()) return id_.number;
    auto irq = find_msi_irq(ctx_.root, id_.name, id_.number);
    if (!irq.ok()) return irq.error().context(id_str_);
    return *irq;
  }

  Result<std::string> irq_dir() const {
    auto irq = irq_number();
    if (!irq.ok()) return irq.error();
    return fmt::format("proc/irq/{}", *irq);
  }
};

}  // namespace

Result<std::unique_ptr<Knob>> make_irq_knob(const KnobId& id, KnobContext& ctx) {
  return std::unique_ptr<Knob>(new IrqAffinityKnob(id, ctx));
}

}  // namespace tuner
