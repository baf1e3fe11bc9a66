// [mm]: transparent hugepages (mm:thp) and their defrag mode (mm:thp_defrag). The
// current value is the knob's (the bracketed word of "always [madvise] never"), and the
// knob says whether this kernel offers the word asked for. A kernel without THP gets a
// note, not an error.
#include "tuner/plan/builder.h"

namespace tuner::planner_detail {

Status plan_mm(PlanBuilder& b) {
  struct Setting {
    const std::optional<TableSetting>& value;
    KnobId knob;
    const char* key;
    const char* what;
  };
  const MmTable& t = b.profile.mm;
  for (const Setting& s : {Setting{t.thp, KnobId::mm_thp(), "thp", "transparent hugepages"},
                           Setting{t.thp_defrag, KnobId::mm_thp_defrag(), "thp_defrag",
                                   "transparent hugepage defrag"}}) {
    if (!s.value) continue;
    std::string why;
    auto planned = plan_table_knob(
        b, s.knob, *s.value, std::string("profile sets ") + s.what + " " + s.value->value, why);
    if (!planned.ok()) return planned.error();
    if (!*planned)
      b.note("", std::string(s.key) + " = \"" + s.value->value +
                     "\" not available on this machine: " + why);
  }
  return Ok{};
}

}  // namespace tuner::planner_detail
