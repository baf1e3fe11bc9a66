// Finding profile files, reading them safely, and resolving includes.
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/fd_io.h"
#include "base/file_trust.h"
#include "base/hash.h"
#include "tuner/profile/merge.h"
#include "tuner/profile/parse.h"
#include "tuner/profile/profile.h"
#include "tuner/profile/value_search.h"

namespace tuner {

namespace {

// Far above any real profile; bounds hostile input.
constexpr std::size_t kMaxProfileBytes = std::size_t{1} << 20;
constexpr int kMaxIncludeDepth = 16;

bool is_dir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : p;
}

std::string dir_of(const std::string& p) {
  auto slash = p.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : p.substr(0, slash);
}

std::string base_of(const std::string& p) { return p.substr(p.find_last_of('/') + 1); }

/// The whole profile, through the bounded reader: a regular file of at most 1 MiB (a
/// FIFO cannot hang the load). As root, only one no other user could have written
/// (base/file_trust.h), checked on the descriptor that is then read.
Result<std::string> read_profile_text(const std::string& path) {
  const ReadLimits limits{.max_bytes = kMaxProfileBytes, .regular_only = true};
  auto fd = open_for_read(AT_FDCWD, path, path, limits);
  Result<std::string> text = Error::invalid("");
  if (fd.ok()) {
    if (Status trusted = check_trusted_fd(fd->get(), path, "profile"); !trusted.ok())
      return trusted.error();
    text = read_fd(fd->get(), path, limits);
  } else {
    text = fd.error();
  }
  if (!text.ok()) {
    Error e = text.error();
    e.what = "cannot read profile (1 MiB limit): " + e.what;
    return e;
  }
  return text;
}

class Loader {
 public:
  explicit Loader(const std::vector<std::string>& search_path) : search_path_(search_path) {}

  /// Finds a name (in the including file's folder, then the search path) or a path
  /// (relative to the including file). A name never resolves to the file that
  /// includes it, so /etc/tuner/profiles/throughput.toml can extend the shipped one.
  Result<std::string> resolve(const std::string& target, const std::string& from) const {
    if (!is_profile_name(target)) {
      std::string p = (target.front() == '/' || from.empty()) ? target
                                                              : dir_of(from) + "/" + target;
      struct stat st;
      if (::stat(p.c_str(), &st) != 0)
        return errno_error(fmt::format("cannot read profile '{}'", p), "");
      if (!S_ISREG(st.st_mode))
        return Error::invalid(fmt::format("profile '{}' is not a regular file", p), "");
      return p;
    }
    std::vector<std::string> dirs;
    if (!from.empty()) dirs.push_back(dir_of(from));
    for (const std::string& d : search_path_)
      if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
    std::string self = from.empty() ? "" : real_path(from);
    for (const std::string& d : dirs) {
      std::string p = d + "/" + target + ".toml";
      if (is_file(p) && real_path(p) != self) return p;
    }
    return Error::invalid(fmt::format("no profile named '{}' (searched: {})", target,
                                      dirs.empty() ? "nothing: no profile directory exists"
                                                   : fmt::format("{}", fmt::join(dirs, ", "))),
                          "");
  }

  // Recursive over includes, which kMaxIncludeDepth and the cycle check bound.
  // NOLINTNEXTLINE(misc-no-recursion)
  Result<Profile> load(const std::string& path) {
    auto text = read_profile_text(path);
    if (!text.ok()) return text.error();
    auto file = parse_profile_file(*text, path);
    if (!file.ok()) return file.error();
    digest_ = fnv1a64(*text + "\n", digest_);
    stack_.push_back(real_path(path));
    names_.push_back(base_of(path));
    Profile acc;
    for (const IncludeRef& inc : file->includes) {
      auto parent_path = resolve(inc.target, path);
      if (!parent_path.ok())
        return Error::invalid(
            fmt::format("include '{}': {}", inc.target, parent_path.error().message()),
            inc.loc.str());
      std::string real = real_path(*parent_path);
      auto cycle = std::find(stack_.begin(), stack_.end(), real);
      if (cycle != stack_.end()) {
        std::vector<std::string> chain(names_.begin() + (cycle - stack_.begin()), names_.end());
        chain.push_back(base_of(*parent_path));
        return Error::invalid(fmt::format("include cycle: {}", fmt::join(chain, " -> ")),
                              inc.loc.str());
      }
      if (stack_.size() >= kMaxIncludeDepth)
        return Error::invalid(fmt::format("includes nest deeper than {} files", kMaxIncludeDepth),
                              inc.loc.str());
      auto parent = load(*parent_path);
      if (!parent.ok()) {
        Error e = parent.error();
        e.what += fmt::format(" (included from {})", inc.loc.str());
        return e;
      }
      merge_into(acc, *parent);
    }
    std::vector<GroupClaim> own = group_claims(file->profile);
    claims_.insert(claims_.end(), own.begin(), own.end());
    merge_into(acc, file->profile);
    stack_.pop_back();
    names_.pop_back();
    return acc;
  }

  const std::vector<GroupClaim>& claims() const { return claims_; }
  /// Over the text of every file loaded so far, in load order.
  std::uint64_t digest() const { return digest_; }

 private:
  const std::vector<std::string>& search_path_;
  std::vector<std::string> stack_;  // real paths of the files being loaded, outermost first
  std::vector<std::string> names_;  // their file names, for cycle messages
  std::vector<GroupClaim> claims_;  // every file's group members, parents first
  std::uint64_t digest_ = kFnv1a64Basis;
};

}  // namespace

bool is_profile_name(std::string_view s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

std::vector<std::string> profile_search_path(const std::vector<std::string>& configured) {
  std::vector<std::string> wanted = configured;
  if (wanted.empty()) {
    wanted = {"/etc/tuner/profiles", TUNER_DATA_PROFILES};
    // The source tree's profiles only for a binary that runs from its build tree: an
    // installed one must not read a path of the machine it was built on, which anyone
    // may create on this one.
    if (build_tree_owner() >= 0) wanted.emplace_back(TUNER_SOURCE_PROFILES);
  }
  std::vector<std::string> out;
  for (const std::string& d : wanted)
    if (is_dir(d) && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  return out;
}

Result<Profile> load_profile(const std::string& name_or_path,
                             const std::vector<std::string>& search_path) {
  if (name_or_path.empty()) return Error::invalid("empty profile name", "");
  Loader loader(search_path);
  auto path = loader.resolve(name_or_path, "");
  if (!path.ok()) return Error::invalid(path.error().message(), "--profile " + name_or_path);
  auto profile = loader.load(*path);
  if (!profile.ok()) return profile;
  Status grouped = apply_group_members(*profile, loader.claims());
  if (!grouped.ok()) return grouped.error();
  // After the groups: a parent's group may still list a key its child leaves.
  std::erase_if(profile->sysctls, [](const SysctlSetting& s) { return s.leave; });
  if (Status s = check_bench_names(*profile); !s.ok()) return s.error();
  if (Status s = check_one_search_per_group(*profile); !s.ok()) return s.error();
  profile->digest = "fnv1a64:" + hex64(loader.digest());
  return profile;
}

}  // namespace tuner
