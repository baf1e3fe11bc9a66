// Test helper: unpack a captured sysfs tarball into a fresh temp dir and lay extra
// files (IRQs, host facts) over it. Header-only so any *_test.cc can include
// "tests/fixtures_util.h".
#pragma once

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <fstream>
#include <unistd.h>
#include <stdexcept>
#include <string>
#include <system_error>

namespace tuner::testing {

/// 'text' quoted for sh.
inline std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

/// A whole test data file as text; throws std::runtime_error naming the path when it
/// cannot be read (doctest reports the test as failed with that message).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in.good()) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Unpacks `tarball` (any compression GNU tar detects: .tar.bz2, .tar.gz, .tar) into a new
/// directory under $TMPDIR, else /dev/shm (tmpfs: the captures are thousands of tiny
/// files, and unpacking them on this VM's disk takes seconds each), else /tmp, then copies the CONTENTS of `overlay_dir` on top
/// (cp -a OVERLAY/. ROOT/, so "proc/interrupts" in the overlay lands at
/// ROOT/proc/interrupts and existing files are replaced). Returns the root to pass to
/// Root::open(): the tarball's single top folder when it has exactly one, else the temp
/// dir itself. Throws std::runtime_error naming the failing command. The caller removes
/// the tree with remove_fixture() (or uses ScopedFixture).
inline std::string unpack_fixture(const std::string& tarball, const std::string& overlay_dir = "") {
  namespace fs = std::filesystem;
  const char* tmp = std::getenv("TMPDIR");
  std::string base = tmp && *tmp ? tmp : ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  std::string tmpl = base + "/tuner-fixture-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp " + tmpl + " failed");
  std::string cmd = "tar -xf " + shell_quote(tarball) + " -C " + shell_quote(tmpl);
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("failed: " + cmd);
  std::string root = tmpl;
  std::error_code ec;
  int entries = 0;
  std::string only;
  for (const auto& e : fs::directory_iterator(tmpl, ec)) {
    ++entries;
    if (e.is_directory() && !e.is_symlink()) only = e.path().string();
  }
  if (entries == 1 && !only.empty()) root = only;
  if (!overlay_dir.empty()) {
    if (!fs::is_directory(overlay_dir)) throw std::runtime_error("no overlay dir " + overlay_dir);
    cmd = "cp -a " + shell_quote(overlay_dir + "/.") + " " + shell_quote(root + "/");
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("failed: " + cmd);
  }
  return root;
}

/// Removes what unpack_fixture() made (the temp dir holding `root`).
inline void remove_fixture(const std::string& root) {
  namespace fs = std::filesystem;
  fs::path p(root);
  while (!p.empty() && p.filename().string().rfind("tuner-fixture-", 0) != 0) p = p.parent_path();
  std::error_code ec;
  if (!p.empty()) fs::remove_all(p, ec);
}

/// unpack_fixture() whose tree goes away with the object.
class ScopedFixture {
 public:
  explicit ScopedFixture(const std::string& tarball, const std::string& overlay_dir = "")
      : root_(unpack_fixture(tarball, overlay_dir)) {}
  ~ScopedFixture() { remove_fixture(root_); }
  ScopedFixture(const ScopedFixture&) = delete;
  ScopedFixture& operator=(const ScopedFixture&) = delete;
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

}  // namespace tuner::testing
