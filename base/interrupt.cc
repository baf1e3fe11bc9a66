#include "base/interrupt.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/core.h>

namespace tuner {

namespace {

volatile sig_atomic_t g_signal = 0;
std::atomic<bool> g_installed{false};
int g_pipe[2] = {-1, -1};
// The first signal's message, built before any signal can arrive: the handler may only
// write(2) bytes that already exist.
char g_first[3][256];
std::size_t g_first_len[3];
constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
constexpr char kAgain[] = "tuner: still putting back what this run changed; wait for it\n";

void on_signal(int sig) {
  int saved = errno;
  if (g_signal == 0) {
    g_signal = sig;
    for (int i = 0; i < 3; ++i)
      if (kSignals[i] == sig) (void)!::write(STDERR_FILENO, g_first[i], g_first_len[i]);
  } else {
    (void)!::write(STDERR_FILENO, kAgain, sizeof kAgain - 1);
  }
  // Readable from now on: the byte is never read back.
  (void)!::write(g_pipe[1], "!", 1);
  errno = saved;
}

}  // namespace

std::string signal_name(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return fmt::format("signal {}", signal);
  }
}

void catch_interrupts(const char* what) {
  if (g_installed.exchange(true)) return;
  if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) g_pipe[0] = g_pipe[1] = -1;
  for (int i = 0; i < 3; ++i) {
    std::string text = fmt::format("\ntuner: {} received: {}; further signals are ignored\n",
                                   signal_name(kSignals[i]), what);
    g_first_len[i] = std::min(text.size(), sizeof g_first[i]);
    std::memcpy(g_first[i], text.data(), g_first_len[i]);
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : kSignals) sigaddset(&sa.sa_mask, s);  // one handler at a time
  // Reads and writes restart; poll and nanosleep never do, so the waits wake.
  sa.sa_flags = SA_RESTART;
  for (int s : kSignals) ::sigaction(s, &sa, nullptr);
}

int interrupt_signal() { return g_signal; }

int interrupt_fd() { return g_pipe[0]; }

Status check_interrupt() {
  if (int sig = g_signal) return Error::io("interrupted by " + signal_name(sig));
  return Ok{};
}

void sleep_unless_interrupted(std::chrono::nanoseconds d) {
  if (g_pipe[0] < 0) {
    std::this_thread::sleep_for(d);
    return;
  }
  const auto until = std::chrono::steady_clock::now() + d;
  while (g_signal == 0) {
    auto left =
        std::chrono::ceil<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return;
    pollfd p{g_pipe[0], POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(std::min<long>(left.count(), 60'000)));
  }
}

void release_interrupts_for_test() {
  for (int s : kSignals) ::signal(s, SIG_DFL);
  for (int& fd : g_pipe) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  g_signal = 0;
  g_installed = false;
}

}  // namespace tuner
