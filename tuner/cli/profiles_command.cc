// tuner profiles: the profiles in the search path, whether each fits this machine, and
// the one automatic selection would pick. A broken profile is listed with its error.
#include <sys/stat.h>

#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "tuner/cli/cli.h"
#include "tuner/cli/target_options.h"
#include "tuner/profile/match.h"
#include "tuner/profile/profile.h"

namespace po = boost::program_options;

namespace tuner {

namespace {

struct Entry {
  FoundProfile found;
  std::optional<Profile> profile;
  std::string error;  // load error: "file:line:col: what"
  bool matches = false;
  std::string why_not;
  bool selected = false;
};

nlohmann::ordered_json to_json(const std::vector<Entry>& entries,
                               const std::vector<std::string>& path) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Entry& e : entries) {
    nlohmann::ordered_json j;
    j["name"] = e.found.name;
    j["file"] = e.found.file;
    if (e.profile) {
      j["description"] = e.profile->description;
      j["includes"] = nlohmann::ordered_json(
          std::vector<std::string>(e.profile->chain.begin(), e.profile->chain.end() - 1));
      j["matches"] = e.matches;
      j["why_not"] = e.matches ? nlohmann::ordered_json(nullptr)
                               : nlohmann::ordered_json(e.why_not);
      j["error"] = nullptr;
    } else {
      j["description"] = nullptr;
      j["includes"] = nullptr;
      j["matches"] = nullptr;
      j["why_not"] = nullptr;
      j["error"] = e.error;
    }
    j["selected"] = e.selected;
    list.push_back(std::move(j));
  }
  return {{"schema", "tuner.profiles/1"}, {"search_path", path}, {"profiles", std::move(list)}};
}

std::string to_text(const std::vector<Entry>& entries, const std::vector<std::string>& path,
                    const Term& term) {
  std::string out;
  if (entries.empty()) {
    return fmt::format(
        "no profiles found (searched: {})\n",
        path.empty() ? "no profile directory exists" : fmt::format("{}", fmt::join(path, ", ")));
  }
  std::size_t width = 4;
  for (const Entry& e : entries) width = std::max(width, e.found.name.size());
  for (const Entry& e : entries) {
    std::string mark = e.selected ? "*" : " ";
    std::string name = fmt::format("{:<{}}", e.found.name, width);
    if (!e.profile) {
      out += fmt::format("{} {}  {}  {}\n", mark, name, term.red("broken "), e.error);
      continue;
    }
    std::string state = e.matches ? term.green("matches") : term.dim("-      ");
    out += fmt::format("{} {}  {}  {}\n", mark, e.selected ? term.bold(name) : name, state,
                       e.profile->description);
    out += term.dim(fmt::format("  {:<{}}  {}", "", width, e.found.file));
    if (e.profile->chain.size() > 1)
      out += term.dim(fmt::format(
          " (includes {})", fmt::join(e.profile->chain.begin(), e.profile->chain.end() - 1, ", ")));
    out += "\n";
    if (!e.matches)
      out += term.dim(fmt::format("  {:<{}}  does not match: {}", "", width, e.why_not)) + "\n";
  }
  auto sel =
      std::find_if(entries.begin(), entries.end(), [](const Entry& e) { return e.selected; });
  out += sel == entries.end()
             ? "\nno profile would be selected automatically: pass --profile\n"
             : fmt::format("\n* = selected automatically when no --profile is given\n");
  return out;
}

}  // namespace

int profiles_command(GlobalOptions& g, const std::vector<std::string>& args) {
  po::options_description desc("tuner profiles");
  desc.add_options()("json", "print the tuner.profiles/1 JSON document");
  add_target_options(desc);
  po::variables_map vm;
  if (!parse_options("profiles", args, desc, {}, vm, g)) return 0;
  for (const std::string& d : g.profile_path) {
    struct stat st;
    if (::stat(d.c_str(), &st) != 0)
      fail_input(errno_error("cannot use profile directory", "--profile-path " + d).message());
    if (!S_ISDIR(st.st_mode)) fail_input(fmt::format("--profile-path {}: not a directory", d));
  }
  std::vector<std::string> path = profile_search_path(g.profile_path);
  Target target = open_target(vm);
  Inventory inv = probe_target(target);

  std::vector<Entry> entries;
  for (const FoundProfile& f : find_profiles(path)) {
    Entry e{f, std::nullopt, "", false, "", false};
    auto p = load_profile(f.file, path);
    if (p.ok()) {
      e.profile = std::move(p).value();
      e.matches = profile_matches(*e.profile, inv, &e.why_not);
    } else {
      e.error = p.error().message();
    }
    entries.push_back(std::move(e));
  }
  std::vector<std::pair<std::string, const Profile*>> loaded;
  loaded.reserve(entries.size());
  for (const Entry& e : entries)
    loaded.emplace_back(e.found.name, e.profile ? &*e.profile : nullptr);
  std::string selected = select_profile(loaded, inv);
  for (Entry& e : entries) e.selected = e.found.name == selected;

  if (vm.count("json")) {
    print_document(to_json(entries, path));
  } else {
    Term term(g.color, 1);
    std::cout << term.printable(to_text(entries, path, term));
  }
  return 0;
}

}  // namespace tuner
