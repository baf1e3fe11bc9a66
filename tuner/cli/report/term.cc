#include "tuner/cli/report/term.h"

#include <cstdlib>
#include <unistd.h>

namespace tuner {

bool capable_terminal(int fd) {
  const char* term = std::getenv("TERM");
  return ::isatty(fd) && term && *term && std::string_view(term) != "dumb";
}

Term::Term(ColorMode mode, int fd) {
  if (mode == ColorMode::always) color_ = true;
  else if (mode == ColorMode::never) color_ = false;
  else {
    // no-color.org: NO_COLOR set and not empty turns colour off.
    const char* no_color = std::getenv("NO_COLOR");
    color_ = capable_terminal(fd) && !(no_color && *no_color);
  }
}

std::string Term::wrap(const char* code, std::string_view s) const {
  if (!color_) return std::string(s);
  return std::string("\033[") + code + "m" + std::string(s) + "\033[0m";
}

}  // namespace tuner
