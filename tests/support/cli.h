// Test helper: run the built tuner binary (TUNER_BINARY) through the shell and keep its
// exit code, stdout and stderr, as a user at a prompt would see them.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tuner::testing {

struct CliRun {
  int code = -1;  // exit status; -1 when killed by a signal
  std::string out, err;
};

/// Runs "TUNER_BINARY ARGS" with /bin/sh (ARGS is shell text: quote what needs it).
inline CliRun run_tuner(const std::string& args) {
  char tmpl[] = "/tmp/tuner-cli-err-XXXXXX";
  int fd = ::mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  ::close(fd);
  std::string cmd = std::string(TUNER_BINARY) + " " + args + " 2>" + tmpl;
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + cmd);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(tmpl);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  std::remove(tmpl);
  return r;
}

}  // namespace tuner::testing
