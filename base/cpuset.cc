#include "base/cpuset.h"

#include <algorithm>
#include <charconv>

#include "base/strings.h"

namespace tuner {
namespace {

constexpr unsigned kMaxCpu = 1u << 20;  // far above any real machine; rejects absurd input

bool parse_uint(std::string_view s, unsigned* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

CpuSet::CpuSet(std::vector<unsigned> cpus) : cpus_(std::move(cpus)) {
  std::sort(cpus_.begin(), cpus_.end());
  cpus_.erase(std::unique(cpus_.begin(), cpus_.end()), cpus_.end());
}

Result<CpuSet> CpuSet::parse(std::string_view text) {
  std::string_view t = trim(text);
  if (t.empty()) return CpuSet();
  // By CPU number: repeated or overlapping items ("0-1048575,0-1048575,...") cost no
  // more memory than one.
  std::vector<bool> seen;
  for (std::string_view item : split(t, ',')) {
    item = trim(item);
    auto bad = [&] {
      return Error::invalid("invalid cpulist item '" + std::string(item) + "'", "");
    };
    // "LO-HI:USED/GROUP" (the kernel's bitmap_parselist): the first USED of every
    // GROUP CPUs from LO on.
    unsigned group = 1, used = 1;
    if (auto colon = item.find(':'); colon != std::string_view::npos) {
      std::string_view sg = item.substr(colon + 1);
      item = item.substr(0, colon);
      auto slash = sg.find('/');
      if (slash == std::string_view::npos || !parse_uint(sg.substr(0, slash), &used) ||
          !parse_uint(sg.substr(slash + 1), &group) || group == 0 || used == 0 || used > group)
        return bad();
    }
    unsigned lo = 0, hi = 0;
    if (auto dash = item.find('-'); dash != std::string_view::npos) {
      if (!parse_uint(item.substr(0, dash), &lo) || !parse_uint(item.substr(dash + 1), &hi))
        return bad();
    } else {
      if (!parse_uint(item, &lo)) return bad();
      hi = lo;
    }
    if (lo > hi) return bad();
    if (hi >= kMaxCpu)
      return Error::invalid("cpu number " + std::to_string(hi) + " out of range", "");
    if (seen.size() <= hi) seen.resize(hi + 1);
    // 64 bits: a GROUP near 2^32 must not wrap around to CPUs below LO.
    for (uint64_t base = lo; base <= hi; base += group)
      for (uint64_t c = base; c < base + used && c <= hi; ++c) seen[c] = true;
  }
  std::vector<unsigned> out;
  for (unsigned c = 0; c < seen.size(); ++c)
    if (seen[c]) out.push_back(c);
  return CpuSet(std::move(out));
}

Result<CpuSet> CpuSet::parse_mask(std::string_view text) {
  std::string hex;
  for (char c : trim(text))
    if (c != ',') hex += c;
  std::vector<unsigned> out;
  unsigned bit = 0;
  for (auto it = hex.rbegin(); it != hex.rend(); ++it, bit += 4) {
    char c = *it;
    unsigned v;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    else return Error::invalid("invalid hex cpumask '" + std::string(text) + "'", "");
    // The cpulist's bound: a set that parses in one form prints in the other.
    if (v != 0 && bit >= kMaxCpu)
      return Error::invalid("cpumask sets a CPU at or above " + std::to_string(kMaxCpu), "");
    for (unsigned b = 0; b < 4; ++b)
      if (v & (1u << b)) out.push_back(bit + b);
  }
  return CpuSet(std::move(out));
}

std::string CpuSet::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < cpus_.size();) {
    std::size_t j = i;
    while (j + 1 < cpus_.size() && cpus_[j + 1] == cpus_[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus_[i]);
    if (j > i) out += '-' + std::to_string(cpus_[j]);
    i = j + 1;
  }
  return out;
}

std::string CpuSet::to_mask() const {
  unsigned top = cpus_.empty() ? 0 : cpus_.back();
  unsigned words = top / 32 + 1;
  std::vector<uint32_t> w(words, 0);
  for (unsigned c : cpus_) w[c / 32] |= 1u << (c % 32);
  std::string out;
  char buf[16];
  for (unsigned i = words; i-- > 0;) {
    std::snprintf(buf, sizeof buf, i + 1 == words ? "%x" : "%08x", w[i]);
    if (!out.empty()) out += ',';
    out += buf;
  }
  return out;
}

void CpuSet::add(unsigned cpu) {
  auto it = std::lower_bound(cpus_.begin(), cpus_.end(), cpu);
  if (it == cpus_.end() || *it != cpu) cpus_.insert(it, cpu);
}

void CpuSet::remove(unsigned cpu) {
  auto it = std::lower_bound(cpus_.begin(), cpus_.end(), cpu);
  if (it != cpus_.end() && *it == cpu) cpus_.erase(it);
}

bool CpuSet::contains(unsigned cpu) const {
  return std::binary_search(cpus_.begin(), cpus_.end(), cpu);
}

bool CpuSet::is_subset_of(const CpuSet& other) const {
  return std::includes(other.cpus_.begin(), other.cpus_.end(), cpus_.begin(), cpus_.end());
}

CpuSet CpuSet::intersect(const CpuSet& other) const {
  CpuSet r;
  std::set_intersection(cpus_.begin(), cpus_.end(), other.cpus_.begin(), other.cpus_.end(),
                        std::back_inserter(r.cpus_));
  return r;
}

CpuSet CpuSet::unite(const CpuSet& other) const {
  CpuSet r;
  std::set_union(cpus_.begin(), cpus_.end(), other.cpus_.begin(), other.cpus_.end(),
                 std::back_inserter(r.cpus_));
  return r;
}

CpuSet CpuSet::minus(const CpuSet& other) const {
  CpuSet r;
  std::set_difference(cpus_.begin(), cpus_.end(), other.cpus_.begin(), other.cpus_.end(),
                      std::back_inserter(r.cpus_));
  return r;
}

}  // namespace tuner
