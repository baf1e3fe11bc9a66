// Test support: the one temporary directory for tests (STYLE.md 14).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "tests/support/files.h"

namespace tuner::testing {

/// Where temporary trees go: $TMPDIR when set, else /dev/shm (tmpfs: the sysfs captures
/// are thousands of tiny files, and unpacking them on a slow disk takes seconds each),
/// else /tmp.
inline std::string temp_base() {
  const char* env = std::getenv("TMPDIR");
  if (env && *env) return env;
  return ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

/// A fresh private (0700) directory, removed with everything in it when the object
/// goes. `path` is public so tests can write `tmp.path + "/proc/sys/..."`.
struct TempDir {
  std::string path;

  explicit TempDir(std::string_view prefix = "tuner-test") {
    std::string tmpl = temp_base() + "/" + std::string(prefix) + "-XXXXXX";
    if (!::mkdtemp(tmpl.data()))
      throw std::runtime_error("mkdtemp " + tmpl + ": " + std::strerror(errno));
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// path/rel.
  std::string operator/(std::string_view rel) const { return path + "/" + std::string(rel); }
  /// Writes path/rel (parents made); returns its full path.
  std::string write(std::string_view rel, std::string_view text) const {
    return write_file(*this / rel, text);
  }
};

}  // namespace tuner::testing
