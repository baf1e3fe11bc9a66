#include "tuner/cli/report/term.h"

#include <array>
#include <cstdlib>
#include <unistd.h>

#include "base/strings.h"

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

namespace {

/// The SGR sequences wrap() writes, reset first.
constexpr std::array<std::string_view, 6> kOwnSequences = {"\033[0m",  "\033[1m",  "\033[2m",
                                                           "\033[31m", "\033[32m", "\033[33m"};

/// The length of the colour sequence of ours at text[i], or 0.
std::size_t own_sequence_at(std::string_view text, std::size_t i) {
  for (std::string_view seq : kOwnSequences)
    if (text.substr(i, seq.size()) == seq) return seq.size();
  return 0;
}

}  // namespace

std::string Term::printable(std::string_view rendered) const {
  if (!color_) return escape_controls(rendered, Newlines::keep);
  // A colour sequence in the data itself passes too: it can change a colour, never
  // move the cursor, clear the screen or set the title, which needs other sequences.
  std::string out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < rendered.size(); ++i) {
    std::size_t n = rendered[i] == '\033' ? own_sequence_at(rendered, i) : 0;
    if (n == 0) continue;
    out += escape_controls(rendered.substr(start, i - start), Newlines::keep);
    out.append(rendered.substr(i, n));
    i += n - 1;
    start = i + 1;
  }
  out += escape_controls(rendered.substr(start), Newlines::keep);
  return out;
}

std::string Term::wrap(const char* code, std::string_view s) const {
  if (!color_) return std::string(s);
  return std::string("\033[") + code + "m" + std::string(s) + "\033[0m";
}

}  // namespace tuner
