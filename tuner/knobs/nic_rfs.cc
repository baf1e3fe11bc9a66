// nic:IF:rfs:rx-N: the size of RX queue N's Receive Flow Steering table,
// sys/class/net/IF/queues/rx-N/rps_flow_cnt ("2048"; "0" = no table, RFS off for the
// queue). RFS steers a flow's protocol processing to the CPU its reading thread last
// ran on (networking/scaling.rst, "RFS: Receive Flow Steering"); it needs the global
// socket flow table too (sysctl net.core.rps_sock_flow_entries), which the planner
// plans beside it (tuner/plan/nic_queues.cc). It works without rps_cpus: get_rps_cpu()
// in net/core/dev.c (v6.18) goes on when a queue has a flow table or an RPS map, and
// takes the flow's CPU from the tables before it looks at the map.
//
// The kernel (store_rps_dev_flow_table_cnt, net/core/net-sysfs.c) parses the count with
// kstrtoul and rounds it up to a power of two: 100 reads back 128, 2049 reads back 4096
// (seen on Linux 6.18 on a veth). canonical() rounds the same way, so the plan shows
// what the file will read. What it refuses: more than 2^32 (the table's mask is 32
// bits) and, on 6.18, 1 (EINVAL, seen; older kernels' source made a one-entry table).
// Both are EINVAL, a refusal that changes nothing; so is ENOMEM (the table is vmalloc'd:
// 8 bytes an entry, 12 with CONFIG_RFS_ACCEL since 6.15's flow hash).
#include <cerrno>
#include <cstdint>
#include <optional>

#include <fmt/core.h>

#include "base/strings.h"
#include "tuner/knobs/file_knob.h"
#include "tuner/knobs/nic_knob.h"
#include "tuner/knobs/nic_value.h"

namespace tuner {

namespace {

/// The largest table the kernel takes: its mask (count - 1) must fit 32 bits.
constexpr uint64_t kMaxFlowCnt = uint64_t{1} << 32;

/// Decimal without sign or leading zeros, at most kMaxFlowCnt.
std::optional<uint64_t> parse_count(std::string_view text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos ||
      (text.size() > 1 && text[0] == '0'))
    return std::nullopt;
  auto n = parse_u64(text);
  if (!n || *n > kMaxFlowCnt) return std::nullopt;
  return n;
}

class NicRfsKnob : public FileKnob {
 public:
  NicRfsKnob(KnobId id, KnobContext& ctx, std::string path)
      : FileKnob(std::move(id), ctx, std::move(path)) {}

  Result<std::string> read() override {
    auto text = read_text(path_);
    if (!text.ok()) return text.error();
    auto n = parse_count(trim(*text));
    if (!n)
      return labelled(
          Error::invalid(fmt::format("not a flow table size: '{}'", escape_controls(trim(*text))),
                         shown_path(ctx_.root, path_)));
    return std::to_string(*n);
  }

  Result<std::string> canonical(const std::string& desired) override {
    auto n = parse_count(trim(desired));
    if (!n)
      return Error::invalid(
          fmt::format("not an RFS flow table size: '{}' (expected entries, 0 to 4294967296: "
                      "0 is no table, others are rounded up to a power of two)",
                      escape_controls(desired)),
          id_str_);
    return std::to_string(rfs_table_size(*n));
  }

 protected:
  Status set(const std::string& value) override {
    Status s = write_file(path_, value);
    if (s.ok()) return s;
    const Error& e = s.error();
    std::string where = id_str_ + " (" + e.where + ")";
    if (e.err == EINVAL)
      return Error::refused(
          fmt::format("the kernel refused a flow table of {} entries (Linux 6.18 refuses 1)",
                      value),
          where, e.err);
    if (e.err == ENOMEM)
      return Error::refused(
          fmt::format("the kernel has no memory for a flow table of {} entries", value), where,
          e.err);
    return labelled(e);
  }

  std::string mismatch(const std::string& now, const std::string& want) override {
    return "the kernel reads back a flow table of " + now + " entries after setting " + want;
  }
};

}  // namespace

uint64_t rfs_table_size(uint64_t n) {
  uint64_t p = 1;
  while (p < n && p <= UINT64_MAX / 2) p <<= 1;
  return n == 0 ? 0 : p;
}

std::unique_ptr<Knob> make_nic_rfs_knob(const KnobId& id, KnobContext& ctx, std::string file) {
  return std::make_unique<NicRfsKnob>(id, ctx, std::move(file));
}

}  // namespace tuner
