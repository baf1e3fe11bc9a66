#include "probes/topology_xml.h"

#include <fmt/core.h>

#include "base/fd_io.h"

namespace tuner {

namespace {

/// Line and column (1-based, in bytes) of text[pos].
std::string location(std::string_view text, std::size_t pos, const std::string& file) {
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return fmt::format("{}:{}:{}", file, line, pos - line_start + 1);
}

/// The index just past `end` at or after from, or text.size() when it never comes.
std::size_t past(std::string_view text, std::size_t from, std::string_view end) {
  std::size_t at = text.find(end, from);
  return at == std::string_view::npos ? text.size() : at + end.size();
}

/// The index just past the '>' that ends the tag opened at from, quotes respected.
std::size_t past_tag(std::string_view text, std::size_t from, bool& self_closing) {
  char quote = 0;
  for (std::size_t i = from; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      self_closing = i > from && text[i - 1] == '/';
      return i + 1;
    }
  }
  self_closing = false;
  return text.size();
}

}  // namespace

Status check_xml_nesting(std::string_view text, const std::string& file) {
  int depth = 0;
  std::size_t i = 0;
  while ((i = text.find('<', i)) != std::string_view::npos) {
    std::string_view rest = text.substr(i);
    if (rest.starts_with("<!--")) {
      i = past(text, i + 4, "-->");
    } else if (rest.starts_with("<![CDATA[")) {
      i = past(text, i + 9, "]]>");
    } else if (rest.starts_with("<?")) {
      i = past(text, i + 2, "?>");
    } else if (rest.starts_with("<!")) {
      i = past(text, i + 2, ">");
    } else if (rest.starts_with("</")) {
      if (depth > 0) --depth;
      i = past(text, i + 2, ">");
    } else {
      bool self_closing = false;
      std::size_t end = past_tag(text, i + 1, self_closing);
      if (!self_closing && ++depth > kMaxXmlNesting)
        return Error::invalid(
            fmt::format("elements nest deeper than {} levels: not a hwloc export", kMaxXmlNesting),
            location(text, i, file));
      i = end;
    }
  }
  return Ok{};
}

Result<std::string> read_topology_xml(const std::string& path) {
  auto text = read_file(path);
  if (!text.ok()) {
    Error e = text.error();
    e.what = "cannot read topology XML: " + e.what;
    return e;
  }
  if (text->find_first_not_of(" \t\r\n") == std::string::npos)
    return Error::invalid("empty file: not a hwloc XML export", path);
  if (Status s = check_xml_nesting(*text, path); !s.ok()) return s.error();
  return text;
}

}  // namespace tuner
