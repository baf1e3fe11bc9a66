// mm:thp and mm:thp_defrag: sys/kernel/mm/transparent_hugepage/enabled and defrag. The
// kernel lists what it offers with the current word in brackets ("always [madvise]
// never", "always defer defer+madvise [madvise] never"); the value is that word, and a
// word is written alone.
#include "tuner/knobs/knob.h"
#include "tuner/knobs/sysfs_choice.h"

namespace tuner {

namespace {

const char* const kThpDir = "sys/kernel/mm/transparent_hugepage";

class ThpKnob : public ChoiceKnob {
 public:
  using ChoiceKnob::ChoiceKnob;

 protected:
  Result<Choice> choice() override {
    auto text = read_text(path_);
    if (!text.ok()) return text.error();
    auto c = parse_bracketed_choice(*text);
    if (!c.ok()) return labelled(Error::invalid(c.error().what, shown_path(ctx_.root, path_)));
    return c;
  }
};

}  // namespace

Result<std::unique_ptr<Knob>> make_thp_knob(const KnobId& id, KnobContext& ctx) {
  bool defrag = id.kind == KnobKind::mm_thp_defrag;
  std::string file = std::string(kThpDir) + (defrag ? "/defrag" : "/enabled");
  if (!ctx.root.exists(file)) {
    // A capture of part of /sys (hwloc's) says nothing about the kernel's mm.
    if (!ctx.root.is_live() && !ctx.root.exists("sys/kernel/mm"))
      return Error::unsupported(ctx.root.dir() + " has no sys/kernel/mm", id.str());
    return Error::missing("this kernel has no transparent hugepages (no /" + file + ")", id.str());
  }
  return std::unique_ptr<Knob>(
      new ThpKnob(id, ctx, std::move(file), defrag ? "THP defrag mode" : "THP mode"));
}

}  // namespace tuner
