// FileKnob: the base of the knobs whose value is the text of one kernel file under the
// root (sysctl, cpu:N:resume_latency, and through ChoiceKnob the governor, EPP and THP
// knobs): one write path, one read-back message, errors that name the knob first.
#pragma once

#include <string>

#include "tuner/knobs/knob.h"

namespace tuner {

class FileKnob : public MachineKnob {
 public:
  /// path: the file written, relative to the root ("proc/sys/vm/swappiness").
  FileKnob(KnobId id, KnobContext& ctx, std::string path)
      : MachineKnob(std::move(id), ctx), path_(std::move(path)) {}

 protected:
  /// rel's text (path_ unless another file says more, as a list of offered values).
  Result<std::string> read_text(const std::string& rel) const;
  /// Writes value to path_ in one write(2).
  Status set(const std::string& value) override;
  std::string mismatch(const std::string& now, const std::string& want) override;
  /// e with the knob's id in front of its where: "sysctl:vm.swappiness (/proc/sys/...)".
  Error labelled(const Error& e) const;

  std::string path_;
};

}  // namespace tuner
