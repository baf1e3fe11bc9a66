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

class SysctlKnob : public Knob {
 public:
  SysctlKnob(std::string id, std::string path, Root root)
      : id_(std::move(id)), path_(std::move(path)), root_(std::move(root)) {}

  const std::string& id() const override { return id_; }

  Result<std::string> read() override {
    auto text = read_proc_file(root_, path_);
    if (!text.ok()) return errno_error(text.error().what, id_ + " (" + text.error().where + ")",
                                 text.error().err);
    return normalize_ws(*text);
  }

  Result<std::string> canonical(const std::string& desired) override {
    std::string v = normalize_ws(desired);
    if (v.empty()) return Error::invalid("empty value", id_);
    return v;
  }

  Status write(const std::string& value) override {
    std::string v = normalize_ws(value);
    if (auto s = write_proc_file(root_, path_, v); !s.ok())
      return errno_error(s.error().what, id_ + " (" + s.error().where + ")", s.error().err);
    auto back = read();
    if (!back.ok()) return back.error();
    if (*back != v)
      return Error::invalid(fmt::format("wrote '{}' but the kernel reads back '{}'", v, *back), id_);
    return Ok{};
  }

 private:
  std::string id_, path_;
  Root root_;
};

}  // namespace

Result<std::unique_ptr<Knob>> make_sysctl_knob(const std::string& id, KnobContext& ctx) {
  // The id is all rollback has, so it is validated here on its own, whatever the
  // profile loader checked: key syntax, and a regular file under proc/sys reached
  // without a symlink.
  std::string_view key = std::string_view(id).substr(7);  // after "sysctl:"
  auto path = sysctl_path(ctx.root, key);
  if (!path.ok()) {
    const Error& e = path.error();
    std::string what = e.where.empty() || e.where == key ? e.what : e.where + ": " + e.what;
    return errno_error(what, id, e.err);
  }
  return std::unique_ptr<Knob>(new SysctlKnob(id, std::move(path).value(), ctx.root));
}

}  // namespace tuner
