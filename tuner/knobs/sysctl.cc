// The sysctl knob: "sysctl:net.core.rmem_max" reads and writes /proc/sys/net/core/rmem_max
// through the Root fd. Values compare whitespace-normalised ("4096\t131072\t6291456\n"
// is "4096 131072 6291456").
#include <fmt/core.h>

#include "base/strings.h"
#include "probes/sysctl.h"
#include "tuner/knobs/knob.h"
#include "tuner/knobs/proc_file.h"

namespace tuner {

namespace {

// The id is the only input rollback has, so it is validated here on its own, whatever
// the profile loader checked: dotted segments of [A-Za-z0-9_-], nothing else.
Result<std::string> key_to_path(const std::string& id, std::string_view key) {
  if (key.empty() || key.size() > 255) return Error{"sysctl key is empty or too long", id, 0};
  std::string path = "proc/sys/";
  for (std::string_view seg : split(key, '.')) {
    if (seg.empty()) return Error{"empty segment in sysctl key", id, 0};
    for (char c : seg) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '-';
      if (!ok) return Error{fmt::format("character '{}' not allowed in a sysctl key", c), id, 0};
    }
    path += seg;
    path += '/';
  }
  path.pop_back();
  return path;
}

class SysctlKnob : public Knob {
 public:
  SysctlKnob(std::string id, std::string path, Root root)
      : id_(std::move(id)), path_(std::move(path)), root_(std::move(root)) {}

  const std::string& id() const override { return id_; }

  Result<std::string> read() override {
    auto text = read_proc_file(root_, path_);
    if (!text.ok()) return Error{text.error().what, id_ + " (" + text.error().where + ")",
                                 text.error().err};
    return normalize_ws(*text);
  }

  Result<std::string> canonical(const std::string& desired) override {
    std::string v = normalize_ws(desired);
    if (v.empty()) return Error{"empty value", id_, 0};
    return v;
  }

  Status write(const std::string& value) override {
    std::string v = normalize_ws(value);
    if (auto s = write_proc_file(root_, path_, v); !s.ok())
      return Error{s.error().what, id_ + " (" + s.error().where + ")", s.error().err};
    auto back = read();
    if (!back.ok()) return back.error();
    if (*back != v)
      return Error{fmt::format("wrote '{}' but the kernel reads back '{}'", v, *back), id_, 0};
    return Ok{};
  }

 private:
  std::string id_, path_;
  Root root_;
};

}  // namespace

Result<std::unique_ptr<Knob>> make_sysctl_knob(const std::string& id, KnobContext& ctx) {
  std::string_view key = std::string_view(id).substr(7);  // after "sysctl:"
  if (auto s = check_sysctl_key_syntax(key); !s.ok()) return s.error();
  auto path = key_to_path(id, key);
  if (!path.ok()) return path.error();
  return std::unique_ptr<Knob>(new SysctlKnob(id, std::move(path).value(), ctx.root));
}

}  // namespace tuner
