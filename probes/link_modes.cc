#include "probes/link_modes.h"

#include <linux/ethtool.h>
#include <linux/version.h>

#include <array>

#include "base/strings.h"

namespace tuner {
namespace {

// Generated from a 6.18 kernel's ETHTOOL_GSTRINGS of ETH_SS_LINK_MODES, in bit order;
// link_modes_test.cc compares it with the running kernel's set where it has one.
constexpr std::array<std::string_view, 121> kNames = {
    "10baseT/Half",
    "10baseT/Full",
    "100baseT/Half",
    "100baseT/Full",
    "1000baseT/Half",
    "1000baseT/Full",
    "Autoneg",
    "TP",
    "AUI",
    "MII",
    "FIBRE",
    "BNC",
    "10000baseT/Full",
    "Pause",
    "Asym_Pause",
    "2500baseX/Full",
    "Backplane",
    "1000baseKX/Full",
    "10000baseKX4/Full",
    "10000baseKR/Full",
    "10000baseR_FEC",
    "20000baseMLD2/Full",
    "20000baseKR2/Full",
    "40000baseKR4/Full",
    "40000baseCR4/Full",
    "40000baseSR4/Full",
    "40000baseLR4/Full",
    "56000baseKR4/Full",
    "56000baseCR4/Full",
    "56000baseSR4/Full",
    "56000baseLR4/Full",
    "25000baseCR/Full",
    "25000baseKR/Full",
    "25000baseSR/Full",
    "50000baseCR2/Full",
    "50000baseKR2/Full",
    "100000baseKR4/Full",
    "100000baseSR4/Full",
    "100000baseCR4/Full",
    "100000baseLR4_ER4/Full",
    "50000baseSR2/Full",
    "1000baseX/Full",
    "10000baseCR/Full",
    "10000baseSR/Full",
    "10000baseLR/Full",
    "10000baseLRM/Full",
    "10000baseER/Full",
    "2500baseT/Full",
    "5000baseT/Full",
    "None",
    "RS",
    "BASER",
    "50000baseKR/Full",
    "50000baseSR/Full",
    "50000baseCR/Full",
    "50000baseLR_ER_FR/Full",
    "50000baseDR/Full",
    "100000baseKR2/Full",
    "100000baseSR2/Full",
    "100000baseCR2/Full",
    "100000baseLR2_ER2_FR2/Full",
    "100000baseDR2/Full",
    "200000baseKR4/Full",
    "200000baseSR4/Full",
    "200000baseLR4_ER4_FR4/Full",
    "200000baseDR4/Full",
    "200000baseCR4/Full",
    "100baseT1/Full",
    "1000baseT1/Full",
    "400000baseKR8/Full",
    "400000baseSR8/Full",
    "400000baseLR8_ER8_FR8/Full",
    "400000baseDR8/Full",
    "400000baseCR8/Full",
    "LLRS",
    "100000baseKR/Full",
    "100000baseSR/Full",
    "100000baseLR_ER_FR/Full",
    "100000baseCR/Full",
    "100000baseDR/Full",
    "200000baseKR2/Full",
    "200000baseSR2/Full",
    "200000baseLR2_ER2_FR2/Full",
    "200000baseDR2/Full",
    "200000baseCR2/Full",
    "400000baseKR4/Full",
    "400000baseSR4/Full",
    "400000baseLR4_ER4_FR4/Full",
    "400000baseDR4/Full",
    "400000baseCR4/Full",
    "100baseFX/Half",
    "100baseFX/Full",
    "10baseT1L/Full",
    "800000baseCR8/Full",
    "800000baseKR8/Full",
    "800000baseDR8/Full",
    "800000baseDR8_2/Full",
    "800000baseSR8/Full",
    "800000baseVR8/Full",
    "10baseT1S/Full",
    "10baseT1S/Half",
    "10baseT1S_P2MP/Half",
    "10baseT1BRR/Full",
    "200000baseCR/Full",
    "200000baseKR/Full",
    "200000baseDR/Full",
    "200000baseDR_2/Full",
    "200000baseSR/Full",
    "200000baseVR/Full",
    "400000baseCR2/Full",
    "400000baseKR2/Full",
    "400000baseDR2/Full",
    "400000baseDR2_2/Full",
    "400000baseSR2/Full",
    "400000baseVR2/Full",
    "800000baseCR4/Full",
    "800000baseKR4/Full",
    "800000baseDR4/Full",
    "800000baseDR4_2/Full",
    "800000baseSR4/Full",
    "800000baseVR4/Full",
};

// The header's bit numbers agree with the table (a spot check of each era).
static_assert(kNames[ETHTOOL_LINK_MODE_1000baseT_Full_BIT] == "1000baseT/Full");
static_assert(kNames[ETHTOOL_LINK_MODE_Autoneg_BIT] == "Autoneg");
static_assert(kNames[ETHTOOL_LINK_MODE_10000baseT_Full_BIT] == "10000baseT/Full");
static_assert(kNames[ETHTOOL_LINK_MODE_FEC_RS_BIT] == "RS");  // the kernel's name
static_assert(kNames[ETHTOOL_LINK_MODE_400000baseCR8_Full_BIT] == "400000baseCR8/Full");
// Linux 5.16's 10BASE-T1L (kernel headers are as old as 5.10 on Debian 11).
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 16, 0)
static_assert(kNames[ETHTOOL_LINK_MODE_10baseT1L_Full_BIT] == "10baseT1L/Full");
#endif

}  // namespace

std::span<const std::string_view> builtin_link_mode_names() { return kNames; }

std::optional<ModeSpeed> parse_link_mode(std::string_view name) {
  std::size_t digits = 0;
  while (digits < name.size() && name[digits] >= '0' && name[digits] <= '9') ++digits;
  if (digits == 0 || name.substr(digits, 4) != "base") return std::nullopt;
  auto slash = name.rfind('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view dup = name.substr(slash + 1);
  auto speed = parse_u64(name.substr(0, digits));
  if (!speed || *speed > UINT32_MAX) return std::nullopt;
  if (dup == "Full") return ModeSpeed{static_cast<uint32_t>(*speed), Duplex::full};
  if (dup == "Half") return ModeSpeed{static_cast<uint32_t>(*speed), Duplex::half};
  return std::nullopt;
}

std::string port_name(uint8_t port) {
  switch (port) {
    case PORT_TP: return "TP";
    case PORT_AUI: return "AUI";
    case PORT_MII: return "MII";
    case PORT_FIBRE: return "FIBRE";
    case PORT_BNC: return "BNC";
    case PORT_DA: return "DA";
    case PORT_NONE: return "NONE";
    case PORT_OTHER: return "OTHER";
    default: return "port " + std::to_string(port);
  }
}

}  // namespace tuner
