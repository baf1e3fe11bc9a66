// The ioctl backend's structs on literal values: the link-settings handshake and
// buffer, what each GET reports (as netlink reports it), and what each SET sends.
#include "probes/ethtool_ioctl_msg.h"

#include <doctest/doctest.h>

#include <cstring>

#include "probes/link_modes.h"

namespace tuner {
namespace {

std::vector<std::string> names() {
  auto b = builtin_link_mode_names();
  return {b.begin(), b.end()};
}

// A 1000baseT copper port (e1000-like): 10/100 half and full, 1000 full, Autoneg, TP;
// masks of 4 words, as a 6.x kernel's handshake says.
LinkSettings copper(uint32_t speed = 1000) {
  LinkSettings s;
  ethtool_link_settings b{};
  b.cmd = ETHTOOL_GLINKSETTINGS;
  b.speed = speed;
  b.duplex = DUPLEX_FULL;
  b.port = PORT_TP;
  b.autoneg = AUTONEG_ENABLE;
  b.link_mode_masks_nwords = 4;
  b.master_slave_cfg = 1;  // MASTER_SLAVE_CFG_UNKNOWN, as a PHY driver reports it
  s.set_base(b);
  s.supported = {0, 0, 0, 0};
  for (int bit : {ETHTOOL_LINK_MODE_10baseT_Half_BIT, ETHTOOL_LINK_MODE_10baseT_Full_BIT,
                  ETHTOOL_LINK_MODE_100baseT_Half_BIT, ETHTOOL_LINK_MODE_100baseT_Full_BIT,
                  ETHTOOL_LINK_MODE_1000baseT_Full_BIT, ETHTOOL_LINK_MODE_Autoneg_BIT,
                  ETHTOOL_LINK_MODE_TP_BIT})
    s.supported[0] |= 1u << bit;
  s.advertising = s.supported;
  s.partner = {0, 0, 0, 0};
  return s;
}

const std::vector<std::string> kCopper = {"10baseT/Half",
                                          "10baseT/Full",
                                          "100baseT/Half",
                                          "100baseT/Full",
                                          "1000baseT/Full",
                                          "Autoneg",
                                          "TP"};

}  // namespace

TEST_CASE("ethtool ioctl: the mask-size handshake asks with 0 words and reads -N back") {
  ethtool_link_settings ask = link_settings_handshake();
  CHECK(ask.cmd == ETHTOOL_GLINKSETTINGS);
  CHECK(ask.link_mode_masks_nwords == 0);
  ethtool_link_settings reply = ask;
  reply.link_mode_masks_nwords = -4;
  auto n = handshake_words(reply);
  REQUIRE(n.ok());
  CHECK(*n == 4);
  reply.link_mode_masks_nwords = 0;  // a kernel that filled nothing: no size to use
  CHECK_FALSE(handshake_words(reply).ok());
}

TEST_CASE("ethtool ioctl: link settings encode as base then three masks, and decode back") {
  LinkSettings s = copper();
  s.partner[0] = 1u << ETHTOOL_LINK_MODE_1000baseT_Full_BIT;
  s.advertising[2] = 0x80000000u;  // bit 95: past the 32-bit legacy masks
  std::vector<uint32_t> words = encode_link_settings(s, ETHTOOL_SLINKSETTINGS);
  REQUIRE(words.size() == sizeof(ethtool_link_settings) / 4 + 12);
  CHECK(words[0] == ETHTOOL_SLINKSETTINGS);
  CHECK(words[1] == 1000);              // speed
  CHECK(words[12] == s.supported[0]);   // map_supported
  CHECK(words[16 + 2] == 0x80000000u);  // map_advertising, word 2
  CHECK(words[20] == s.partner[0]);     // map_lp_advertising
  auto back = decode_link_settings(words, 4);
  REQUIRE(back.ok());
  CHECK(back->supported == s.supported);
  CHECK(back->advertising == s.advertising);
  CHECK(back->partner == s.partner);
  CHECK(back->base().speed == 1000);
  CHECK(back->base().port == PORT_TP);
  // A reply whose size is not the one asked, or cut short, is not trusted.
  CHECK_FALSE(decode_link_settings(words, 3).ok());
  words.pop_back();
  CHECK_FALSE(decode_link_settings(words, 4).ok());
}

TEST_CASE("ethtool ioctl: link info says what netlink's LINKMODES_GET says") {
  LinkInfo info;
  link_info_from_settings(copper(), names(), info);
  CHECK(info.autoneg == true);
  CHECK(info.speed_mbps == 1000u);
  CHECK(info.duplex == Duplex::full);
  CHECK(info.port == "TP");
  CHECK(info.supported_modes == kCopper);
  CHECK(info.advertised_modes == kCopper);
  CHECK(info.partner_modes.empty());  // no PEER when the driver filled none

  LinkSettings s = copper();
  ethtool_link_settings b = s.base();
  b.speed = static_cast<uint32_t>(SPEED_UNKNOWN);
  b.duplex = DUPLEX_UNKNOWN;
  b.autoneg = AUTONEG_DISABLE;
  s.set_base(b);
  s.partner[0] = 1u << ETHTOOL_LINK_MODE_100baseT_Full_BIT;
  s.advertising = {0, 0, 0, 1u << 31};  // bit 127: no name yet, named as netlink does
  link_info_from_settings(s, names(), info);
  CHECK(info.autoneg == false);
  CHECK_FALSE(info.speed_mbps.has_value());
  CHECK_FALSE(info.duplex.has_value());
  CHECK(info.partner_modes == std::vector<std::string>{"100baseT/Full"});
  CHECK(info.advertised_modes == std::vector<std::string>{"bit 127"});
}

TEST_CASE("ethtool ioctl: a link request is applied as the kernel's LINKMODES_SET applies it") {
  const LinkSettings cur = copper();
  auto advertised = [](const LinkSettings& s) {
    LinkInfo info;
    link_info_from_settings(s, names(), info);
    return info.advertised_modes;
  };

  SUBCASE("autoneg with a speed: the supported modes of that speed, other bits kept") {
    LinkModesRequest req;
    req.autoneg = true;
    req.speed_mbps = 100;
    auto next = apply_link_request(cur, req, names(), "eth0");
    REQUIRE(next.ok());
    CHECK(advertised(*next) ==
          std::vector<std::string>{"100baseT/Half", "100baseT/Full", "Autoneg", "TP"});
    CHECK(next->base().speed == 100);
    CHECK(link_settings_differ(cur, *next));
  }
  SUBCASE("autoneg with a speed and duplex") {
    LinkModesRequest req;
    req.autoneg = true;
    req.speed_mbps = 10;
    req.duplex = Duplex::half;
    auto next = apply_link_request(cur, req, names(), "eth0");
    REQUIRE(next.ok());
    CHECK(advertised(*next) == std::vector<std::string>{"10baseT/Half", "Autoneg", "TP"});
    CHECK(next->base().duplex == DUPLEX_HALF);
  }
  SUBCASE("an advertise list is exactly the advertised modes") {
    LinkModesRequest req;
    req.autoneg = true;
    req.advertise = {"1000baseT/Full", "10baseT/Full"};
    auto next = apply_link_request(cur, req, names(), "eth0");
    REQUIRE(next.ok());
    CHECK(advertised(*next) == std::vector<std::string>{"10baseT/Full", "1000baseT/Full"});
    req.advertise = {"1000baseT/Fast"};
    auto bad = apply_link_request(cur, req, names(), "eth0");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().what.find("1000baseT/Fast") != std::string::npos);
  }
  SUBCASE("forced: autoneg off, speed and duplex set, advertising left alone") {
    LinkModesRequest req;
    req.autoneg = false;
    req.speed_mbps = 100;
    req.duplex = Duplex::full;
    auto next = apply_link_request(cur, req, names(), "eth0");
    REQUIRE(next.ok());
    CHECK(next->base().autoneg == AUTONEG_DISABLE);
    CHECK(next->base().speed == 100);
    CHECK(next->base().duplex == DUPLEX_FULL);
    CHECK(next->advertising == cur.advertising);
  }
  SUBCASE("the master-slave fields SLINKSETTINGS refuses are cleared; nwords kept") {
    LinkModesRequest req;
    req.autoneg = true;
    auto next = apply_link_request(cur, req, names(), "eth0");
    REQUIRE(next.ok());
    CHECK(next->base().master_slave_cfg == 0);
    CHECK(next->base().master_slave_state == 0);
    CHECK(next->base().link_mode_masks_nwords == 4);
    CHECK_FALSE(link_settings_differ(cur, *next));  // nothing to send, as netlink
  }
  SUBCASE("an empty request is an error") {
    CHECK_FALSE(apply_link_request(cur, LinkModesRequest{}, names(), "eth0").ok());
  }
}

TEST_CASE("ethtool ioctl: channels report a pair only where the driver has a maximum") {
  ethtool_channels c{};
  c.cmd = ETHTOOL_GCHANNELS;
  c.max_rx = 2;  // a veth: rx and tx, no other, no combined
  c.max_tx = 2;
  c.rx_count = 1;
  c.tx_count = 1;
  Channels ch = decode_channels(c);
  CHECK(ch.rx == 1u);
  CHECK(ch.rx_max == 2u);
  CHECK(ch.tx == 1u);
  CHECK_FALSE(ch.other.has_value());
  CHECK_FALSE(ch.other_max.has_value());
  CHECK_FALSE(ch.combined.has_value());

  Channels want;
  want.tx = 2;
  auto set = encode_channels(c, want, "va");
  REQUIRE(set.ok());
  CHECK(set->cmd == ETHTOOL_SCHANNELS);
  CHECK(set->tx_count == 2);
  CHECK(set->rx_count == 1);  // left as it was: the ioctl sets the whole struct
  CHECK(set->max_rx == 2);
  CHECK_FALSE(encode_channels(c, Channels{}, "va").ok());
}

TEST_CASE("ethtool ioctl: rings and coalescing, read and read-modify-written") {
  ethtool_ringparam r{};
  r.rx_max_pending = 4096;
  r.tx_max_pending = 0;  // no TX ring size: not reported, as netlink
  r.rx_pending = 256;
  r.rx_mini_pending = 7;
  Rings rings = decode_rings(r);
  CHECK(rings.rx == 256u);
  CHECK(rings.rx_max == 4096u);
  CHECK_FALSE(rings.tx.has_value());
  Rings want;
  want.rx = 1024;
  auto rset = encode_rings(r, want, "eth0");
  REQUIRE(rset.ok());
  CHECK(rset->cmd == ETHTOOL_SRINGPARAM);
  CHECK(rset->rx_pending == 1024);
  CHECK(rset->rx_mini_pending == 7);
  CHECK_FALSE(encode_rings(r, Rings{}, "eth0").ok());

  ethtool_coalesce c{};
  c.rx_coalesce_usecs = 50;
  c.tx_coalesce_usecs = 50;
  c.use_adaptive_rx_coalesce = 1;
  c.rate_sample_interval = 9;
  Coalesce co = decode_coalesce(c);
  CHECK(co.rx_usecs == 50u);
  CHECK(co.rx_frames == 0u);  // the ioctl cannot tell an unsupported field from a zero
  CHECK(co.adaptive_rx == true);
  CHECK(co.adaptive_tx == false);
  Coalesce cw;
  cw.rx_usecs = 8;
  cw.adaptive_rx = false;
  auto cset = encode_coalesce(c, cw, "eth0");
  REQUIRE(cset.ok());
  CHECK(cset->cmd == ETHTOOL_SCOALESCE);
  CHECK(cset->rx_coalesce_usecs == 8);
  CHECK(cset->use_adaptive_rx_coalesce == 0);
  CHECK(cset->tx_coalesce_usecs == 50);
  CHECK(cset->rate_sample_interval == 9);
  CHECK_FALSE(encode_coalesce(c, Coalesce{}, "eth0").ok());
}

TEST_CASE("ethtool ioctl: the kernel's link-mode names are used only when they are link modes") {
  auto table = builtin_link_mode_names();
  auto gstrings = [](const std::vector<std::string>& list) {
    std::string out(list.size() * ETH_GSTRING_LEN, '\0');
    for (size_t i = 0; i < list.size(); ++i)
      std::memcpy(&out[i * ETH_GSTRING_LEN], list[i].data(), list[i].size());
    return out;
  };
  std::vector<std::string> newer(table.begin(), table.end());
  newer.emplace_back("1600000baseCR8/Full");  // a bit newer than the table
  auto chosen = choose_link_mode_names(gstrings(newer), static_cast<uint32_t>(newer.size()));
  CHECK(chosen == newer);
  std::vector<std::string> older(table.begin(), table.begin() + 69);  // a 5.6 kernel's set
  CHECK(choose_link_mode_names(gstrings(older), 69) == older);
  // A driver that answers ETH_SS_LINK_MODES with its statistics' names (an old kernel
  // hands it a set it does not know): the table instead.
  std::vector<std::string> stats = {"rx_packets", "tx_packets", "rx_bytes"};
  CHECK(choose_link_mode_names(gstrings(stats), 3).size() == table.size());
  CHECK(choose_link_mode_names("", 0).front() == "10baseT/Half");
  CHECK(choose_link_mode_names("short", 2).size() == table.size());
}

TEST_CASE("link modes: the built-in names, a mode's speed and duplex, port names") {
  auto table = builtin_link_mode_names();
  CHECK(table.size() == 121);
  CHECK(table[ETHTOOL_LINK_MODE_1000baseT_Full_BIT] == "1000baseT/Full");
  CHECK(table[ETHTOOL_LINK_MODE_FEC_NONE_BIT] == "None");
  CHECK(table[120] == "800000baseVR4/Full");
  for (std::string_view n : table) CHECK_FALSE(n.empty());
  auto m = parse_link_mode("10baseT1S_P2MP/Half");
  REQUIRE(m.has_value());
  CHECK(m->speed_mbps == 10);
  CHECK(m->duplex == Duplex::half);
  CHECK_FALSE(parse_link_mode("Asym_Pause").has_value());
  CHECK(port_name(PORT_DA) == "DA");
  CHECK(port_name(0x42) == "port 66");
}

}  // namespace tuner
