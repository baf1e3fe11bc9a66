// NIC vector names: what each common driver calls its queue and control vectors, and
// how the driver numbers its queues. Pure functions on names, so every rule is tested
// on the names the drivers' snprintf() calls produce. The table per driver is in
// probes/README.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/inventory.h"

namespace tuner {

/// Facts about all the vectors of one PCI function that decide how a single name is
/// read: drivers whose numbers are not queue numbers need to see their siblings.
struct FunctionVectors {
  /// mlx5: the number of the first completion vector's name. 0 on kernels up to 5.15
  /// (async at index 0, comp = index - 1), 5.16-6.3 (async at the last index) and from
  /// about 6.10; 1 on 6.4-6.9, where "mlx5_comp1" is the first. nullopt when the names
  /// do not say (no async vector and no "mlx5_comp0").
  std::optional<unsigned> mlx5_comp_base;
  /// gve: how many notify blocks the function has (first half TX, second half RX).
  unsigned gve_blocks = 0;
};

/// Reads the names of one function's vectors (each IRQ's action names).
FunctionVectors summarize_vectors(const std::vector<std::string>& names);

/// What one vector name says.
struct VectorRole {
  IrqKind kind = IrqKind::other;
  std::optional<unsigned> queue_index;
  std::optional<QueueType> queue_type;
  /// The netdev the name names, or the only candidate for a name keyed by PCI address.
  std::optional<std::string> netdev;
  std::optional<std::string> ambiguous;
  /// The queue part of the name for Irq::queue ("TxRx-3", "comp3", "input.0").
  std::optional<std::string> label;
};

/// Classifies one action name of a vector of a PCI function whose netdevs are
/// `netdevs` (the name picks among them; a name keyed by PCI address belongs to the
/// function's only netdev, and is ambiguous when it has several). `by_address` is
/// false when the IRQ is not in any function's msi_irqs: then only a name that names
/// one of `netdevs` is trusted.
VectorRole classify_vector(std::string_view name, const std::vector<std::string>& netdevs,
                           const FunctionVectors& fn, bool by_address = true);

/// "queue", "control", "other" and "combined", "rx", "tx", "shared" (JSON edge).
const char* irq_kind_name(IrqKind kind);
const char* queue_type_name(QueueType type);

}  // namespace tuner
