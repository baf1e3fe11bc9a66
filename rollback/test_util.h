// Test helper: a private temporary directory removed at scope exit.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace tuner::testing {

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/tuner-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace tuner::testing
