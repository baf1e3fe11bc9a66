#include "tuner/knobs/sysfs_choice.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/strings.h"

namespace tuner {

Result<Choice> parse_bracketed_choice(std::string_view text) {
  Choice c;
  bool found = false;
  for (std::string_view w : split_ws(text)) {
    if (w.size() > 2 && w.front() == '[' && w.back() == ']') {
      w = w.substr(1, w.size() - 2);
      if (found)
        return Error::invalid("more than one word in brackets: '" + std::string(text) + "'");
      found = true;
      c.current = std::string(w);
    }
    c.offered.emplace_back(w);
  }
  if (!found) return Error::invalid("no word in brackets: '" + std::string(trim(text)) + "'");
  return c;
}

std::vector<std::string> parse_word_list(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view w : split_ws(text)) out.emplace_back(w);
  return out;
}

Status validate_choice_word(std::string_view word) {
  if (word.empty()) return Error::invalid("empty value");
  if (word.size() > 64) return Error::invalid("a value longer than 64 characters");
  for (char c : word)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '-'))
      return Error::invalid(
          fmt::format("'{}' has '{}': a value is one word of [A-Za-z0-9_+-]", word, c));
  return Ok{};
}

Result<std::string> ChoiceKnob::read() {
  auto c = choice();
  if (!c.ok()) return c.error();
  return c->current;
}

Result<std::string> ChoiceKnob::canonical(const std::string& desired) {
  std::string v(trim(desired));
  if (Status st = validate_choice_word(v); !st.ok()) return st.error().context(id_str_);
  if (also_accepted(v)) return v;
  auto c = choice();
  if (!c.ok()) return c.error();
  const auto& offered = c->offered;
  if (offered.empty() || std::find(offered.begin(), offered.end(), v) != offered.end()) return v;
  return Error::invalid(fmt::format("{} '{}' is not offered here (this machine offers: {})", what_,
                                    v, fmt::join(offered, ", ")),
                        id_str_);
}

}  // namespace tuner
