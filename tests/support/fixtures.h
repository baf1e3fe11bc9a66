// Test support: the captured machines in ${TUNER_FIXTURES} (tests/fixtures/machines).
// A sysfs capture is a tarball holding one folder, the machine's root; tests read it
// through Root::open(root). Two ways to get one, both through unpack_tarball():
//  - shared_fixture(): unpacked once per test run and shared; for tests that only read.
//  - ScopedFixture: a fresh copy of its own, optionally with an overlay of extra files
//    (IRQs, host facts) laid on top; for tests that add or change files.
#pragma once

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/runner.h"
#include "tests/support/temp_dir.h"

namespace tuner::testing {

/// The path of a fixture: a bare name ("nvidia-dgx-gb10.tar.bz2") is a sysfs capture in
/// ${TUNER_FIXTURES}/sysfs; anything with a '/' is taken as it is.
inline std::string fixture_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  return std::string(TUNER_FIXTURES) + "/sysfs/" + name;
}

/// Sorted paths of the fixtures in ${TUNER_FIXTURES}/SUBDIR whose names end in SUFFIX.
inline std::vector<std::string> fixture_files(const std::string& subdir,
                                              const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(TUNER_FIXTURES) + "/" + subdir)) {
    std::string p = e.path().string();
    if (p.size() > suffix.size() && p.ends_with(suffix)) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Unpacks tarball (any compression GNU tar detects) into dir with tar run as an
/// argument vector (no shell: any character in a path is safe; --force-local so a ':'
/// in a name is not a remote host). Returns the root: the tarball's single top folder
/// when it holds exactly one, else dir. Throws naming the command and why it failed.
inline std::string unpack_tarball(const std::string& tarball, const std::string& dir) {
  namespace fs = std::filesystem;
  RunSpec spec;
  spec.argv = {"tar", "--force-local", "-xf", tarball, "-C", dir};
  spec.timeout = std::chrono::seconds(120);
  ProcessRunner runner;
  auto r = runner.run(spec);
  if (!r) throw std::runtime_error("tar -xf " + tarball + ": " + r.error().message());
  if (!r->success())
    throw std::runtime_error("tar -xf " + tarball + " " + r->describe(spec) + ": " +
                             r->stderr_tail());
  int entries = 0;
  std::string only;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++entries;
    if (e.is_directory() && !e.is_symlink()) only = e.path().string();
  }
  return entries == 1 && !only.empty() ? only : dir;
}

/// The root of a capture unpacked once per test run (in a TempDir removed at exit) and
/// shared by every test that asks: tests must not change it.
inline std::string shared_fixture(const std::string& tarball) {
  struct Unpacked {
    TempDir dir{"tuner-shared-fixture"};
    std::string root;
  };
  static std::map<std::string, std::unique_ptr<Unpacked>> unpacked;
  const std::string path = fixture_path(tarball);
  auto& slot = unpacked[path];
  if (!slot) {
    auto u = std::make_unique<Unpacked>();
    u->root = unpack_tarball(path, u->dir.path);
    slot = std::move(u);
  }
  return slot->root;
}

/// A fresh copy of a capture, removed with the object. With overlay_dir, the CONTENTS
/// of that directory are copied on top (OVERLAY/proc/interrupts lands at
/// ROOT/proc/interrupts, replacing what was there); several overlays go on in order.
class ScopedFixture {
 public:
  explicit ScopedFixture(const std::string& tarball, const std::string& overlay_dir = "")
      : ScopedFixture(tarball, overlay_dir.empty() ? std::vector<std::string>{}
                                                   : std::vector<std::string>{overlay_dir}) {}
  ScopedFixture(const std::string& tarball, const std::vector<std::string>& overlay_dirs)
      : root_(unpack_tarball(fixture_path(tarball), dir_.path)) {
    namespace fs = std::filesystem;
    for (const std::string& overlay_dir : overlay_dirs) {
      if (!fs::is_directory(overlay_dir)) throw std::runtime_error("no overlay dir " + overlay_dir);
      fs::copy(overlay_dir, root_,
               fs::copy_options::recursive | fs::copy_options::overwrite_existing |
                   fs::copy_options::copy_symlinks);
    }
  }
  ScopedFixture(const ScopedFixture&) = delete;
  ScopedFixture& operator=(const ScopedFixture&) = delete;
  /// The directory to pass to Root::open().
  const std::string& root() const { return root_; }

 private:
  TempDir dir_{"tuner-fixture"};
  std::string root_;
};

}  // namespace tuner::testing
