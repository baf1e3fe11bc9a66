#include "tuner/knobs/dropin_knob.h"

#include <vector>

#include "tuner/knobs/systemd.h"

namespace tuner {

Result<std::string> DropinKnob::read() {
  auto text = read_dropin(ctx_.root, dropin());
  if (!text.ok()) return text.error().context(id_str_);
  if (!*text) return std::string("none");
  return value_of(**text, dropin().shown(ctx_.root));
}

std::string DropinKnob::mismatch(const std::string& now, const std::string& want) {
  return dropin_mismatch(ctx_.root, dropin(), now, want);
}

Result<bool> DropinKnob::reload(const std::string& without_systemd, const char* restart) {
  Systemctl& sc = *ctx_.systemctl;
  if (!sc.running()) {
    note(without_systemd);
    return false;
  }
  bool was_active = false;
  if (restart) {
    auto state = sc.is_active(restart);
    was_active = state.ok() && unit_state_active(*state);
  }
  if (Status s = systemctl_after_dropin(sc, ctx_.root, dropin(), id_str_, {"daemon-reload"});
      !s.ok())
    return s.error();
  if (was_active)
    if (Status s = systemctl_after_dropin(sc, ctx_.root, dropin(), id_str_, {"restart", restart});
        !s.ok())
      return s.error();
  return true;
}

}  // namespace tuner
