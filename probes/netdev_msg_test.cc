// The netdev family's napi-get and queue-get: recorded kernel dumps, replies built the
// way the kernel builds them where no recording holds an IRQ, and the live kernel.
#include "probes/netdev_msg.h"

#include <doctest/doctest.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>

#include "base/strings.h"
#include "probes/irq.h"
#include "probes/netdev_netlink.h"
#include "probes/root.h"
#include "tests/support/files.h"

using namespace tuner;

namespace {

std::string recorded(const std::string& name) { return testing::read_test_data("netlink/" + name); }

/// One netdev message as the kernel's netdev_nl_napi_fill_one() / queue fill writes it.
std::string message(uint8_t cmd, const std::vector<std::pair<uint16_t, uint32_t>>& attrs) {
  std::vector<uint32_t> buf(256);
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = 20;
  nlh->nlmsg_flags = NLM_F_MULTI;
  auto* genl = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
  genl->cmd = cmd;
  genl->version = 1;
  for (auto [type, value] : attrs) mnl_attr_put_u32(nlh, type, value);
  return {reinterpret_cast<const char*>(buf.data()), nlh->nlmsg_len};
}

std::string done() {
  std::vector<uint32_t> buf(16);
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = NLMSG_DONE;
  nlh->nlmsg_flags = NLM_F_MULTI;
  *static_cast<int32_t*>(mnl_nlmsg_put_extra_header(nlh, sizeof(int32_t))) = 0;
  return {reinterpret_cast<const char*>(buf.data()), nlh->nlmsg_len};
}

}  // namespace

TEST_CASE("netdev netlink: the recorded 6.18 virtio_net dumps") {
  auto napis = parse_napi_dump(recorded("NAPI_GET-eth0.bin"));
  REQUIRE(napis.ok());
  REQUIRE(napis->size() == 1);
  CHECK(napis->at(0).id == 257);
  CHECK(napis->at(0).ifindex == 4);
  CHECK_FALSE(napis->at(0).irq.has_value());  // virtio_net does not register it
  auto queues = parse_queue_dump(recorded("QUEUE_GET-eth0.bin"));
  REQUIRE(queues.ok());
  REQUIRE(queues->size() == 2);
  CHECK_FALSE(queues->at(0).tx);
  CHECK(queues->at(0).napi_id == 257u);
  CHECK(queues->at(1).tx);
  CHECK_FALSE(queues->at(1).napi_id.has_value());
  CHECK(napi_irq_roles(*napis, *queues).empty());  // no IRQ: the names decide

  auto gone = parse_napi_dump(recorded("NAPI_GET-nosuchdev-error.bin"));
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().err == ENODEV);
}

TEST_CASE("netdev netlink: NAPIs with IRQs give each IRQ its queues") {
  using namespace netdev_nl;
  std::string napi_dump =
      message(kCmdNapiGet, {{kNapiId, 8193}, {kNapiIfindex, 7}, {kNapiIrq, 150}}) +
      message(kCmdNapiGet, {{kNapiId, 8194}, {kNapiIfindex, 7}, {kNapiIrq, 151}}) +
      message(kCmdNapiGet, {{kNapiId, 8195}, {kNapiIfindex, 7}, {kNapiIrq, 152}}) +
      message(kCmdNapiGet, {{kNapiId, 8196}, {kNapiIfindex, 7}}) + done();
  auto q = [](uint32_t id, uint32_t type, uint32_t napi) {
    return message(kCmdQueueGet,
                   {{kQueueId, id}, {kQueueIfindex, 7}, {kQueueType, type}, {kQueueNapiId, napi}});
  };
  // 8193 polls RX 0 and TX 0; 8194 RX 1 only; 8195 TX 1 and TX 2 (a shared TX vector).
  std::string queue_dump = q(0, kQueueTypeRx, 8193) + q(1, kQueueTypeRx, 8194) +
                           q(0, kQueueTypeTx, 8193) + q(1, kQueueTypeTx, 8195) +
                           q(2, kQueueTypeTx, 8195) + done();
  auto napis = parse_napi_dump(napi_dump);
  auto queues = parse_queue_dump(queue_dump);
  REQUIRE(napis.ok());
  REQUIRE(queues.ok());
  CHECK(napis->size() == 4);
  CHECK(napis->at(0).irq == 150u);
  CHECK_FALSE(napis->at(3).irq.has_value());
  auto roles = napi_irq_roles(*napis, *queues);
  REQUIRE(roles.size() == 3);
  CHECK(roles[150].queue_type == QueueType::combined);
  CHECK(roles[150].queue_index == 0u);
  CHECK(roles[151].queue_type == QueueType::rx);
  CHECK(roles[151].queue_index == 1u);
  CHECK(roles[152].queue_type == QueueType::shared);
  CHECK_FALSE(roles[152].queue_index.has_value());

  // Truncated and malformed dumps are errors, never a read past the buffer.
  for (std::size_t n = 1; n < napi_dump.size(); n += 7) {
    auto r = parse_napi_dump(napi_dump.substr(0, n));
    if (!r.ok()) CHECK(r.error().kind == ErrorKind::invalid);
  }
  CHECK_FALSE(parse_napi_dump(queue_dump).ok());  // a queue message is not a NAPI
}

// fuzz/corpus/netlink/crash-done-errno-int-min, found by fuzz_netlink: a dump's NLMSG_DONE
// carrying INT_MIN as its error was negated (undefined); so was an NLMSG_ERROR's.
TEST_CASE("netdev netlink: an error code that is no errno is an error, not a negation") {
  auto header = [](uint16_t type, uint32_t len) {
    nlmsghdr h{};
    h.nlmsg_len = len;
    h.nlmsg_type = type;
    return std::string(reinterpret_cast<const char*>(&h), sizeof h);
  };
  auto code = [](int32_t e) { return std::string(reinterpret_cast<const char*>(&e), sizeof e); };
  std::string done = header(NLMSG_DONE, 20) + code(INT32_MIN);
  auto napis = parse_napi_dump(done);
  REQUIRE_FALSE(napis.ok());
  CHECK(napis.error().message().find("-2147483648") != std::string::npos);
  CHECK_FALSE(parse_queue_dump(done).ok());
  CHECK_FALSE(parse_napi_dump(header(NLMSG_DONE, 20) + code(-4096)).ok());
  auto enodev = parse_napi_dump(header(NLMSG_DONE, 20) + code(-ENODEV));
  REQUIRE_FALSE(enodev.ok());
  CHECK(enodev.error().err == ENODEV);
  // NLMSG_ERROR: the error code, then the echoed request's header.
  std::string error = header(NLMSG_ERROR, 36) + code(INT32_MIN) + header(0, 16);
  CHECK_FALSE(parse_ack(error).ok());
  auto ack = parse_ack(header(NLMSG_ERROR, 36) + code(-EPERM) + header(0, 16));
  REQUIRE(ack.ok());
  CHECK(ack->error == EPERM);
}

TEST_CASE("netdev netlink: live napi-get agrees with msi_irqs where the kernel has it") {
  auto nl = open_netdev_netlink();
  if (!nl.ok()) {
    // Kernels before 6.3: the controller refuses the family name (NlSocket's refusal).
    CHECK(nl.error().is(ErrorKind::missing));
    CHECK(nl.error().err == ENOENT);
    MESSAGE("skipped: " << nl.error().message());
    return;
  }
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/net")) {
    std::string name = e.path().filename().string();
    auto ifindex = parse_u64(testing::sysfs_value(e.path().string() + "/ifindex"));
    REQUIRE(ifindex.has_value());
    auto napis = (*nl)->napis(static_cast<uint32_t>(*ifindex));
    if (!napis.ok()) {
      CHECK(napis.error().err == EOPNOTSUPP);  // before napi-get (6.3-6.7)
      MESSAGE("skipped: " << napis.error().message());
      return;
    }
    auto queues = (*nl)->queues(static_cast<uint32_t>(*ifindex));
    REQUIRE(queues.ok());
    for (const NapiInfo& n : *napis) {
      CHECK(n.ifindex == *ifindex);
      if (!n.irq) continue;
      // A NAPI's IRQ is one of the device's own vectors.
      std::error_code ec;
      auto dev = std::filesystem::canonical(e.path() / "device", ec);
      REQUIRE_FALSE(ec);
      if (dev.filename().string().rfind("virtio", 0) == 0) dev = dev.parent_path();
      CHECK(std::filesystem::exists(dev / "msi_irqs" / std::to_string(*n.irq)));
    }
    for (const NetdevQueue& q : *queues) CHECK(q.ifindex == *ifindex);
  }
  // What the probe makes of it: every IRQ the kernel ties to a queue is a NIC's queue.
  std::vector<ProbeError> errors;
  for (const Irq& irq : probe_irqs(Root::live(), errors, nl->get()))
    if (irq.source == "netlink") {
      CHECK(irq.kind == IrqKind::queue);
      CHECK(irq.device.has_value());
    }
}
