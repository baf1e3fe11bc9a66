// The IRQ affinity knob: "irq:57:affinity" reads and writes
// /proc/irq/57/smp_affinity_list as a canonical cpulist. The kernel may refuse to move
// an IRQ it manages itself (EIO), or one whose CPUs it cannot serve (EINVAL, ENOSPC):
// those errors are marked refused, so apply skips the change instead of failing.
#include <fcntl.h>
#include <unistd.h>

#include <fmt/core.h>

#include "base/cpuset.h"
#include "base/strings.h"
#include "tuner/knobs/knob.h"
#include "tuner/knobs/proc_file.h"

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

class IrqAffinityKnob : public Knob {
 public:
  IrqAffinityKnob(std::string id, unsigned irq, Root root)
      : id_(std::move(id)), irq_(irq), root_(std::move(root)),
        dir_(fmt::format("proc/irq/{}", irq)) {}

  const std::string& id() const override { return id_; }

  Result<std::string> read() override {
    auto text = read_proc_file(root_, dir_ + "/smp_affinity_list");
    if (!text.ok()) return errno_error(text.error().what, label() + " (" + text.error().where + ")",
                                 text.error().err);
    auto set = CpuSet::parse(*text);
    if (!set.ok()) return Error::invalid(set.error().what, label());
    return set->to_string();
  }

  Result<std::string> canonical(const std::string& desired) override {
    auto set = CpuSet::parse(desired);
    if (!set.ok()) return Error::invalid("not a CPU list: " + set.error().message(), id_);
    if (set->empty()) return Error::invalid("an empty CPU list cannot take interrupts", id_);
    if (auto online = root_.read("sys/devices/system/cpu/online"); online.ok()) {
      auto on = CpuSet::parse(*online);
      if (on.ok() && !set->is_subset_of(*on))
        return Error::invalid(fmt::format("CPUs {} are not online (online: {})",
                                 set->minus(*on).to_string(), on->to_string()),
                     id_);
    }
    return set->to_string();
  }

  Status write(const std::string& value) override {
    auto want = canonical(value);
    if (!want.ok()) return want.error();
    Status s = write_proc_file(root_, dir_ + "/smp_affinity_list", *want);
    if (!s.ok()) {
      if (const char* why = refusal_reason(s.error().err)) {
        return Error::refused(why, label(), s.error().err);
      }
      return s.error().context(label());
    }
    auto back = read();
    if (!back.ok()) return back.error();
    if (*back != *want)
      return Error::invalid(fmt::format("wrote '{}' but the kernel reads back '{}'", *want, *back),
                   label());
    // effective_affinity_list is not checked: many interrupt chips move an IRQ only
    // when it next fires, so it can lag behind for as long as the device is idle.
    return Ok{};
  }

 private:
  // "irq 57 (nvme0q3)": the handler names are the subdirectories of /proc/irq/N.
  std::string label() const {
    std::string names;
    if (auto list = root_.list(dir_); list.ok())
      for (const auto& n : *list) {
        auto fd = root_.open_fd(dir_ + "/" + n, O_DIRECTORY);
        if (!fd.ok()) continue;
        ::close(*fd);
        if (!names.empty()) names += ",";
        names += n;
      }
    return names.empty() ? fmt::format("irq {}", irq_)
                         : fmt::format("irq {} ({})", irq_, names);
  }

  std::string id_;
  unsigned irq_;
  Root root_;
  std::string dir_;
};

}  // namespace

Result<std::unique_ptr<Knob>> make_irq_knob(const std::string& id, KnobContext& ctx) {
  // irq:<N>:affinity, N decimal without sign or leading zeros.
  auto parts = split(id, ':');
  if (parts.size() != 3 || parts[0] != "irq" || parts[2] != "affinity")
    return Error::invalid("expected irq:<number>:affinity", id);
  bool digits = !parts[1].empty() &&
                parts[1].find_first_not_of("0123456789") == std::string_view::npos;
  auto n = digits ? parse_u64(parts[1]) : std::nullopt;
  if (!n || *n > 1u << 20 || (parts[1].size() > 1 && parts[1][0] == '0'))
    return Error::invalid("not an IRQ number: '" + std::string(parts[1]) + "'", id);
  return std::unique_ptr<Knob>(new IrqAffinityKnob(id, static_cast<unsigned>(*n), ctx.root));
}

}  // namespace tuner
