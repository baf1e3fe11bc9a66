// Test support: reading and writing the files tests look at. Reads go through the
// project's one bounded reader (base/fd_io.h), so a test that points at a FIFO or a
// device fails instead of hanging. Throwing (std::runtime_error) makes doctest report
// the test as failed with the message.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "base/fd_io.h"
#include "base/strings.h"

namespace tuner::testing {

/// The whole file; throws naming the path and the reason when it cannot be read.
inline std::string read_text(const std::string& path) {
  auto text = read_file(path);
  if (!text) throw std::runtime_error(text.error().message());
  return std::move(text).value();
}

/// The whole file, or "" when it cannot be read: for files a test only peeks at (a
/// /sys value, a drop-in that may not exist).
inline std::string slurp(const std::string& path) { return read_file(path).value_or(""); }

/// A one-line /sys or /proc value with surrounding white space trimmed ("10000"), or ""
/// when it cannot be read (sysfs answers EINVAL for a speed a driver does not know).
inline std::string sysfs_value(const std::string& path) { return std::string(trim(slurp(path))); }

/// ${TUNER_TEST_DATA}/rel: the project's own test data (tests/fixtures).
inline std::string test_data_path(const std::string& rel) {
  return std::string(TUNER_TEST_DATA) + "/" + rel;
}
/// read_text of a file in ${TUNER_TEST_DATA}.
inline std::string read_test_data(const std::string& rel) { return read_text(test_data_path(rel)); }

/// Writes text to path, replacing it, after creating its parent directories; throws
/// when it cannot. Returns path.
inline std::string write_file(const std::string& path, std::string_view text) {
  namespace fs = std::filesystem;
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
  return path;
}

/// For tests of things that must not block (a FIFO, a device): while it lives, a hang
/// ends the test binary with SIGALRM ("Alarm clock") instead of stalling the suite.
class HangGuard {
 public:
  explicit HangGuard(unsigned seconds = 10) { ::alarm(seconds); }
  ~HangGuard() { ::alarm(0); }
  HangGuard(const HangGuard&) = delete;
  HangGuard& operator=(const HangGuard&) = delete;
};

}  // namespace tuner::testing
