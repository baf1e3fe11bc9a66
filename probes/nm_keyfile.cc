#include "probes/nm_keyfile.h"

#include <algorithm>
#include <cctype>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {
namespace {

// More connection files than any real node holds: a hostile folder cannot make the
// probe read without end.
constexpr std::size_t kMaxConnections = 512;

const char* const kConnectionDirs[] = {"etc/NetworkManager/system-connections",
                                       "run/NetworkManager/system-connections",
                                       "usr/lib/NetworkManager/system-connections"};

// GKeyFile's escapes in values: \s \n \t \r \\.
std::string unescape(std::string_view v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '\\' || i + 1 == v.size()) {
      out += v[i];
      continue;
    }
    char c = v[++i];
    out += c == 's' ? ' ' : c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
  }
  return out;
}

std::string lower(std::string s) {
  std::ranges::transform(s, s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

Result<NmConnection> parse_nm_keyfile(std::string_view text, const std::string& file) {
  NmConnection c;
  c.file = file;
  std::string group;
  int line_no = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    std::string where = fmt::format("{}:{}", file, line_no);
    if (line.front() == '[') {
      if (line.back() != ']') return Error::invalid("a group header without ']'", where);
      group = std::string(line.substr(1, line.size() - 2));
      if (group == "802-3-ethernet") group = "ethernet";
      continue;
    }
    auto eq = line.find('=');
    if (eq == std::string_view::npos) return Error::invalid("expected KEY=VALUE or [group]", where);
    if (group.empty()) return Error::invalid("a key before any [group]", where);
    std::string key(trim(line.substr(0, eq)));
    std::string value = unescape(trim(line.substr(eq + 1)));
    if (group == "connection" && key == "id") c.id = value;
    else if (group == "connection" && key == "interface-name") c.interface_name = value;
    else if (group == "connection" && key == "autoconnect")
      c.autoconnect = !(value == "false" || value == "0" || value == "no");
    else if (group == "match" && key == "interface-name" && c.interface_name.empty())
      c.interface_name = std::string(trim(split(value, ';').front()));
    else if (group == "ethernet" && key == "mac-address") c.mac = lower(value);
    if (group != "ethernet" && group != "ethtool") continue;
    std::string full = group + "." + key;
    std::erase_if(c.properties, [&](const auto& p) { return p.key == full; });
    c.properties.push_back({full, value, line_no});
  }
  if (c.id.empty()) c.id = file.substr(file.rfind('/') + 1);
  return c;
}

std::vector<NmConnection> read_nm_connections(const Root& root, std::vector<ProbeError>& errors) {
  std::vector<NmConnection> out;
  std::size_t read = 0;
  for (const char* dir : kConnectionDirs) {
    auto names = root.list(dir);
    if (!names.ok()) {
      if (!names.error().is(ErrorKind::missing))
        errors.push_back({"networkmanager", names.error().message()});
      continue;
    }
    for (const std::string& name : *names) {
      if (!name.ends_with(".nmconnection")) continue;
      if (++read > kMaxConnections) {
        errors.push_back(
            {"networkmanager",
             fmt::format("{}: more than {} connections, the rest not read", dir, kMaxConnections)});
        return out;
      }
      std::string path = std::string(dir) + "/" + name;
      auto text = root.read(path);
      if (!text.ok()) {
        errors.push_back({"networkmanager", text.error().message()});
        continue;
      }
      auto c = parse_nm_keyfile(*text, path);
      if (!c.ok()) {
        errors.push_back({"networkmanager", c.error().message()});
        continue;
      }
      out.push_back(std::move(*c));
    }
  }
  return out;
}

}  // namespace tuner
