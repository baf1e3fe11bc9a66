// cpu:N:resume_latency reads and writes a CPU's PM QoS resume latency limit (see
// cpu_latency.h for what the values mean).
#include "tuner/knobs/cpu_latency.h"

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/knobs/file_knob.h"

namespace tuner {

Result<std::string> parse_resume_latency(std::string_view text) {
  text = trim(text);
  if (text == "n/a") return std::string(text);
  bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  auto n = digits ? parse_u64(text) : std::nullopt;
  if (!n || *n > kMaxResumeLatencyUs)
    return Error::invalid(
        fmt::format("'{}' is not a resume latency: give microseconds (0 to {}; 0 = no "
                    "constraint) or \"n/a\" (no wake-up latency at all)",
                    text, kMaxResumeLatencyUs));
  return std::to_string(*n);
}

std::string describe_resume_latency(const std::string& value) {
  if (value == "0") return "no constraint";
  if (value == "n/a") return "no wake-up latency at all: idle CPUs only poll";
  return "idle states that wake within " + value + " us";
}

std::optional<uint64_t> resume_latency_limit_us(const std::string& value) {
  if (value == "n/a") return 0;
  auto n = parse_u64(value);
  if (!n || *n == 0) return std::nullopt;
  return n;
}

bool resume_latency_stricter(const std::string& a, const std::string& b) {
  auto la = resume_latency_limit_us(a), lb = resume_latency_limit_us(b);
  return la && (!lb || *la < *lb);
}

namespace {

class CpuLatencyKnob : public FileKnob {
 public:
  using FileKnob::FileKnob;

  Result<std::string> read() override {
    auto text = read_text(path_);
    if (!text.ok()) return text.error();
    auto v = parse_resume_latency(*text);
    if (!v.ok()) return labelled(Error::invalid(v.error().what, shown_path(ctx_.root, path_)));
    return v;
  }

  Result<std::string> canonical(const std::string& desired) override {
    auto v = parse_resume_latency(desired);
    if (!v.ok()) return v.error().context(id_str_);
    return v;
  }
};

}  // namespace

Result<std::unique_ptr<Knob>> make_cpu_latency_knob(const KnobId& id, KnobContext& ctx) {
  std::string cpu = fmt::format("sys/devices/system/cpu/cpu{}", id.number);
  std::string file = cpu + "/power/pm_qos_resume_latency_us";
  if (ctx.root.exists(file))
    return std::unique_ptr<Knob>(new CpuLatencyKnob(id, ctx, std::move(file)));
  if (!ctx.root.exists(cpu))
    return Error::missing(fmt::format("CPU {} does not exist on this machine", id.number),
                          id.str());
  // hwloc's captures keep cpuN but not its power/ directory: unknown there, not missing.
  if (!ctx.root.is_live() && !ctx.root.exists(cpu + "/power"))
    return Error::unsupported(ctx.root.dir() + " has no " + cpu + "/power", id.str());
  return Error::missing("no pm_qos_resume_latency_us for this CPU", id.str());
}

}  // namespace tuner
