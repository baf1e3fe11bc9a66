#include "probes/irq_names.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "base/enum_names.h"
#include "base/strings.h"

namespace tuner {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// `s` is `prefix` followed by a number: that number.
std::optional<unsigned> number_after(std::string_view s, std::string_view prefix) {
  if (!starts_with(s, prefix) || !is_digits(s.substr(prefix.size()))) return std::nullopt;
  auto v = parse_u64(s.substr(prefix.size()));
  if (!v || *v > 1u << 20) return std::nullopt;
  return static_cast<unsigned>(*v);
}

/// The name before its "@pci:ADDR" / "@ADDR" tail (mlx4, mlx5, gve, ena).
std::string_view before_at(std::string_view name) {
  auto at = name.find('@');
  return at == std::string_view::npos ? name : name.substr(0, at);
}

VectorRole queue(unsigned index, QueueType type, std::string_view label) {
  VectorRole r;
  r.kind = IrqKind::queue;
  r.queue_index = index;
  r.queue_type = type;
  r.label = std::string(label);
  return r;
}
VectorRole control() {
  VectorRole r;
  r.kind = IrqKind::control;
  return r;
}
VectorRole unknown(std::string why) {
  VectorRole r;
  r.ambiguous = std::move(why);
  return r;
}

/// After "<netdev>-": the queue forms of ixgbe/igb ("TxRx-3", "rx-3", "tx-3"), the
/// Intel drivers with a driver prefix, bnxt, ena ("Tx-Rx-3"), nfp/vmxnet3 ("rxtx-3"),
/// qede/bnx2x ("fp-3"), benet ("q3"), sfc ("3", "rx-3"), cxgb4 ("Rx3"), and the
/// control vectors beside them.
VectorRole classify_suffix(std::string_view suffix) {
  const std::string s = lower(suffix);
  for (const char* p : {"txrx-", "tx-rx-", "rxtx-", "fp-", "q", ""})
    if (auto n = number_after(s, p)) return queue(*n, QueueType::combined, suffix);
  for (const char* p : {"rx-", "rx"})
    if (auto n = number_after(s, p)) return queue(*n, QueueType::rx, suffix);
  for (const char* p : {"tx-", "tx"})
    if (auto n = number_after(s, p)) return queue(*n, QueueType::tx, suffix);
  // vmxnet3 "event-N", sfc "ptp", cxgb4 "FWeventq": events, not traffic.
  if (number_after(s, "event-") || s == "ptp" || s == "fweventq" || s == "misc" || s == "mbx" ||
      s == "lsc" || s == "link" || s == "other")
    return control();
  return unknown("vector name \"" + std::string(suffix) + "\" is not one tuner knows");
}

/// "virtio3-input.2" and friends: virtio-net's vectors, named after the virtio device.
std::optional<VectorRole> classify_virtio(std::string_view name) {
  if (!starts_with(name, "virtio")) return std::nullopt;
  std::size_t i = 6;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
  if (i == 6 || i >= name.size() || name[i] != '-') return std::nullopt;
  std::string_view rest = name.substr(i + 1);
  if (auto n = number_after(rest, "input.")) return queue(*n, QueueType::rx, rest);
  if (auto n = number_after(rest, "output.")) return queue(*n, QueueType::tx, rest);
  if (rest == "virtqueues") {
    // Fallback mode: one vector for every virtqueue (too few MSI-X vectors).
    VectorRole r;
    r.kind = IrqKind::queue;
    r.queue_type = QueueType::shared;
    r.label = std::string(rest);
    return r;
  }
  if (rest == "config" || rest == "control") return control();
  return unknown("virtio vector \"" + std::string(rest) + "\" is not virtio-net's");
}

/// Vectors named after the PCI function (mlx4, mlx5, gve, ena, hns3, and the Intel
/// drivers' non-queue vectors); nullopt when none of these.
std::optional<VectorRole> classify_by_driver(std::string_view name, const FunctionVectors& fn) {
  std::string_view base = before_at(name);
  if (auto n = number_after(base, "mlx5_comp")) {
    if (!fn.mlx5_comp_base)
      return unknown("mlx5 completion vector numbering unknown (no async vector, no mlx5_comp0)");
    if (*n < *fn.mlx5_comp_base) return unknown("mlx5 completion vector below the first");
    return queue(*n - *fn.mlx5_comp_base, QueueType::combined, base.substr(5));
  }
  if (number_after(base, "mlx5_async") || number_after(base, "mlx5_sf_ctrl") ||
      base == "mlx5_async")
    return control();
  if (number_after(base, "mlx5_combined") || number_after(base, "mlx5_sf_comp")) {
    // One vector for the whole device, or a sub-function's pooled vector that several
    // of its channels (and other sub-functions) may share.
    VectorRole r;
    r.kind = IrqKind::queue;
    r.queue_type = QueueType::shared;
    r.label = std::string(base.substr(5));
    return r;
  }
  if (base == "mlx4-async" || base == "gve-mgmnt" || base == "ena-mgmnt") return control();
  // mlx4: EQ 0 is the async EQ, so "mlx4-N" is completion vector N - 1; before 4.x
  // the completion vectors were named "mlx4-comp-N".
  if (auto n = number_after(base, "mlx4-comp-")) return queue(*n, QueueType::combined, base);
  if (auto n = number_after(base, "mlx4-")) {
    if (*n == 0) return control();
    return queue(*n - 1, QueueType::combined, base);
  }
  if (auto n = number_after(base, "gve-ntfy-blk")) {
    if (fn.gve_blocks == 0 || fn.gve_blocks % 2 != 0 || *n >= fn.gve_blocks)
      return unknown("gve notify blocks: " + std::to_string(fn.gve_blocks) +
                     " on this function, not an even count holding block " + std::to_string(*n));
    unsigned half = fn.gve_blocks / 2;
    return *n < half ? queue(*n, QueueType::tx, base) : queue(*n - half, QueueType::rx, base);
  }
  if (starts_with(base, "idpf-Mailbox-") || starts_with(base, "hclge-misc-") ||
      starts_with(base, "hclgevf-misc-"))
    return control();
  // hns3 "hns3-0000:7d:00.0-TxRx-2": driver, PCI address, then the queue form.
  if (starts_with(base, "hns3-") || starts_with(base, "hns3vf-")) {
    auto dash = base.find('-', base.find('-') + 1);
    if (dash != std::string_view::npos) return classify_suffix(base.substr(dash + 1));
  }
  // i40e/ice/iavf: "i40e-0000:3b:00.0:misc", ":ll_ts", ":mbx", and the flow director /
  // control VSI queues ":fdir-TxRx-0", ":ctrl-TxRx-0", which are not traffic queues.
  if (auto colon = base.rfind(':'); colon != std::string_view::npos) {
    std::string_view head = base.substr(0, colon);
    auto dash = head.find('-');
    if (dash != std::string_view::npos && std::count(head.begin(), head.end(), ':') == 2)
      return control();
  }
  return std::nullopt;
}

/// The netdev of `netdevs` the name carries at its start or after a '-', followed by
/// '-' or the end ("eth0-TxRx-3", "i40e-eth0-TxRx-3", "eth0"); the longest wins, so
/// eth1 never claims "eth10-TxRx-1". Returns the netdev and what follows it.
std::optional<std::pair<std::string, std::string_view>> named_netdev(
    std::string_view name, const std::vector<std::string>& netdevs) {
  std::optional<std::pair<std::string, std::string_view>> best;
  for (const std::string& n : netdevs) {
    if (n.empty() || (best && best->first.size() >= n.size())) continue;
    for (std::size_t at = name.find(n); at != std::string_view::npos; at = name.find(n, at + 1)) {
      std::size_t end = at + n.size();
      if ((at == 0 || name[at - 1] == '-') && (end == name.size() || name[end] == '-')) {
        best = {n, name.substr(end)};
        break;
      }
    }
  }
  return best;
}

}  // namespace

FunctionVectors summarize_vectors(const std::vector<std::string>& names) {
  FunctionVectors fn;
  std::optional<unsigned> async;
  bool comp0 = false, comp1 = false;
  for (const std::string& full : names) {
    std::string_view name = before_at(full);
    if (auto n = number_after(name, "mlx5_async")) async = *n;
    if (auto n = number_after(name, "mlx5_comp")) {
      comp0 |= *n == 0;
      comp1 |= *n == 1;
    }
    if (number_after(name, "gve-ntfy-blk")) ++fn.gve_blocks;
  }
  // Async last (5.16-6.3) or comp0 present: numbered from 0. Async at 0 with no comp0
  // but a comp1: the 6.4-6.9 names, numbered from 1.
  if ((async && *async > 0) || comp0) fn.mlx5_comp_base = 0;
  else if (async && comp1) fn.mlx5_comp_base = 1;
  return fn;
}

VectorRole classify_vector(std::string_view name, const std::vector<std::string>& netdevs,
                           const FunctionVectors& fn, bool by_address) {
  if (auto named = named_netdev(name, netdevs)) {
    // Exactly the netdev (ixgbe, igb, bnx2x, cxgb4 name their control vector so), or
    // a driver prefix before it ("iavf-eth0").
    VectorRole r = named->second.empty() ? control() : classify_suffix(named->second.substr(1));
    r.netdev = named->first;
    return r;
  }
  if (!by_address || netdevs.empty()) return {};
  std::optional<VectorRole> r = classify_virtio(name);
  if (!r) r = classify_by_driver(name, fn);
  if (!r) return {};
  if (netdevs.size() == 1) {
    r->netdev = netdevs.front();
  } else if (r->kind == IrqKind::queue && !r->ambiguous) {
    std::string list;
    for (const std::string& n : netdevs) list += (list.empty() ? "" : ", ") + n;
    r->ambiguous = "named by PCI address, and the function has several netdevs (" + list + ")";
  }
  return *r;
}

namespace {

constexpr std::array<EnumName<IrqKind>, 3> kIrqKinds = {{
    {IrqKind::other, "other"},
    {IrqKind::queue, "queue"},
    {IrqKind::control, "control"},
}};
static_assert(in_enum_order(kIrqKinds));

constexpr std::array<EnumName<QueueType>, 4> kQueueTypes = {{
    {QueueType::combined, "combined"},
    {QueueType::rx, "rx"},
    {QueueType::tx, "tx"},
    {QueueType::shared, "shared"},
}};
static_assert(in_enum_order(kQueueTypes));

}  // namespace

const char* irq_kind_name(IrqKind kind) { return enum_name(kIrqKinds, kind); }

const char* queue_type_name(QueueType type) { return enum_name(kQueueTypes, type); }

}  // namespace tuner
