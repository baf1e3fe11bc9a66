#include "tuner/cli/report/term.h"

#include <cstdlib>
#include <unistd.h>

namespace tuner {

Term::Term(ColorMode mode, int fd) {
  if (mode == ColorMode::always) color_ = true;
  else if (mode == ColorMode::never) color_ = false;
  else color_ = ::isatty(fd) && !std::getenv("NO_COLOR");
}

std::string Term::wrap(const char* code, std::string_view s) const {
  if (!color_) return std::string(s);
  return std::string("\033[") + code + "m" + std::string(s) + "\033[0m";
}

}  // namespace tuner
