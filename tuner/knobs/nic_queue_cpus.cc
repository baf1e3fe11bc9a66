// nic:IF:rps:rx-N and nic:IF:xps:tx-N: the CPUs of a queue's receive packet steering
// (sys/class/net/IF/queues/rx-N/rps_cpus) and transmit packet steering
// (queues/tx-N/xps_cpus). The files hold the kernel's hex mask ("f", "00000000,00000f00");
// the value is the same CPU set as the irq:N:affinity knob shows one, a canonical
// cpulist ("2-3"), or "none" for the empty mask (RPS or XPS off for that queue).
//
// What the kernel refuses (net/core/net-sysfs.c): an rps_cpus mask with no housekeeping
// CPU left once isolcpus are taken out (EINVAL); xps_cpus of a device with one TX queue
// (ENOENT, on read too) or a queue outside its traffic classes (EINVAL); a mask wider than
// its CPU mask (EOVERFLOW). canonical() refuses CPUs that are not online first: the
// kernel drops offline CPUs from an RPS map, so they would never read back.
#include <fcntl.h>

#include <optional>

#include <fmt/core.h>

#include "base/cpuset.h"
#include "base/strings.h"
#include "probes/nic.h"
#include "tuner/knobs/file_knob.h"
#include "tuner/knobs/nic_knob.h"

namespace tuner {

namespace {

const char* const kNone = "none";

bool is_xps(const KnobId& id) { return id.kind == KnobKind::nic_xps; }

/// "rx-0..rx-3", "no rx queues" for messages.
std::string queue_range(const Root& root, const std::string& queues, const char* prefix) {
  unsigned n = 0;
  if (auto names = root.list(queues); names.ok())
    for (const std::string& q : *names) n += starts_with(q, prefix) ? 1 : 0;
  if (n == 0) return fmt::format("no {}N queues", prefix);
  if (n == 1) return fmt::format("only {}0", prefix);
  return fmt::format("{}0..{}{}", prefix, prefix, n - 1);
}

class NicQueueCpusKnob : public FileKnob {
 public:
  NicQueueCpusKnob(KnobId id, KnobContext& ctx, std::string path)
      : FileKnob(std::move(id), ctx, std::move(path)) {}

  Result<std::string> read() override {
    auto text = read_proc_file(ctx_.root, path_);
    if (!text.ok()) return read_error(text.error());
    auto set = CpuSet::parse_mask(*text);
    if (!set.ok()) return labelled(Error::invalid(set.error().what, shown_path(ctx_.root, path_)));
    return set->empty() ? std::string(kNone) : set->to_string();
  }

  Result<std::string> canonical(const std::string& desired) override {
    std::string_view text = trim(desired);
    if (text == kNone || text.empty()) return std::string(kNone);
    auto set = CpuSet::parse(text);
    if (!set.ok())
      return Error::invalid("not a CPU list (or \"none\"): " + set.error().message(), id_str_);
    if (set->empty()) return std::string(kNone);
    if (auto possible = cpus_file("possible"); possible && !set->is_subset_of(*possible))
      return Error::invalid(fmt::format("CPUs {} do not exist on this machine (it has {})",
                                        set->minus(*possible).to_string(), possible->to_string()),
                            id_str_);
    if (auto online = cpus_file("online"); online && !set->is_subset_of(*online))
      return Error::invalid(fmt::format("CPUs {} are not online (online: {})",
                                        set->minus(*online).to_string(), online->to_string()),
                            id_str_);
    return set->to_string();
  }

 protected:
  Status set(const std::string& value) override {
    std::string mask = value == kNone ? "0" : CpuSet::parse(value).value_or(CpuSet{}).to_mask();
    Status s = write_file(path_, mask);
    if (s.ok()) return s;
    const Error& e = s.error();
    std::string where = id_str_ + " (" + e.where + ")";
    switch (e.err) {
      case EINVAL:
        return Error::refused(
            is_xps(id_)
                ? "the kernel refused the XPS map (a traffic class setup that leaves this "
                  "queue out, or no usable CPU in it)"
                : "the kernel refused the RPS map: no housekeeping CPU in it (isolcpus, nohz_full)",
            where, e.err);
      case ENOENT:
        if (is_xps(id_))
          return Error::refused(id_.name + " has a single TX queue: the kernel keeps no XPS map",
                                where, e.err);
        break;
      case EOVERFLOW:
        return Error::refused("the kernel refused the mask: wider than its CPU mask", where, e.err);
      default: break;
    }
    return labelled(e);
  }

 private:
  /// sys/devices/system/cpu/NAME as a set; nullopt where the root has none (a capture).
  std::optional<CpuSet> cpus_file(const char* name) const {
    auto text = ctx_.root.read(std::string("sys/devices/system/cpu/") + name);
    if (!text.ok()) return std::nullopt;
    auto set = CpuSet::parse(*text);
    return set.ok() ? std::optional<CpuSet>(std::move(set).value()) : std::nullopt;
  }

  /// xps_cpus of a single-queue device opens but fails to read with ENOENT.
  Error read_error(const Error& e) const {
    if (is_xps(id_) && e.err == ENOENT && ctx_.root.exists(path_))
      return Error::unsupported(id_.name + " has a single TX queue: the kernel keeps no XPS map",
                                id_str_ + " (" + e.where + ")", e.err);
    if (is_xps(id_) && e.err == EINVAL)
      return Error::unsupported(
          "the kernel shows no XPS map for this queue (a traffic class setup leaves it out)",
          id_str_ + " (" + e.where + ")", e.err);
    return labelled(e);
  }
};

}  // namespace

// The queue knobs' one entry (RPS, XPS, and RFS's flow table, nic_rfs.cc): the
// interface, the queue and the file are checked the same way for each.
Result<std::unique_ptr<Knob>> make_nic_queue_knob(const KnobId& id, KnobContext& ctx) {
  if (!ctx.root.exists("sys/class/net/" + id.name))
    return Error::missing("no such network interface '" + id.name + "'", id.str(), ENODEV);
  bool xps = is_xps(id);
  const char* prefix = xps ? "tx-" : "rx-";
  std::string queues = netdev_dir(ctx.root, id.name) + "/queues";
  std::string queue = queues + "/" + prefix + std::to_string(id.number);
  if (!ctx.root.exists(queue))
    return Error::missing(
        fmt::format("{} has no {} queue {} (it has {})", id.name, xps ? "TX" : "RX", id.number,
                    queue_range(ctx.root, queues, prefix)),
        id.str());
  bool rfs = id.kind == KnobKind::nic_rfs;
  std::string file = queue + (xps ? "/xps_cpus" : rfs ? "/rps_flow_cnt" : "/rps_cpus");
  if (!ctx.root.exists(file))
    return Error::unsupported(
        fmt::format("this kernel has no {} (built without {})", shown_path(ctx.root, file),
                    xps ? "CONFIG_XPS" : "CONFIG_RPS"),
        id.str());
  if (rfs) return make_nic_rfs_knob(id, ctx, std::move(file));
  return std::unique_ptr<Knob>(new NicQueueCpusKnob(id, ctx, std::move(file)));
}

}  // namespace tuner
