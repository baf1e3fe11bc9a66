#include "tuner/profile/toml_nesting.h"

#include <vector>

#include <fmt/core.h>

namespace tuner {

namespace {

/// One pass over the bytes. A node's depth is the number of tables and arrays above it
/// plus one: a header's segments, then a key's segments from its table, then one more
/// for each array around a value. It is checked where it grows.
class NestingScan {
 public:
  NestingScan(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  Status run() {
    if (text_.starts_with("\xEF\xBB\xBF")) i_ = 3;  // a UTF-8 byte order mark, which toml++ skips
    while (i_ < text_.size()) {
      char c = text_[i_];
      if (c == '#') {
        while (i_ < text_.size() && text_[i_] != '\n') advance();
        continue;
      }
      if (c == '"' || c == '\'') {
        if (mode_ == Mode::line_start) start_key();  // a quoted key: "net.core.rmem_max" = 1
        if (Status s = skip_string(); !s.ok()) return s;
        continue;
      }
      if (c == '\n') {
        advance();
        if (stack_.empty()) mode_ = Mode::line_start;
        continue;
      }
      if (static_cast<unsigned char>(c) >= 0x80) return non_ascii();
      if (mode_ == Mode::value &&
          std::string_view(" \t\r[]{},").find(c) == std::string_view::npos) {
        if (Status s = skip_bare_value(); !s.ok()) return s;
        continue;
      }
      if (Status s = step(c); !s.ok()) return s;
      advance();
    }
    return Ok{};
  }

 private:
  enum class Mode { line_start, header, key, value, rest };

  // What c means in the current mode; c is no quote, '#' or newline.
  Status step(char c) {
    if (mode_ == Mode::line_start) {
      if (c == ' ' || c == '\t' || c == '\r') return Ok{};
      if (c == '[') {
        mode_ = Mode::header;
        segments_ = 1;
        if (i_ + 1 < text_.size() && text_[i_ + 1] == '[') advance();  // [[array.of.tables]]
        return check(segments_);
      }
      start_key();  // and c is the key's first character
    }
    switch (mode_) {
      case Mode::line_start: return Ok{};
      case Mode::header:
        if (c == '.') return check(++segments_);
        if (c == ']') {
          table_depth_ = segments_;
          mode_ = Mode::rest;
        }
        return Ok{};
      case Mode::key:
        if (c == '.') return check(base() + ++segments_);
        if (c == '=') {
          value_depth_ = base() + segments_;
          mode_ = Mode::value;
          return check(value_depth_);
        }
        if (c == '}') close();  // an empty inline table
        return Ok{};
      case Mode::value:
        if (c == '[') {
          // The array sits at value_depth_, its elements one deeper.
          stack_.push_back({c, ++value_depth_});
          return check(value_depth_);
        }
        if (c == '{') {
          // The table sits at value_depth_; its keys count from there.
          stack_.push_back({c, value_depth_});
          start_key();
        } else if (c == ']' || c == '}') {
          close();
        } else if (c == ',' && !stack_.empty()) {
          if (stack_.back().bracket == '{') {
            start_key();
          } else {
            value_depth_ = stack_.back().depth;
          }
        }
        return Ok{};
      case Mode::rest: return Ok{};
    }
    return Ok{};
  }

  void start_key() {
    mode_ = Mode::key;
    segments_ = 1;
  }

  // The depth a key starts from: its inline table's, else its [table]'s.
  int base() const { return stack_.empty() ? table_depth_ : stack_.back().depth; }

  void close() {
    if (!stack_.empty()) stack_.pop_back();
    if (stack_.empty()) {
      mode_ = Mode::rest;
    } else {
      mode_ = Mode::value;
      value_depth_ = stack_.back().depth;
    }
  }

  Status check(int depth) const {
    if (depth <= kMaxTomlNesting) return Ok{};
    return Error::invalid(
        fmt::format("tables, keys and values nest deeper than {} levels", kMaxTomlNesting),
        fmt::format("{}:{}:{}", file_, line_, col_));
  }

  // Past a value that is no string, array or table (a number, a boolean, a date, or
  // garbage): toml++ reads it as one token up to whitespace, ',', ']', '}', '#' or a
  // newline, quotes included, so a non-ASCII character in it is outside any string.
  Status skip_bare_value() {
    while (i_ < text_.size() &&
           std::string_view(" \t\r\n,]}#").find(text_[i_]) == std::string_view::npos) {
      if (static_cast<unsigned char>(text_[i_]) >= 0x80) return non_ascii();
      advance();
    }
    return Ok{};
  }

  Status non_ascii() const {
    return Error::invalid(
        "TOML syntax error: a non-ASCII character outside a string or comment (bare keys "
        "are A-Z a-z 0-9 _ -; quote the key or the value)",
        fmt::format("{}:{}:{}", file_, line_, col_));
  }

  // Past a basic or literal string, one line or many; an unterminated one ends at the
  // end of its line (one line) or of the text, and toml++ reports it.
  Status skip_string() {
    char q = text_[i_];
    std::string_view triple = q == '"' ? "\"\"\"" : "'''";
    bool multi = text_.substr(i_, 3) == triple;
    for (int k = 0; k < (multi ? 3 : 1); ++k) advance();
    while (i_ < text_.size()) {
      char c = text_[i_];
      if (c == '\n' && !multi) return Ok{};
      if (c == '\\' && q == '"') {
        advance();
        // No escape starts with a non-ASCII character, and toml++ tests one there for
        // whitespace (a line-ending backslash may have some before its newline).
        if (i_ < text_.size() && static_cast<unsigned char>(text_[i_]) >= 0x80)
          return non_ascii_after_backslash();
        if (multi && i_ < text_.size() && is_space(text_[i_])) {
          // A line-ending backslash: toml++ skips the whitespace and newlines after it,
          // testing the first other character for whitespace, where a non-ASCII one
          // reaches the same unreachable point (found by fuzz/profile_fuzz.cc).
          while (i_ < text_.size() && is_space(text_[i_])) advance();
          if (i_ < text_.size() && static_cast<unsigned char>(text_[i_]) >= 0x80)
            return non_ascii_after_backslash();
          continue;
        }
        if (i_ < text_.size()) advance();
        continue;
      }
      if (c == q && (!multi || text_.substr(i_, 3) == triple)) {
        advance();
        if (multi) {
          advance();
          advance();
          // Up to two more quotes belong to the string: """a"""" is a" then the end.
          for (int k = 0; k < 2 && i_ < text_.size() && text_[i_] == q; ++k) advance();
        }
        return Ok{};
      }
      advance();
    }
    return Ok{};
  }

  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

  Status non_ascii_after_backslash() const {
    return Error::invalid(
        "a non-ASCII character right after a backslash, or first after a line-ending "
        "backslash, in a string (toml++ misreads it; write an escape such as \\u00e9)",
        fmt::format("{}:{}:{}", file_, line_, col_));
  }

  void advance() {
    if (text_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else if ((static_cast<unsigned char>(text_[i_]) & 0xC0) != 0x80) {
      ++col_;  // columns count characters, as toml++'s do, not UTF-8 continuation bytes
    }
    ++i_;
  }

  struct Open {
    char bracket;
    int depth;  // of an array's elements; of an inline table itself
  };

  std::string_view text_;
  const std::string& file_;
  std::size_t i_ = 0;
  int line_ = 1, col_ = 1;
  Mode mode_ = Mode::line_start;
  int segments_ = 0, table_depth_ = 0, value_depth_ = 0;
  std::vector<Open> stack_;
};

}  // namespace

Status check_toml_nesting(std::string_view text, const std::string& file) {
  return NestingScan(text, file).run();
}

}  // namespace tuner
