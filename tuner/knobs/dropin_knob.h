// The base of the knobs whose value lives in a systemd drop-in (numa:unit,
// irqbalance:banned): the read-back message and the reload after a write are the same
// for both.
#pragma once

#include <string>

#include "base/result.h"
#include "tuner/knobs/knob.h"
#include "tuner/knobs/knob_files.h"

namespace tuner {

class DropinKnob : public MachineKnob {
 public:
  using MachineKnob::MachineKnob;

  /// "none" when there is no drop-in, else what value_of() makes of its text.
  Result<std::string> read() final;

 protected:
  /// Where this knob's drop-in lives.
  virtual Dropin dropin() const = 0;
  /// The value a drop-in's text sets; `shown` is its path as errors name it.
  virtual Result<std::string> value_of(const std::string& text, const std::string& shown) = 0;

  std::string mismatch(const std::string& now, const std::string& want) override;

  /// daemon-reload, so that systemd reads the drop-in, then a restart of `restart` when
  /// that unit was active. Without systemd (a container, a chroot) nothing runs, and
  /// `without_systemd` becomes a note. True when systemd reloaded.
  Result<bool> reload(const std::string& without_systemd, const char* restart = nullptr);
};

}  // namespace tuner
