#include "tuner/cli/report/fleet_nodeset.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>

#include <fmt/core.h>

namespace tuner {

namespace {

/// One number or range in a bracket ("0005-0006") and how many nodes it stands for;
/// a plain name is one piece of one node with no text.
struct Piece {
  std::string text;
  std::size_t count = 1;
};

/// One comma-separated part of the nodeset: prefix[pieces]suffix, or a name as it is.
struct Item {
  std::string prefix, suffix;
  std::vector<Piece> pieces;

  /// The first k pieces; one single number needs no brackets.
  std::string render(std::size_t k) const {
    if (k == 1 && pieces[0].count == 1) return prefix + pieces[0].text + suffix;
    std::string out = prefix + "[";
    for (std::size_t i = 0; i < k; ++i) out += (i ? "," : "") + pieces[i].text;
    return out + "]" + suffix;
  }
};

/// Characters of the nodeset syntax, blanks and controls: such a name is not folded.
bool plain_only(const std::string& name) {
  return std::any_of(name.begin(), name.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return c == '[' || c == ']' || c == ',' || u <= ' ' || u == 0x7f;
  });
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// v written as a range's member: zero-padded to width, or as it is for width 0.
std::string padded(std::uint64_t v, std::size_t width) {
  return width ? fmt::format("{:0{}}", v, width) : std::to_string(v);
}

/// The numbers of one prefix and suffix, sorted, as ranges of consecutive numbers written
/// alike.
std::vector<Piece> ranges(std::vector<std::pair<std::uint64_t, std::string>> numbers) {
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  std::vector<Piece> out;
  for (std::size_t i = 0; i < numbers.size();) {
    const std::string& first = numbers[i].second;
    const std::size_t width = first.size() > 1 && first[0] == '0' ? first.size() : 0;
    std::size_t j = i + 1;
    while (j < numbers.size() && numbers[j].first == numbers[j - 1].first + 1 &&
           numbers[j].second == padded(numbers[j].first, width))
      ++j;
    out.push_back({j - i == 1 ? first : first + "-" + numbers[j - 1].second, j - i});
    i = j;
  }
  return out;
}

std::vector<Item> fold(const std::vector<std::string>& nodes) {
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<std::uint64_t, std::string>>>
      numbered;
  std::vector<Item> items;
  for (const std::string& name : nodes) {
    std::size_t end = name.size();
    while (end > 0 && !is_digit(name[end - 1])) --end;
    std::size_t begin = end;
    while (begin > 0 && is_digit(name[begin - 1])) --begin;
    // 19 digits and more may not fit 64 bits: such a name is listed as it is.
    if (end == 0 || end - begin > 18 || plain_only(name)) {
      items.push_back({name, "", {{"", 1}}});
      continue;
    }
    std::string digits = name.substr(begin, end - begin);
    numbered[{name.substr(0, begin), name.substr(end)}].emplace_back(std::stoull(digits), digits);
  }
  for (auto& [affix, numbers] : numbered)
    items.push_back({affix.first, affix.second, ranges(std::move(numbers))});
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::tie(a.prefix, a.suffix) < std::tie(b.prefix, b.suffix);
  });
  return items;
}

}  // namespace

std::string nodeset(const std::vector<std::string>& nodes) {
  std::string out;
  for (const Item& item : fold(nodes))
    out += (out.empty() ? "" : ",") + item.render(item.pieces.size());
  return out;
}

std::string nodeset_capped(const std::vector<std::string>& nodes, std::size_t max_chars) {
  std::string out;
  std::size_t shown = 0;
  for (const Item& item : fold(nodes)) {
    const std::string head = out.empty() ? "" : ",";
    // As many of the item's pieces as fit (at least one when nothing is shown yet).
    std::size_t k = 0, count = 0;
    while (k < item.pieces.size() &&
           (out.size() + head.size() + item.render(k + 1).size() <= max_chars ||
            (out.empty() && k == 0))) {
      count += item.pieces[k].count;
      ++k;
    }
    if (k == 0) break;
    out += head + item.render(k);
    shown += count;
    if (k < item.pieces.size()) break;
  }
  if (shown < nodes.size()) out += fmt::format(" ... and {} more", nodes.size() - shown);
  return out;
}

}  // namespace tuner
