// Test support: `tuner check` on a captured node. The Dell R910 capture with its IRQs
// (tests/fixtures/irq/r910) and the overlays of tests/fixtures/check, each adding what
// makes one finding; probed, gathered and checked as the command does it.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/fixtures.h"
#include "tuner/check/check.h"
#include "tuner/check/gather.h"

namespace tuner::testing {

/// The R910 with its IRQs and the named overlays.
struct CheckNode {
  explicit CheckNode(std::initializer_list<const char*> overlays = {})
      : fx("40intel64-2g2n4c+pci.tar.bz2", paths(overlays)),
        root(Root::open(fx.root()).value()),
        target{root, {}} {}
  /// One overlay: GCC 10 cannot make `CheckNode{"name"}`'s array an initializer_list.
  explicit CheckNode(const char* overlay) : CheckNode({overlay}) {}
  /// Overlays by name in tests/fixtures/check, or by path in tests/fixtures ("host/...").
  static std::vector<std::string> paths(std::initializer_list<const char*> overlays) {
    std::vector<std::string> out = {test_data_path("irq/r910")};
    for (std::string o : overlays)
      out.push_back(test_data_path(o.find('/') == std::string::npos ? "check/" + o : o));
    return out;
  }
  std::string state_dir() const { return fx.root() + "/var/lib/tuner"; }
  /// Probes, gathers and checks; `edit` changes the input first (a fake netlink's
  /// links, GPUs the capture lacks).
  CheckReport check(GatherOptions opt = {},
                    const std::function<void(CheckInput&)>& edit = {}) const {
    if (!opt.state_dir) opt.state_dir = state_dir();
    CheckInput in = gather_check_input(target, probe_target(target), opt);
    if (edit) edit(in);
    return run_checks(in);
  }
  ScopedFixture fx;
  Root root;
  Target target;
};

inline std::vector<const Finding*> findings(const CheckReport& r, Rule rule) {
  std::vector<const Finding*> out;
  for (const Finding& f : r.findings)
    if (f.rule == rule) out.push_back(&f);
  return out;
}

/// The report has exactly one finding of `rule`, about `subject`, at `sev`.
inline void check_one(const CheckReport& r, Rule rule, const std::string& subject, Severity sev) {
  auto got = findings(r, rule);
  REQUIRE(got.size() == 1);
  CHECK(got[0]->subject == subject);
  CHECK(got[0]->severity == sev);
  CHECK_FALSE(got[0]->evidence.empty());
  CHECK_FALSE(got[0]->fix.empty());
}

inline bool skipped(const CheckReport& r, Rule rule) {
  return std::ranges::any_of(r.skipped, [&](const Skipped& s) { return s.rule == rule; });
}

/// The rule was skipped because reading its input failed.
inline bool unreadable(const CheckReport& r, Rule rule) {
  return std::ranges::any_of(r.skipped,
                             [&](const Skipped& s) { return s.rule == rule && s.unreadable; });
}

}  // namespace tuner::testing
