// The vector names of each driver, as its snprintf() writes them (the table in
// probes/README.md). tuner/plan/irq_drivers_test.cc runs the common families end to end.
#include "probes/irq_names.h"

#include <doctest/doctest.h>

using namespace tuner;

namespace {

/// "q3", "rx3", "tx3", "shared", "control", "other", "ambiguous", with "@netdev" when
/// the role names one.
std::string role(std::string_view name, const std::vector<std::string>& netdevs = {"eth0"},
                 const FunctionVectors& fn = {}) {
  VectorRole r = classify_vector(name, netdevs, fn);
  std::string out;
  if (r.ambiguous) out = "ambiguous";
  else if (r.kind == IrqKind::control) out = "control";
  else if (r.kind == IrqKind::other) out = "other";
  else if (r.queue_type == QueueType::shared) out = "shared";
  else
    out = std::string(r.queue_type == QueueType::rx   ? "rx"
                      : r.queue_type == QueueType::tx ? "tx"
                                                      : "q") +
          std::to_string(*r.queue_index);
  return r.netdev ? out + "@" + *r.netdev : out;
}

}  // namespace

TEST_CASE("irq names: drivers that name vectors after the netdev") {
  CHECK(role("eth0-TxRx-3") == "q3@eth0");  // ixgbe, igb, bnxt_en
  CHECK(role("eth0-rx-2") == "rx2@eth0");   // igb, ixgbe, sfc split
  CHECK(role("eth0-tx-2") == "tx2@eth0");
  CHECK(role("eth0") == "control@eth0");         // ixgbe/igb/bnx2x/cxgb4 other vector
  CHECK(role("i40e-eth0-TxRx-3") == "q3@eth0");  // i40e, ice, iavf, idpf
  CHECK(role("iavf-eth0-TxRx-0") == "q0@eth0");
  CHECK(role("idpf-eth0-TxRx-1") == "q1@eth0");
  CHECK(role("eth0-Tx-Rx-5") == "q5@eth0");   // ena
  CHECK(role("eth0-fp-4") == "q4@eth0");      // qede, bnx2x
  CHECK(role("eth0-3") == "q3@eth0");         // sfc, bnx2
  CHECK(role("eth0-ptp") == "control@eth0");  // sfc
  CHECK(role("eth0-Rx2") == "rx2@eth0");      // cxgb4
  CHECK(role("eth0-FWeventq") == "control@eth0");
  CHECK(role("eth0-q3") == "q3@eth0");            // benet
  CHECK(role("eth0-rxtx-0") == "q0@eth0");        // nfp, vmxnet3
  CHECK(role("eth0-event-4") == "control@eth0");  // vmxnet3's event vector
  CHECK(role("eth0-weird-7") == "ambiguous@eth0");
  // The longest netdev that the name carries whole wins; a prefix of another never does.
  CHECK(role("eth10-TxRx-1", {"eth1", "eth10"}) == "q1@eth10");
  CHECK(role("eth10-TxRx-1", {"eth1"}) == "other");
  CHECK(role("ens1f0-TxRx-1", {"ens1f0", "ens1f0v1"}) == "q1@ens1f0");
}

TEST_CASE("irq names: vectors named after the PCI function or the virtio device") {
  CHECK(role("i40e-0000:3b:00.0:misc") == "control@eth0");
  CHECK(role("i40e-0000:3b:00.0:fdir-TxRx-0") == "control@eth0");
  CHECK(role("ice-0000:3b:00.0:ctrl-TxRx-0") == "control@eth0");
  CHECK(role("ice-0000:3b:00.0:ll_ts") == "control@eth0");
  CHECK(role("iavf-0000:3b:02.0:mbx") == "control@eth0");
  CHECK(role("idpf-Mailbox-0") == "control@eth0");
  CHECK(role("ena-mgmnt@pci:0000:00:05.0") == "control@eth0");
  CHECK(role("hns3-0000:7d:00.0-TxRx-2") == "q2@eth0");
  CHECK(role("hns3-0000:7d:00.0-Rx-2") == "rx2@eth0");
  CHECK(role("hclge-misc-0000:7d:00.0") == "control@eth0");
  CHECK(role("virtio0-input.3") == "rx3@eth0");
  CHECK(role("virtio0-output.3") == "tx3@eth0");
  CHECK(role("virtio0-config") == "control@eth0");
  CHECK(role("virtio0-virtqueues") == "shared@eth0");
  CHECK(role("virtio1-req.0") == "ambiguous@eth0");  // virtio-blk: not a NIC's
  CHECK(role("mlx4-async@pci:0000:82:00.0") == "control@eth0");
  CHECK(role("mlx4-1@0000:82:00.0") == "q0@eth0");
  CHECK(role("mlx4-comp-0@pci:0000:82:00.0") == "q0@eth0");
  CHECK(role("mlx5_sf_ctrl0@pci:0000:3b:00.0") == "control@eth0");
  CHECK(role("mlx5_sf_comp3@pci:0000:3b:00.0") == "shared@eth0");
  CHECK(role("mlx5_combined0@pci:0000:3b:00.0") == "shared@eth0");
  CHECK(role("qib0 (sdma 0)") == "other");
  CHECK(role("nvme0q1", {}) == "other");  // a function without netdevs: not looked at
  // Several netdevs on the function: a queue named by address belongs to none of them.
  CHECK(role("mlx4-1@0000:82:00.0", {"eth0", "eth1"}) == "ambiguous");
  CHECK(role("mlx4-async@pci:0000:82:00.0", {"eth0", "eth1"}) == "control");
  // Outside any function's msi_irqs only a name that names a netdev is trusted.
  CHECK(classify_vector("virtio0-input.0", {"eth0"}, {}, false).kind == IrqKind::other);
  CHECK(classify_vector("eth0-TxRx-0", {"eth0"}, {}, false).netdev == "eth0");
}

TEST_CASE("irq names: mlx5 numbers its completion vectors by where async sits") {
  FunctionVectors up_to_5_15 =
      summarize_vectors({"mlx5_async0@pci:x", "mlx5_comp0@pci:x", "mlx5_comp1@pci:x"});
  FunctionVectors v5_16 =
      summarize_vectors({"mlx5_comp0@pci:x", "mlx5_comp1@pci:x", "mlx5_async2@pci:x"});
  FunctionVectors v6_4 =
      summarize_vectors({"mlx5_async0@pci:x", "mlx5_comp1@pci:x", "mlx5_comp2@pci:x"});
  FunctionVectors unknown = summarize_vectors({"mlx5_comp1@pci:x", "mlx5_comp2@pci:x"});
  CHECK(up_to_5_15.mlx5_comp_base == 0u);
  CHECK(v5_16.mlx5_comp_base == 0u);
  CHECK(v6_4.mlx5_comp_base == 1u);
  CHECK_FALSE(unknown.mlx5_comp_base.has_value());
  CHECK(role("mlx5_comp1@pci:x", {"p0"}, up_to_5_15) == "q1@p0");
  CHECK(role("mlx5_comp1@pci:x", {"p0"}, v6_4) == "q0@p0");
  CHECK(role("mlx5_comp1@pci:x", {"p0"}, unknown) == "ambiguous@p0");
  CHECK(role("mlx5_async2@pci:x", {"p0"}, v5_16) == "control@p0");
}

TEST_CASE("irq names: gve's notify blocks are TX first, then RX") {
  FunctionVectors six;
  six.gve_blocks = 6;
  CHECK(role("gve-ntfy-blk0@pci:0000:00:04.0", {"ens4"}, six) == "tx0@ens4");
  CHECK(role("gve-ntfy-blk2@pci:0000:00:04.0", {"ens4"}, six) == "tx2@ens4");
  CHECK(role("gve-ntfy-blk3@pci:0000:00:04.0", {"ens4"}, six) == "rx0@ens4");
  CHECK(role("gve-mgmnt@pci:0000:00:04.0", {"ens4"}, six) == "control@ens4");
  FunctionVectors odd;
  odd.gve_blocks = 5;  // a capture that lost a vector: the split is unknown
  CHECK(role("gve-ntfy-blk3@pci:0000:00:04.0", {"ens4"}, odd) == "ambiguous@ens4");
}
