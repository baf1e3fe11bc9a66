#include "probes/irq.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/cpuset.h"
#include "base/strings.h"

namespace tuner {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// A whitespace-separated token of a line and where it starts (for the name column,
/// which is "the rest of the line" with its inner spaces).
struct Token {
  std::string_view text;
  std::size_t pos = 0;
};

/// The next token at or after `pos`; empty text at the end of the line.
Token next_token(std::string_view line, std::size_t pos) {
  while (pos < line.size() && is_blank(line[pos])) ++pos;
  std::size_t end = pos;
  while (end < line.size() && !is_blank(line[end])) ++end;
  return {line.substr(pos, end - pos), pos};
}

Error parse_error(std::size_t line_no, std::string what) {
  return Error::invalid(std::move(what), "interrupts:" + std::to_string(line_no));
}

/// The hwirq column: "5-edge", "-edge" (no irq domain), "524288-edge", "27" followed by
/// "Level"/"Edge" on GENERIC_IRQ_SHOW_LEVEL kernels. Action names never start with a
/// digit or '-', which is what tells the two columns apart.
bool looks_like_hwirq(std::string_view t) {
  if (t.empty()) return false;
  std::size_t i = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
  if (i == t.size()) return true;
  return t[i] == '-' && i + 1 < t.size();
}
bool is_level_word(std::string_view t) { return t == "Level" || t == "Edge"; }

/// Line 1 (after blank lines): "CPU0 CPU1 CPU4". Returns the CPU numbers and the
/// index of the first line after the header.
Result<std::vector<unsigned>> parse_header(const std::vector<std::string_view>& lines,
                                           std::size_t& next) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (trim(lines[i]).empty()) continue;
    std::vector<unsigned> cpus;
    for (std::string_view t : split_ws(lines[i])) {
      auto n = starts_with(t, "CPU") ? parse_u64(t.substr(3)) : std::nullopt;
      if (!n || *n > 1u << 22)
        return parse_error(i + 1, "header: expected CPU columns like \"CPU0\", got \"" +
                                      std::string(t.substr(0, 32)) + "\"");
      cpus.push_back(static_cast<unsigned>(*n));
    }
    next = i + 1;
    return cpus;
  }
  return parse_error(1, "no header line (empty file)");
}

}  // namespace

Result<std::vector<unsigned>> parse_interrupts_cpus(std::string_view text) {
  std::size_t next = 0;
  return parse_header(split(text, '\n'), next);
}

Result<std::vector<Irq>> parse_interrupts(std::string_view text) {
  std::vector<std::string_view> lines = split(text, '\n');
  std::size_t first = 0;
  auto header = parse_header(lines, first);
  if (!header.ok()) return header.error();
  const std::size_t ncpu = header->size();

  std::vector<Irq> irqs;
  std::set<unsigned> seen;
  for (std::size_t i = first; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    const std::size_t line_no = i + 1;
    if (trim(line).empty()) continue;
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return parse_error(line_no, "no ':' after the IRQ label");
    std::string_view label = trim(line.substr(0, colon));
    if (!all_digits(label)) continue;  // NMI, LOC, ERR, MIS, IPI0, ... are not IRQs
    auto number = parse_u64(label);
    if (!number || *number > 0xffffffffu) return parse_error(line_no, "IRQ number out of range");
    Irq irq;
    irq.number = static_cast<unsigned>(*number);
    if (!seen.insert(irq.number).second)
      return parse_error(line_no, "IRQ " + std::string(label) + " listed twice");

    std::size_t pos = colon + 1;
    irq.per_cpu.reserve(ncpu);
    for (std::size_t c = 0; c < ncpu; ++c) {
      Token t = next_token(line, pos);
      auto count = parse_u64(t.text);
      if (t.text.empty() || !count)
        return parse_error(line_no, "IRQ " + std::string(label) + ": expected " +
                                        std::to_string(ncpu) + " per-CPU counts, column " +
                                        std::to_string(c + 1) + " is \"" +
                                        std::string(t.text.substr(0, 32)) + "\"");
      irq.per_cpu.push_back(*count);
      pos = t.pos + t.text.size();
    }
    Token chip = next_token(line, pos);
    if (chip.text.empty())
      return parse_error(line_no, "IRQ " + std::string(label) + ": truncated, no chip column");
    irq.chip = std::string(chip.text);
    pos = chip.pos + chip.text.size();

    Token t = next_token(line, pos);
    if (looks_like_hwirq(t.text) || is_level_word(t.text)) {
      irq.hwirq = std::string(t.text);
      pos = t.pos + t.text.size();
      Token level = next_token(line, pos);
      if (!is_level_word(t.text) && is_level_word(level.text)) {
        irq.hwirq += ' ';
        irq.hwirq += level.text;
        pos = level.pos + level.text.size();
      }
    }
    irq.name = std::string(trim(line.substr(std::min(pos, line.size()))));
    irqs.push_back(std::move(irq));
  }
  return irqs;
}

}  // namespace tuner
