// Terminal output: colour only on a capable TTY (not TERM=dumb, not NO_COLOR) or with
// --color=always; nothing but results on stdout.
#pragma once

#include <string>
#include <string_view>

namespace tuner {

enum class ColorMode { automatic, always, never };

/// fd is a terminal that understands escape sequences: a TTY, and TERM set and not
/// "dumb" (Emacs shells, serial consoles, CI logs that claim a TTY).
bool capable_terminal(int fd);

class Term {
 public:
  Term(ColorMode mode, int fd);
  bool color() const { return color_; }
  std::string red(std::string_view s) const { return wrap("31", s); }
  std::string green(std::string_view s) const { return wrap("32", s); }
  std::string yellow(std::string_view s) const { return wrap("33", s); }
  std::string bold(std::string_view s) const { return wrap("1", s); }
  std::string dim(std::string_view s) const { return wrap("2", s); }

  /// Rendered text as it may be printed: what it carries from profiles, the kernel, a
  /// capture or an error is not tuner's to trust, so every control character is escaped
  /// (base/strings.h escape_controls) but line breaks, tabs and, with colour on, the
  /// colour sequences this Term writes. Every text renderer's output goes through here.
  std::string printable(std::string_view rendered) const;

 private:
  std::string wrap(const char* code, std::string_view s) const;
  bool color_ = false;
};

}  // namespace tuner
