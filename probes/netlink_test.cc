// Parsers on real kernel replies recorded from this machine (tests/fixtures/netlink,
// see netlink_record_test.cc), on synthetic bitsets, and on broken buffers.
#include <doctest/doctest.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <random>

#include "probes/ethtool_bitset.h"
#include "probes/ethtool_msg.h"
#include "tests/support/files.h"

namespace tuner {
namespace {

std::string fixture(const std::string& name) { return testing::read_test_data("netlink/" + name); }

LinkInfo modes(const std::string& file, const std::vector<std::string>& names = {}) {
  LinkInfo info;
  auto ok = parse_linkmodes_reply(fixture(file), names, info);
  REQUIRE_MESSAGE(ok.ok(), ok.error().message());
  return info;
}

std::vector<std::string> kernel_link_modes() {
  auto names = parse_link_mode_names(fixture("STRSET_GET-global-compact.bin"));
  REQUIRE_MESSAGE(names.ok(), names.error().message());
  return *names;
}

// A LINKMODES_GET_REPLY carrying one OURS bitset, built the way the kernel lays it out,
// and the partner's modes as a compact no-mask PEER list when `peer` names any.
std::string linkmodes_with_bitset(bool compact, uint32_t size,
                                  const std::vector<std::pair<uint32_t, bool>>& bits,
                                  const std::vector<uint32_t>& peer = {}) {
  std::vector<uint32_t> buf(1024);
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = 20;
  auto* g = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
  g->cmd = ETHTOOL_MSG_LINKMODES_GET_REPLY;
  mnl_attr_put_u8(nlh, ETHTOOL_A_LINKMODES_AUTONEG, AUTONEG_ENABLE);
  mnl_attr_put_u32(nlh, ETHTOOL_A_LINKMODES_SPEED, 25000);
  mnl_attr_put_u8(nlh, ETHTOOL_A_LINKMODES_DUPLEX, DUPLEX_FULL);
  nlattr* ours = mnl_attr_nest_start(nlh, ETHTOOL_A_LINKMODES_OURS);
  mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_SIZE, size);
  if (compact) {
    std::vector<uint32_t> value((size + 31) / 32), mask((size + 31) / 32);
    for (auto [bit, on] : bits) {
      mask[bit / 32] |= 1u << (bit % 32);
      if (on) value[bit / 32] |= 1u << (bit % 32);
    }
    mnl_attr_put(nlh, ETHTOOL_A_BITSET_VALUE, value.size() * 4, value.data());
    mnl_attr_put(nlh, ETHTOOL_A_BITSET_MASK, mask.size() * 4, mask.data());
  } else {
    nlattr* list = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
    for (auto [bit, on] : bits) {
      nlattr* b = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);
      mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_BIT_INDEX, bit);
      mnl_attr_put_strz(nlh, ETHTOOL_A_BITSET_BIT_NAME, ("mode" + std::to_string(bit)).c_str());
      if (on) mnl_attr_put(nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, nullptr);
      mnl_attr_nest_end(nlh, b);
    }
    mnl_attr_nest_end(nlh, list);
  }
  mnl_attr_nest_end(nlh, ours);
  if (!peer.empty()) {
    nlattr* nest = mnl_attr_nest_start(nlh, ETHTOOL_A_LINKMODES_PEER);
    mnl_attr_put(nlh, ETHTOOL_A_BITSET_NOMASK, 0, nullptr);
    mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_SIZE, size);
    std::vector<uint32_t> value((size + 31) / 32);
    for (uint32_t bit : peer) value[bit / 32] |= 1u << (bit % 32);
    mnl_attr_put(nlh, ETHTOOL_A_BITSET_VALUE, value.size() * 4, value.data());
    mnl_attr_nest_end(nlh, nest);
  }
  return {reinterpret_cast<const char*>(buf.data()), nlh->nlmsg_len};
}

}  // namespace

TEST_CASE("netlink fixtures: virtio eth0 reports unknown speed and duplex") {
  for (const char* form : {"verbose", "compact"}) {
    CAPTURE(form);
    LinkInfo info = modes(std::string("LINKMODES_GET-eth0-") + form + ".bin", kernel_link_modes());
    CHECK_FALSE(info.speed_mbps.has_value());  // SPEED_UNKNOWN, as /sys/class/net/eth0/speed -1
    CHECK_FALSE(info.duplex.has_value());      // DUPLEX_UNKNOWN
    CHECK(info.autoneg == false);
    CHECK(info.supported_modes.empty());  // virtio reports no link modes
    CHECK(parse_linkinfo_reply(fixture(std::string("LINKINFO_GET-eth0-") + form + ".bin"), info)
              .ok());
    CHECK(info.port == "OTHER");
    CHECK(parse_linkstate_reply(fixture(std::string("LINKSTATE_GET-eth0-") + form + ".bin"), info)
              .ok());
    CHECK(info.up == true);
  }
  auto ch = parse_channels_reply(fixture("CHANNELS_GET-eth0-verbose.bin"));
  REQUIRE(ch.ok());
  CHECK(ch->combined == 1u);
  CHECK(ch->combined_max == 1u);
  CHECK_FALSE(ch->rx.has_value());  // the kernel leaves out counts whose maximum is 0
  CHECK_FALSE(ch->rx_max.has_value());
  auto rings = parse_rings_reply(fixture("RINGS_GET-eth0-verbose.bin"));
  REQUIRE(rings.ok());
  CHECK(rings->rx == 256u);
  CHECK(rings->tx == 256u);
  CHECK(rings->rx_max == 256u);
  CHECK(rings->tx_max == 256u);
  // virtio_net without VIRTIO_NET_F_NOTF_COAL: usecs 0, one frame per interrupt, and
  // no adaptive-tx (not supported and off, so the kernel leaves it out).
  for (const char* form : {"verbose", "compact"}) {
    CAPTURE(form);
    auto c = parse_coalesce_reply(fixture(std::string("COALESCE_GET-eth0-") + form + ".bin"));
    REQUIRE(c.ok());
    CHECK(c->rx_usecs == 0u);
    CHECK(c->rx_frames == 1u);
    CHECK(c->tx_usecs == 0u);
    CHECK(c->tx_frames == 1u);
    CHECK(c->adaptive_rx == false);
    CHECK_FALSE(c->adaptive_tx.has_value());
  }
}

TEST_CASE("netlink fixtures: veth reports 10000/full, 4 queues") {
  for (const char* form : {"verbose", "compact"}) {
    CAPTURE(form);
    LinkInfo info = modes(std::string("LINKMODES_GET-va-") + form + ".bin", kernel_link_modes());
    CHECK(info.speed_mbps == 10000u);
    CHECK(info.duplex == Duplex::full);
    CHECK(info.autoneg == false);
    CHECK(
        parse_linkinfo_reply(fixture(std::string("LINKINFO_GET-va-") + form + ".bin"), info).ok());
    CHECK(info.port == "TP");
  }
  auto ch = parse_channels_reply(fixture("CHANNELS_GET-va-compact.bin"));
  REQUIRE(ch.ok());
  CHECK(ch->rx == 4u);  // created with numrxqueues 4 numtxqueues 4
  CHECK(ch->tx == 4u);
  CHECK(ch->rx_max == 4u);
  CHECK_FALSE(ch->combined.has_value());
}

TEST_CASE("netlink fixtures: kernel errors carry errno and extended ACK text") {
  // lo has no get_link_ksettings: EOPNOTSUPP with the kernel's reason.
  LinkInfo info;
  auto r = parse_linkmodes_reply(fixture("LINKMODES_GET-lo-verbose-error.bin"), {}, info);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().err == EOPNOTSUPP);
  CHECK(r.error().message().find("failed to retrieve link settings") != std::string::npos);
  auto ack = parse_ack(fixture("RINGS_GET-va-verbose-error.bin"));
  REQUIRE(ack.ok());
  CHECK(ack->error == EOPNOTSUPP);
  // veth has no coalescing: the probe leaves it out of the inventory on this errno.
  auto coal = parse_coalesce_reply(fixture("COALESCE_GET-va-verbose-error.bin"));
  REQUIRE_FALSE(coal.ok());
  auto coal_ack = parse_ack(fixture("COALESCE_GET-va-compact-error.bin"));
  REQUIRE(coal_ack.ok());
  CHECK(coal_ack->error == EOPNOTSUPP);
  // A reply of the wrong kind is refused rather than misread.
  CHECK_FALSE(parse_rings_reply(fixture("CHANNELS_GET-eth0-verbose.bin")).ok());
}

TEST_CASE("netlink fixtures: link mode names and family id") {
  auto names = kernel_link_modes();
  REQUIRE(names.size() > ETHTOOL_LINK_MODE_10000baseT_Full_BIT);
  CHECK(names[ETHTOOL_LINK_MODE_10baseT_Half_BIT] == "10baseT/Half");
  CHECK(names[ETHTOOL_LINK_MODE_25000baseSR_Full_BIT] == "25000baseSR/Full");
  CHECK(names[ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT] == "100000baseCR4/Full");
  for (const auto& n : names) CHECK_FALSE(n.empty());
  auto id = parse_family_reply(fixture("GETFAMILY-ethtool-verbose.bin"));
  REQUIRE(id.ok());
  CHECK(*id >= GENL_MIN_ID);
}

TEST_CASE("netlink bitsets: compact and verbose give the same modes") {
  auto names = kernel_link_modes();
  std::vector<std::pair<uint32_t, bool>> bits = {
      {ETHTOOL_LINK_MODE_10000baseT_Full_BIT, true},
      {ETHTOOL_LINK_MODE_25000baseSR_Full_BIT, true},
      {ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT, false},  // supported, not advertised
  };
  auto size = static_cast<uint32_t>(names.size());
  LinkInfo compact, verbose;
  REQUIRE(parse_linkmodes_reply(linkmodes_with_bitset(true, size, bits), names, compact).ok());
  REQUIRE(parse_linkmodes_reply(linkmodes_with_bitset(false, size, bits), {}, verbose).ok());
  CHECK(compact.supported_modes ==
        std::vector<std::string>{"10000baseT/Full", "25000baseSR/Full", "100000baseCR4/Full"});
  CHECK(compact.advertised_modes ==
        std::vector<std::string>{"10000baseT/Full", "25000baseSR/Full"});
  CHECK(compact.speed_mbps == 25000u);
  CHECK(compact.autoneg == true);
  // Verbose bitsets carry their own names (here "modeN", proving they are used).
  CHECK(verbose.supported_modes.size() == 3);
  CHECK(verbose.advertised_modes ==
        std::vector<std::string>{"mode" + std::to_string(ETHTOOL_LINK_MODE_10000baseT_Full_BIT),
                                 "mode" + std::to_string(ETHTOOL_LINK_MODE_25000baseSR_Full_BIT)});
  // Compact without a string set still names every bit.
  LinkInfo unnamed;
  REQUIRE(parse_linkmodes_reply(linkmodes_with_bitset(true, size, bits), {}, unnamed).ok());
  CHECK(unnamed.advertised_modes.front() ==
        "bit " + std::to_string(ETHTOOL_LINK_MODE_10000baseT_Full_BIT));
}

TEST_CASE("netlink LINKMODES: the link partner's modes come from PEER, absent is empty") {
  auto names = kernel_link_modes();
  auto size = static_cast<uint32_t>(names.size());
  std::vector<std::pair<uint32_t, bool>> ours = {{ETHTOOL_LINK_MODE_25000baseSR_Full_BIT, true}};
  LinkInfo info;
  info.partner_modes = {"stale"};  // a reply without PEER clears what was there
  REQUIRE(parse_linkmodes_reply(linkmodes_with_bitset(true, size, ours), names, info).ok());
  CHECK(info.partner_modes.empty());
  REQUIRE(parse_linkmodes_reply(linkmodes_with_bitset(true, size, ours,
                                                      {ETHTOOL_LINK_MODE_10000baseT_Full_BIT,
                                                       ETHTOOL_LINK_MODE_25000baseSR_Full_BIT}),
                                names, info)
              .ok());
  CHECK(info.partner_modes == std::vector<std::string>{"10000baseT/Full", "25000baseSR/Full"});
}

TEST_CASE("netlink bitsets: inconsistent bitsets are errors") {
  LinkInfo info;
  // A bit index past the declared size.
  auto r = parse_linkmodes_reply(linkmodes_with_bitset(false, 8, {{9, true}}), {}, info);
  CHECK_FALSE(r.ok());
  // Value/mask arrays shorter than the size needs: build with 32 bits, claim 64.
  std::string msg = linkmodes_with_bitset(true, 32, {{3, true}});
  size_t at = msg.find(std::string("\x08\x00\x02\x00\x20\x00\x00\x00", 8));  // SIZE=32
  REQUIRE(at != std::string::npos);
  msg[at + 4] = 64;
  CHECK_FALSE(parse_linkmodes_reply(msg, {}, info).ok());
  CHECK(info.supported_modes.empty());  // failed parses change nothing
}

TEST_CASE("netlink parsers: truncated and corrupted replies give errors, never crash") {
  const char* files[] = {"LINKMODES_GET-eth0-verbose.bin", "LINKMODES_GET-va-compact.bin",
                         "LINKINFO_GET-va-verbose.bin",    "LINKSTATE_GET-eth0-verbose.bin",
                         "CHANNELS_GET-va-verbose.bin",    "RINGS_GET-eth0-compact.bin",
                         "COALESCE_GET-eth0-verbose.bin",  "STRSET_GET-global-compact.bin",
                         "GETFAMILY-ethtool-verbose.bin",  "LINKMODES_GET-lo-verbose-error.bin"};
  auto parse_all = [](std::string_view m) {
    LinkInfo info;
    int ok = 0;
    ok += parse_linkmodes_reply(m, {}, info).ok();
    ok += parse_linkinfo_reply(m, info).ok();
    ok += parse_linkstate_reply(m, info).ok();
    ok += parse_channels_reply(m).ok();
    ok += parse_rings_reply(m).ok();
    ok += parse_coalesce_reply(m).ok();
    ok += parse_link_mode_names(m).ok();
    ok += parse_family_reply(m).ok();
    ok += parse_ack(m).ok();
    return ok;
  };
  std::mt19937 rng(42);  // NOLINT(cert-msc32-c,cert-msc51-cpp): a reproducible test
  for (const char* f : files) {
    CAPTURE(f);
    std::string full = fixture(f);
    CHECK(parse_all(full) == 1);  // exactly its own parser accepts it
    for (size_t len = 0; len < full.size(); ++len) {
      CAPTURE(len);
      CHECK(parse_all(std::string_view(full).substr(0, len)) == 0);
    }
    // Random byte corruption: any outcome but a crash or an out-of-bounds read (ASan).
    for (int round = 0; round < 2000; ++round) {
      std::string bad = full;
      for (int k = 0; k < 3; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
      (void)parse_all(bad);
    }
  }
}

// fuzz/corpus/netlink/crash-ack-length-2g, found by fuzz_netlink: an NLMSG_ERROR whose
// nlmsg_len (0xc4880024) is 2^31 or more passed libmnl's int comparison, and parse_ack
// walked its TLVs gigabytes past the 69 bytes received (SEGV in mnl_attr_ok).
TEST_CASE("netlink parsers: a length of 2^31 or more is no whole message") {
  const std::string msg("\x24\x00\x88\xc4\x02\x00\xff\xfe\xff\xff\xff\xff\xff\xff\xff\xff"
                        "\xff\xff\xff\x61\xb8\x9b\x15\xb5\x55\x00\x00\xff\xff\xff\xff\xff"
                        "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xee\xff\xff\xdf"
                        "\xb8\xc5\x00\x00\xa1\xff\xff\xff\x28\x00\x00\x00\xff\xff\xff\xff"
                        "\xff\xff\xff\xff\xff",
                        69);
  CHECK_FALSE(parse_ack(msg).ok());
  CHECK_FALSE(parse_family_reply(msg).ok());
  std::vector<uint32_t> buf(8, 0);
  auto* nlh = reinterpret_cast<nlmsghdr*>(buf.data());
  nlh->nlmsg_len = 0x80000000u;
  CHECK_FALSE(nlmsg_fits(nlh, 32));
  nlh->nlmsg_len = 32;
  CHECK(nlmsg_fits(nlh, 32));
  CHECK_FALSE(nlmsg_fits(nlh, 31));
  nlh->nlmsg_len = 8;  // shorter than its own header
  CHECK_FALSE(nlmsg_fits(nlh, 32));
}

TEST_CASE("netlink requests: SET messages validate their input") {
  LinkModesRequest req;
  CHECK_FALSE(build_linkmodes_set(20, "eth0", req, 1).ok());  // nothing to set
  req.duplex = Duplex::full;
  req.speed_mbps = 25000;
  CHECK(build_linkmodes_set(20, "eth0", req, 1).ok());
  CHECK_FALSE(build_linkmodes_set(20, "a-name-longer-than-15", req, 1).ok());
  LinkModesRequest adv;
  adv.advertise = {"10baseT/Half", "10baseT/Full", "1000baseT/Full"};
  auto ok = build_linkmodes_set(20, "eth0", adv, 1);
  REQUIRE(ok.ok());
  // The mode names travel verbatim inside the OURS nest.
  CHECK(ok->bytes().find("1000baseT/Full") != std::string_view::npos);
  CHECK(ok->bytes().find("10baseT/Half") != std::string_view::npos);
  adv.advertise.emplace_back(100, 'x');
  CHECK_FALSE(build_linkmodes_set(20, "eth0", adv, 1).ok());
  CHECK_FALSE(build_channels_set(20, "eth0", Channels{}, 1).ok());
  CHECK_FALSE(build_rings_set(20, "eth0", Rings{}, 1).ok());
}

TEST_CASE("netlink requests: COALESCE_SET carries only the fields set") {
  CHECK_FALSE(build_coalesce_set(20, "eth0", Coalesce{}, 1).ok());
  Coalesce c;
  c.rx_usecs = 8;
  c.adaptive_rx = false;  // set to off is set: it travels
  auto req = build_coalesce_set(20, "eth0", c, 1);
  REQUIRE(req.ok());
  std::string_view bytes = req->bytes();
  std::vector<uint16_t> types;
  for (size_t off = NLMSG_HDRLEN + GENL_HDRLEN; off < bytes.size();) {
    auto type = attr_type_at(bytes, static_cast<uint32_t>(off));
    REQUIRE(type.has_value());
    types.push_back(*type);
    nlattr a{};
    std::memcpy(&a, bytes.data() + off, sizeof(a));
    off += NLA_ALIGN(a.nla_len);
  }
  CHECK(types == std::vector<uint16_t>{ETHTOOL_A_COALESCE_HEADER, ETHTOOL_A_COALESCE_RX_USECS,
                                       ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX});
  CHECK(std::string(coalesce_field_name(ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX)) == "adaptive-rx");
  CHECK(std::string(coalesce_field_name(ETHTOOL_A_COALESCE_RX_MAX_FRAMES)) == "rx-frames");
  CHECK(coalesce_field_name(ETHTOOL_A_COALESCE_HEADER) == nullptr);
  CHECK_FALSE(attr_type_at(bytes, 2).has_value());  // inside the netlink header
  CHECK_FALSE(attr_type_at(bytes, static_cast<uint32_t>(bytes.size())).has_value());
}

TEST_CASE("netlink parsers: a COALESCE_GET reply, field by field") {
  std::vector<uint32_t> buf(64);
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = 20;
  auto* g = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
  g->cmd = ETHTOOL_MSG_COALESCE_GET_REPLY;
  mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_RX_USECS, 8);
  mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_TX_MAX_FRAMES, 0);
  mnl_attr_put_u8(nlh, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 1);
  std::string msg(reinterpret_cast<const char*>(buf.data()), nlh->nlmsg_len);
  auto c = parse_coalesce_reply(msg);
  REQUIRE(c.ok());
  CHECK(c->rx_usecs == 8u);
  CHECK(c->tx_frames == 0u);
  CHECK(c->adaptive_rx == true);
  CHECK_FALSE(c->tx_usecs.has_value());  // not sent: a field the driver cannot change
  CHECK_FALSE(c->adaptive_tx.has_value());
  mnl_attr_put_u8(nlh, ETHTOOL_A_COALESCE_TX_USECS, 1);  // a u8 where a u32 belongs
  CHECK_FALSE(
      parse_coalesce_reply(std::string(reinterpret_cast<const char*>(buf.data()), nlh->nlmsg_len))
          .ok());
}

TEST_CASE("netlink parsers: an extended ACK's offset names the refused attribute") {
  std::vector<uint32_t> buf(64);
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = NLMSG_ERROR;
  nlh->nlmsg_flags = NLM_F_ACK_TLVS | NLM_F_CAPPED;
  auto* err = static_cast<nlmsgerr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(nlmsgerr)));
  err->error = -EINVAL;
  err->msg.nlmsg_len = 44;
  mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "cannot modify an unsupported parameter");
  mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, 36);
  auto ack = parse_ack(std::string(reinterpret_cast<const char*>(buf.data()), nlh->nlmsg_len));
  REQUIRE(ack.ok());
  CHECK(ack->error == EINVAL);
  CHECK(ack->message == "cannot modify an unsupported parameter");
  CHECK(ack->bad_attr_offset == 36u);
}

}  // namespace tuner
